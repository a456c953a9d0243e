"""Nothing a chunk holds reaches a record: canaries planted in every metadata position (keys,
values nested at any depth, mapping keys, labels, hints, identifiers, dates), in the text, in
a custom check's exceptions and reasons and in a classifier's answers and errors never appear in
the audit record, the no-text record, the summary, the published log lines or the notices."""

from __future__ import annotations

import json
import logging
from contextlib import contextmanager
from functools import cache
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rag_guard_integrations import AccessContext, Chunk, ContextBlocked, Guard, parse_policy
from rag_guard_integrations.classify.base import Classification, Finding
from rag_guard_integrations.core.reasons import Reason
from rag_guard_integrations.engine.audit import span_attributes

if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping, Sequence

    from rag_guard_integrations import GuardResult
    from rag_guard_integrations.core.stage import Request
    from rag_guard_integrations.policy.schema import LabelSpec

POLICY = r"""
version: 1
name: composite
access:
  attributes: [tenant, groups]
  match: {groups: any}
clauses:
  PAYMENT_TERMS:
    intents: ['\bpayment terms?\b']
    fingerprint: '\bwithin \d+ days\b'
on_no_intent: access_only
domain:
  blocklist: [bitcoin]
  identifier_pattern: '\b(is\s*\d{3,5})\b'
  identifier_keys: [standard]
  min_similarity: 0.3
  retriever_scores: cosine
recency: {field: updated_at, max_age_days: 36500}
linking: {keys: [account_id, entity]}
classifiers: {builtin: {email: contact_details, money: financial}}
labels: {financial: {}, entity_identifier: {}, contact_details: {}, person: {}}
on_unknown_label: UNKNOWN
on_block: ON_BLOCK
mode: MODE
rules:
  - name: money_and_client
    trigger: {all_present: [financial, entity_identifier]}
  - name: money_linked_to_person
    trigger: {all_present: [financial, person], scope: linked}
  - name: mask_contacts
    action: redact
    trigger: {all_present: [contact_details]}
  - name: people_noted
    action: warn
    trigger: {all_present: [person]}
"""
QUERIES = (
    "What are the payment terms under IS 2062?",
    "What are the payment terms?",
    "price of bitcoin",
    "opening hours",
)
TEXTS = (
    "Invoices are payable within 30 days of receipt. {canary}",
    "Client {canary}: Acme Holdings Ltd, revenue $4.2M this quarter.",
    "Write to {canary}@example.com for the statement of $900.",
    "{canary}",
    "label fail {canary} within 5 days",
    "label raise {canary}",
)
ACCESS = (
    None,
    AccessContext("ann", tenant={"t"}, groups={"hr"}),
    AccessContext("bob", tenant={"other"}, groups={"it"}),
)


class Probe:
    """A custom check that fails in the ways user code does, quoting what the chunk holds."""

    name = "probe"

    def __call__(self, chunk: Chunk, request: Request) -> str | None:
        action, value = chunk.metadata.get("probe_action"), chunk.metadata.get("probe")
        if action == "raise":
            raise ValueError(f"cannot read {value!r}")
        if action == "int":
            int(str(value))  # ValueError: invalid literal for int() ... '48x193'
        if action == "say":
            return f"saw {value}"
        if action == "reason":
            return Reason(f"saw {value}", "saw a probe value")
        return None


class Echo:
    """A classifier that answers with the chunk's own words: labels outside the vocabulary,
    findings named after them, errors and exceptions quoting the text."""

    def classify(self, text: str) -> Classification:
        return self.classify_many([text])[0]

    def classify_many(self, texts: Sequence[str]) -> list[Classification]:
        if any("raise" in text for text in texts):
            raise ValueError(f"cannot label {texts!r}")
        out = []
        for text in texts:
            words = frozenset(text.split()[-1:])
            if "fail" in text:
                out.append(Classification.failed(f"unparseable answer for {text!r}"))
            else:  # a maskable span, its recogniser named after the text's last word
                named = next(iter(words), "echo")
                findings = (Finding(named, "contact_details", 0, min(4, len(text))),)
                labels = words | {"financial", "contact_details"}
                out.append(Classification(labels, findings, dropped=words))
        return out

    async def aclassify_many(self, texts: Sequence[str]) -> list[Classification]:
        return self.classify_many(texts)

    def bind(self, vocabulary: Mapping[str, LabelSpec]) -> Echo:
        return self


@cache
def guard(unknown: str, on_block: str, mode: str) -> Guard:
    text = POLICY.replace("UNKNOWN", unknown).replace("ON_BLOCK", on_block)
    policy = parse_policy(text.replace("MODE", mode))
    return Guard(policy, classifier=Echo(), checks=[Probe()])


canaries = st.builds(lambda a, b: f"q{a}x{b}", st.integers(10, 99), st.integers(100, 999))


def nested(canary: str) -> st.SearchStrategy[Any]:
    """The canary somewhere in a value: bare, in lists and mappings (as a value or a key),
    nested up to ten levels deep."""
    leaves = st.sampled_from([canary, "t", "hr", "acc-1", 77, None])
    tree = st.recursive(
        leaves,
        lambda inner: st.one_of(
            st.lists(inner, max_size=3),
            st.dictionaries(st.sampled_from([canary, "k"]), inner, max_size=2),
        ),
        max_leaves=8,
    )

    def bury(value: Any, depth: int, as_key: bool) -> Any:
        for _ in range(depth):
            value = {canary: value} if as_key else [value]
        return value

    deep = st.builds(bury, tree, st.integers(0, 10), st.booleans())
    return st.one_of(tree, deep)


def values(key: str, canary: str) -> st.SearchStrategy[Any]:
    """Values a key can hold: ordinary ones that pass, the canary in the forms that reach each
    branch of that key's stage, and any nesting of it."""
    forms: dict[str, list[Any]] = {
        "tenant": ["t", canary, [canary], ["t", canary]],
        "groups": ["hr", [canary, "it"], {canary: "hr"}],
        "clause_id": ["PAYMENT_TERMS", canary, [canary]],
        "account_id": ["acc-1", canary, [canary, "acc-1"], {canary: 1}],
        "entity": ["acme", canary, [[canary]]],
        "updated_at": ["2026-11-20", canary, f"2999-01-01T00:00:00 {canary}", "2999-01-01"],
        "classification": [canary, "financial", f"financial, {canary}", 42, {canary: 1}],
        "classifications": [[canary], ["person", canary], [[canary]], [canary, 7]],
        "standard": [f"IS 2062 {canary}", canary, [f"is:2062/{canary}"]],
        "x_regex_hint": [canary, f"({canary}", canary * 120, [canary], "days", "within"],
        "probe": [canary, f"{canary} 48x193"],
        "probe_action": ["raise", "int", "say", "reason", "pass"],
    }
    return st.one_of(st.sampled_from(forms[key]), nested(canary))


@st.composite
def planted(draw: st.DrawFn, canary: str) -> Chunk:
    """A chunk with the canary planted in its text and in any of its metadata positions."""
    keys = draw(st.lists(st.sampled_from(KEYS), unique=True, max_size=len(KEYS)))
    meta: dict[Any, Any] = {key: draw(values(key, canary)) for key in keys}
    if draw(st.booleans()):
        meta[canary] = draw(nested(canary))  # the canary as a key of its own
    if draw(st.booleans()):
        meta[f"{canary}_regex_hint"] = draw(st.sampled_from([canary, "within", "(" + canary]))
    text = draw(st.sampled_from(TEXTS)).format(canary=canary)
    return Chunk(text, meta, score=0.9, id=draw(st.sampled_from([None, "c-1"])))


KEYS = (
    "tenant",
    "groups",
    "clause_id",
    "account_id",
    "entity",
    "updated_at",
    "classification",
    "classifications",
    "standard",
    "x_regex_hint",
    "probe",
    "probe_action",
)


@st.composite
def requests(draw: st.DrawFn) -> tuple[str, list[Chunk], Guard, str, AccessContext | None]:
    canary = draw(canaries)
    chunks = draw(st.lists(planted(canary), max_size=4))
    settings_drawn = (
        draw(st.sampled_from(["report", "block"])),
        draw(st.sampled_from(["drop_chunks", "empty", "raise"])),
        draw(st.sampled_from(["enforce", "shadow"])),
    )
    return (
        canary,
        chunks,
        guard(*settings_drawn),
        draw(st.sampled_from(QUERIES)),
        draw(st.sampled_from(ACCESS)),
    )


class Published(logging.Handler):
    """Every log record the package writes while it is attached (audit lines, notices)."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


@contextmanager
def published() -> Iterator[Published]:
    """Collect what the package logs inside the block."""
    handler = Published()
    logger = logging.getLogger("rag_guard_integrations")
    level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        yield handler
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)


def records(result: GuardResult) -> dict[str, Any]:
    """Every record of a result, by name."""
    audit = result.audit()
    return {
        "audit": audit,
        "audit with the query": result.audit(include_query=True),
        "no-text record": result.to_dict(include_text=False),
        "summary": result.summary(),
        "notices": list(result.notices),
        "span": {
            k: list(v) if isinstance(v, tuple) else v for k, v in span_attributes(audit).items()
        },
    }


@settings(max_examples=200, deadline=None)
@given(request=requests())
def test_no_planted_canary_reaches_any_record(
    request: tuple[str, list[Chunk], Guard, str, AccessContext | None],
) -> None:
    """Whatever position of a chunk holds the canary, and whichever stage judges it, no record
    holds it: audit, no-text record, summary, notices, span attributes and every log line."""
    canary, chunks, chosen, query, access = request
    with published() as log:
        try:
            result = chosen.check(query, chunks, access=access)
            raised = ""
        except ContextBlocked as blocked:
            result, raised = blocked.result, str(blocked)
    assert len(result.decisions) == len(chunks)
    forms = {**records(result), "error": raised, "log lines": log.lines}
    for name, form in forms.items():
        dumped = json.dumps(form, ensure_ascii=False, default=str).casefold()
        assert canary.casefold() not in dumped, name


@pytest.mark.parametrize(
    ("meta", "stage"),
    [
        ({"tenant": "t", "groups": "hr", "classification": "q48x193"}, "passed"),
        ({"tenant": [[[[["q48x193"]]]]], "groups": "hr"}, "access"),
        ({"tenant": {"q48x193": "t"}, "groups": "hr"}, "access"),
        ({"tenant": "t", "groups": "hr", "probe_action": "int", "probe": "q48x193"}, "probe"),
    ],
    ids=["unknown_label", "nested_deeper_than_four", "mapping_key", "short_token_exception"],
)
def test_values_scrubbing_would_miss_stay_out(meta: dict[str, Any], stage: str) -> None:
    """Shapes that reach records unless they are built from templates: an unknown
    classification string as a label, an access value nested deeper than four levels or used
    as a mapping key, and an exception quoting a short token (``int('48x193')``). No record
    holds the value."""
    chunk = Chunk("Offices open at nine.", {"updated_at": "2026-11-20", **meta}, score=0.9)
    result = guard("report", "drop_chunks", "enforce").check(
        "opening hours", [chunk], access=ACCESS[1]
    )
    (decision,) = result.decisions
    assert decision.stage == stage
    if stage == "passed":  # the caller still sees the label, as unknown
        assert result.unknown_labels[0] == {"q48x193"}
    if stage == "probe":  # and the exception's message
        assert "48x193" in decision.reason
    for name, form in records(result).items():
        assert "48x193" not in json.dumps(form, ensure_ascii=False), name
