"""Property: a policy loaded beside a built-in pack, with any generated settings, either fails to
load or never lets through what the pack alone would withhold: a query the pack rejects stays
rejected, and the pack, given what the merged policy lets through, withholds and masks nothing."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from functools import cache
from typing import TYPE_CHECKING, Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rag_guard_integrations import (
    Chunk,
    ContextBlocked,
    Guard,
    PolicyError,
    load_policy,
    parse_policy,
)
from rag_guard_integrations.classify import PatternClassifier
from rag_guard_integrations.data import load_corpus

if TYPE_CHECKING:
    from rag_guard_integrations.policy.schema import Policy

pytestmark = pytest.mark.integration  # the bis pack's domain guard embeds with MiniLM

PACKS = ("default", "finance", "hipaa", "gdpr", "bis", "contracts")
LABELS = ("financial", "entity_identifier", "person_name", "payment_card", "public_info", "weather")
RECOGNIZERS = ("credit_card", "email", "phone", "money", "iban", "us_ssn")
WORDS = ("bitcoin", "steel", "cement", "pizza", "standard", "tarot", "price")
SCALARS = {
    "mode": ("enforce", "shadow"),
    "recognizers": ("always", "with_classify"),
    "classify": ("fill_missing", "always", "never"),
    "on_unknown_label": ("report", "block"),
    "on_block": ("drop_chunks", "empty", "raise"),
    "on_no_intent": ("refuse", "access_only"),
    "allow_non_text": (True, False),
    "no_context_refusal": ("Nothing you may see answers that.", "Ask again."),
}
# A real classifier attached to every guard, so that `classify` decides something.
CLASSIFIER = PatternClassifier.from_policy(
    parse_policy("classifiers: {builtin: {email: person_name, phone: person_name}}\n")
)
QUERIES = (
    "What is the termination notice period?",
    "What is the price of bitcoin?",
    "Scope of IS 269 for cement?",
    "Which client had revenue, and who holds the card?",
)
ACCESSES = (
    None,
    {"contract_type": ["MSA"], "tenant": ["a"]},
    {"contract_type": ["MSA", "SOW", "NDA", "DPA", "CHANNEL"], "tenant": ["a", "b"]},
)


def probe_chunks() -> list[Chunk]:
    """Chunks every pack has an opinion about: labels claimed and found, access attributes,
    dates, linking keys, contract clauses and BIS standards."""
    recent = (datetime.now(UTC) - timedelta(days=10)).date().isoformat()
    texts = [
        ("Card 4111 1111 1111 1111", {}),
        ("Ann Smith", {"classification": "person_name", "entity": "e1"}),
        ("Reach Ann at ann@example.com or +1 415 555 0100", {"entity": "e1"}),
        ("Q3 revenue $4.2M", {"classification": "financial", "entity": "e2"}),
        ("Client: Northwind Traders", {"classification": "entity_identifier", "entity": "e2"}),
        ("Offices open at nine.", {}),
        ("Salary band 7: $120,000", {"classifications": ["compensation"], "employee_id": "9"}),
        ("Employee 9: J. Doe", {"classification": "employee_identity", "employee_id": "9"}),
        ("Diagnosis: type 2 diabetes", {"classification": "health_condition", "entity": "e1"}),
        ("SSN 123-45-6789", {"classification": "weather"}),
    ]
    chunks = [
        Chunk(
            text,
            {
                **meta,
                "tenant": "ab"[i % 2],
                "contract_type": ("MSA", "SOW", "NDA")[i % 3],
                "updated_at": recent if i % 2 else "2019-01-01",
            },
            id=f"probe{i}",
        )
        for i, (text, meta) in enumerate(texts)
    ]
    contracts = [
        Chunk(c.text, {**c.metadata, "tenant": "a", "updated_at": recent}, id=f"contract{i}")
        for i, c in enumerate(load_corpus("contracts")[:8])
    ]
    return chunks + contracts + load_corpus("bis")[:4]


CHUNKS = probe_chunks()


@cache
def alone(pack: str) -> Guard:
    return Guard.from_policy(pack, classifier=CLASSIFIER)


@cache
def recheck(pack: str) -> Guard:
    """The pack without its query gate, to judge a subset of the chunks (the domain guard reads
    the whole retrieval, so it is compared on the query decision instead)."""
    policy = load_policy(pack)
    return Guard(policy.model_copy(update={"domain": None}), classifier=CLASSIFIER)


@st.composite
def access_section(draw: st.DrawFn) -> dict[str, Any]:
    attributes = draw(st.lists(st.sampled_from(["contract_type", "tenant"]), unique=True))
    match = {a: draw(st.sampled_from(["any", "all"])) for a in attributes if draw(st.booleans())}
    return {"attributes": attributes, **({"match": match} if match else {})}


words = st.lists(st.sampled_from(WORDS), unique=True, max_size=3)
similarity = st.floats(-1, 1, allow_nan=False)
domain_section = st.fixed_dictionaries(
    {},
    optional={
        "blocklist": words,
        "roots": words,
        "root_context": words,
        "signature_terms": words,
        "identifier_keys": st.lists(st.sampled_from(["standard", "id", "title"]), unique=True),
        "identifier_pattern": st.sampled_from([r"\b(?:is|ais)\s*[-:/]?\s*(\d{3,5})\b", r"(\d{4})"]),
        "min_similarity": similarity,
        "root_min_similarity": similarity,
        "root_window": st.integers(1, 50),
        "retriever_scores": st.sampled_from(["embed", "cosine"]),
    },
)
rules = st.lists(
    st.tuples(
        st.sampled_from(["block", "warn", "redact"]),
        st.sampled_from(["enforce", "shadow"]),
        st.lists(st.sampled_from(LABELS), min_size=1, max_size=2, unique=True),
        st.sampled_from(["context", "linked"]),
    ),
    max_size=2,
).map(
    lambda drawn: [
        {"name": f"trial_{i}", "action": a, "mode": m, "trigger": {"all_present": t, "scope": s}}
        for i, (a, m, t, s) in enumerate(drawn)
    ]
)
trial_sections = st.fixed_dictionaries(
    {},
    optional={
        **{key: st.sampled_from(values) for key, values in SCALARS.items()},
        "access": access_section(),
        "domain": domain_section,
        "recency": st.fixed_dictionaries(
            {"max_age_days": st.floats(1, 10_000)},
            optional={"field": st.sampled_from(["updated_at", "date"])},
        ),
        "linking": st.fixed_dictionaries(
            {"keys": st.lists(st.sampled_from(["entity", "tenant", "case_id"]), unique=True)}
        ),
        "classifiers": st.fixed_dictionaries(
            {"builtin": st.dictionaries(st.sampled_from(RECOGNIZERS), st.sampled_from(LABELS))}
        ),
        "labels": st.dictionaries(
            st.sampled_from(LABELS),
            st.fixed_dictionaries({}, optional={"threshold": similarity}),
            max_size=2,
        ),
        "rules": rules,
    },
)


@st.composite
def trials(draw: st.DrawFn, pack: str) -> str:
    """A trial policy's YAML: generated sections, and sometimes ``extends`` of the pack with
    some of its top-level settings listed under loosen."""
    data: dict[str, Any] = {"version": 1, "name": "trial", **draw(trial_sections)}
    if draw(st.booleans()):
        data["extends"] = [pack]
        scalars = [key for key in SCALARS if key in data]
        if loosen := draw(
            st.lists(st.sampled_from(scalars), unique=True) if scalars else st.just([])
        ):
            data["loosen"] = loosen
    return yaml.safe_dump(data, sort_keys=False)


def assert_never_looser(pack: str, merged: Policy) -> None:
    judged = Guard(merged, classifier=CLASSIFIER)
    for query in QUERIES:
        for access in ACCESSES:
            own = alone(pack).check(query, CHUNKS, access=access)
            try:
                both = judged.check(query, CHUNKS, access=access)
            except ContextBlocked:
                continue  # the request stops: nothing reaches the model
            if not own.query.allowed:
                assert not both.query.allowed, (query, access)
            if not both.allowed:
                continue
            again = recheck(pack).check(query, both.allowed, access=access)
            withheld = [(d.chunk.id, d.stage, d.reason) for d in again.decisions if not d.allowed]
            masked = [d.chunk.id for d in again.decisions if d.redactions]
            assert not withheld, (query, access, withheld)
            assert not masked, (query, access, masked)


@pytest.mark.parametrize("pack", PACKS)
@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(data=st.data())
def test_a_policy_beside_a_pack_never_lets_through_what_the_pack_withholds(
    pack: str, data: st.DataObject
) -> None:
    """For generated settings, in either order, the merge fails to load or is no looser than
    the pack alone."""
    try:
        trial = parse_policy(data.draw(trials(pack)), "trial.yaml")
    except PolicyError:
        return  # an extending trial that relaxes without saying so is refused on its own
    for refs in ((pack, trial), (trial, pack)):
        try:
            merged = load_policy(*refs)
        except PolicyError:
            continue  # refusing the merge is the other allowed outcome
        assert_never_looser(pack, merged)
