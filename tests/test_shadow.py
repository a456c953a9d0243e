"""Tests for ``mode: shadow``: everything evaluated and recorded, only the rest enforced."""

from __future__ import annotations

import json
import logging

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rag_guard_integrations import Chunk, ContextBlocked, Guard, load_policy, parse_policy
from rag_guard_integrations.data import load_corpus

SHADOW_DEFAULT = (
    "version: 1\nname: default-shadow\nextends: [default]\nloosen: [mode]\nmode: shadow\n"
)
RULES = """
version: 1
name: rules
labels: {financial: {}, entity_identifier: {}, compensation: {}, employee_identity: {}}
on_block: raise
rules:
  - name: money_and_client
    trigger: {all_present: [financial, entity_identifier]}
    mode: shadow
  - name: pay_and_person
    trigger: {all_present: [compensation, employee_identity]}
"""
PAY = Chunk("Salary for the role: $120,000 a year.", {"classification": "financial"}, id="pay")
WHO = Chunk("Client: Acme Holdings Ltd.", {"classification": "entity_identifier"}, id="who")
PLAIN = Chunk("Offices open at nine.", id="plain")
QUERY = "What is the termination notice period?"
ENFORCING = Guard.from_policy("default")
SHADOWED = Guard(parse_policy(SHADOW_DEFAULT))


def verdicts(record: dict[str, object]) -> list[tuple[object, ...]]:
    chunks = record["chunks"]
    assert isinstance(chunks, list)
    keys = ("index", "id", "content_hmac", "decision", "stage", "rule", "reason", "labels")
    return [tuple(json.dumps(c[k]) for k in keys) for c in chunks]


def test_shadow_policy_audit_equals_the_enforcing_run_while_nothing_is_withheld() -> None:
    """A shadow run records the enforcing run's decisions, marked unenforced, and withholds none."""
    enforcing = Guard.from_policy("default")
    shadow = Guard(parse_policy(SHADOW_DEFAULT))
    chunks = [PAY, WHO, PLAIN, Chunk("Reach me at ann@example.com", id="mail")]
    applied = enforcing.check("who pays whom?", chunks)
    recorded = shadow.check("who pays whom?", chunks)
    assert len(applied.allowed) < len(chunks)
    assert recorded.allowed == chunks
    assert recorded.is_safe
    assert recorded.refusal is None
    audit, reference = recorded.audit(), applied.audit()
    assert verdicts(audit) == verdicts(reference)
    assert audit["mode"] == "shadow"
    assert [c["enforced"] for c in audit["chunks"]] == [
        c["decision"] == "allow" for c in reference["chunks"]
    ]
    assert [(r["rule"], r["action"]) for r in audit["rules"]] == [
        (r["rule"], r["action"]) for r in reference["rules"]
    ]
    assert not any(r["enforced"] for r in audit["rules"])


def test_shadow_policy_on_the_contract_corpus_matches_enforcement() -> None:
    """Access, clause and hint denials of the contracts pack are recorded, not applied."""
    corpus = load_corpus("contracts")
    enforcing = Guard.from_policy("contracts")
    shadow = Guard(load_policy("contracts").model_copy(update={"mode": "shadow"}))
    access = {"contract_type": ["MSA"]}
    applied = enforcing.check(QUERY, corpus, access=access)
    recorded = shadow.check(QUERY, corpus, access=access)
    assert len(applied.allowed) < len(corpus)
    assert recorded.allowed == corpus
    assert verdicts(recorded.audit()) == verdicts(applied.audit())
    assert shadow.prefilter(QUERY, access) == {}


def test_shadow_policy_does_not_reject_the_query() -> None:
    """A query the domain guard rejects is answered in shadow mode; the audit says it failed."""
    bis = load_policy("bis")
    shadow = Guard(bis.model_copy(update={"mode": "shadow"}))
    chunks = [Chunk("IS 2062: hot rolled structural steel", {"standard": "2062"})]
    result = shadow.check("price of bitcoin", chunks)
    assert result.query.allowed
    assert result.refusal is None
    assert result.allowed == chunks
    record = result.audit()
    assert record["query"]["allowed"] is False
    assert [(c["decision"], c["stage"], c["enforced"]) for c in record["chunks"]] == [
        ("deny", "domain", False)
    ]


def test_shadow_rule_is_recorded_and_the_enforced_rule_still_applies() -> None:
    """Only the rule in shadow mode lets its chunks through; the other rule still blocks."""
    guard = Guard(parse_policy(RULES))
    result = guard.check("q", [PAY, WHO, PLAIN])
    assert result.allowed == [PAY, WHO, PLAIN]
    assert result.violations == ()
    record = result.audit()
    assert [(c["id"], c["decision"], c["enforced"]) for c in record["chunks"]] == [
        ("pay", "allow", True),
        ("who", "deny", False),
        ("plain", "allow", True),
    ]
    assert record["chunks"][1]["rule"] == "money_and_client"
    assert record["rules"] == [
        {"rule": "money_and_client", "action": "block", "enforced": False, "chunks": [0, 1]}
    ]
    salary = Chunk("Pay band 4", {"classification": "compensation"})
    person = Chunk("Jane Roe", {"classification": "employee_identity"})
    with pytest.raises(Exception, match="pay_and_person"):
        guard.check("q", [salary, person])


async def test_async_shadow_equals_sync() -> None:
    """acheck applies shadow mode as check does."""
    guard = Guard(parse_policy(SHADOW_DEFAULT))
    sync = guard.check("q", [PAY, WHO])
    other = await guard.acheck("q", [PAY, WHO])
    assert other.allowed == sync.allowed == [PAY, WHO]
    assert verdicts(other.audit()) == verdicts(sync.audit())


def test_shadow_check_logs_one_audit_record(caplog: pytest.LogCaptureFixture) -> None:
    """One check in shadow mode writes one audit line, not one per evaluation."""
    guard = Guard(parse_policy(RULES))
    with caplog.at_level(logging.INFO, logger="rag_guard_integrations.audit"):
        guard.check("q", [PAY, WHO])
    lines = [r for r in caplog.records if r.name == "rag_guard_integrations.audit"]
    assert len(lines) == 1
    assert json.loads(lines[0].getMessage())["chunks"][1]["enforced"] is False


LABELS = ["financial", "entity_identifier", "compensation", "employee_identity", "public"]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(st.sampled_from(LABELS), max_size=2), max_size=6))
def test_shadow_audit_equals_enforcement_for_any_retrieved_set(labels: list[list[str]]) -> None:
    """For any labelled set, shadow mode records what enforcement decides, and allows all."""
    chunks = [Chunk(f"chunk {i}", {"classifications": ls}) for i, ls in enumerate(labels)]
    applied = ENFORCING.check("q", chunks)
    recorded = SHADOWED.check("q", chunks)
    assert recorded.allowed == chunks
    assert verdicts(recorded.audit()) == verdicts(applied.audit())


@pytest.mark.parametrize(
    ("pack", "query"),
    [("bis", "price of bitcoin"), ("contracts", "opening hours")],
    ids=["query_rejected", "no_clause_asked"],
)
def test_shadow_policy_gives_no_refusal_for_an_empty_retrieval(pack: str, query: str) -> None:
    """An empty retrieval under a shadow policy is answered, with the query allowed, where the
    enforcing policy refuses (a rejected query, a query for no known clause); the audit says
    the whole policy would have refused."""
    enforcing = Guard.from_policy(pack)
    shadow = Guard(load_policy(pack).model_copy(update={"mode": "shadow"}))
    assert enforcing.check(query, []).refusal is not None
    result = shadow.check(query, [])
    assert (result.refusal, result.query.allowed, result.allowed) == (None, True, [])
    record = result.audit()
    assert (record["refused"], record["refused_shadow"]) == (False, True)


BRANCHES = {
    "access_and_clause": "version: 1\nextends: [contracts]\n",
    "domain": (
        "version: 1\nextends: [bis]\nloosen: [domain.retriever_scores]\n"
        "domain: {retriever_scores: cosine}\n"
    ),
    "raise": "version: 1\nextends: [default]\non_block: raise\n",
    "empty": "version: 1\nextends: [default]\non_block: empty\n",
    "redact": (
        "version: 1\nclassifiers: {builtin: {email: contact_details}}\n"
        "rules:\n  - name: mask\n    action: redact\n"
        "    trigger: {all_present: [contact_details]}\n"
    ),
}
# Scored, so that the domain guard takes the retriever's similarity and needs no embedder.
BRANCH_CHUNKS = [
    Chunk(c.text, c.metadata, 0.9, c.id)
    for c in [
        PAY,
        WHO,
        PLAIN,
        Chunk("Reach me at ann@example.com", id="mail"),
        Chunk("IS 2062: hot rolled structural steel", {"standard": "IS 2062"}, id="steel"),
        *load_corpus("contracts")[:6],
    ]
]
BRANCH_QUERIES = [QUERY, "price of bitcoin", "who pays whom?", "IS 2062 steel grades"]


def both(policy: str) -> tuple[Guard, Guard]:
    parsed = parse_policy(policy)
    return Guard(parsed), Guard(parsed.model_copy(update={"mode": "shadow"}))


GUARDS = {name: both(text) for name, text in BRANCHES.items()}


@settings(max_examples=80, deadline=None)
@given(
    branch=st.sampled_from(sorted(BRANCHES)),
    picked=st.lists(st.sampled_from(range(len(BRANCH_CHUNKS))), max_size=5),
    query=st.sampled_from(BRANCH_QUERIES),
    access=st.sampled_from([None, {"contract_type": ["MSA"]}]),
)
def test_shadow_changes_nothing_in_any_branch(
    branch: str, picked: list[int], query: str, access: dict[str, list[str]] | None
) -> None:
    """Query rejected, empty retrieval, on_block raise or empty, redaction: a shadow policy
    hands every chunk on unchanged, refuses nothing, raises nothing, and its audit records what
    the enforcing policy decided."""
    enforcing, shadow = GUARDS[branch]
    chunks = [BRANCH_CHUNKS[i] for i in picked]
    try:
        applied = enforcing.check(query, chunks, access=access)
    except ContextBlocked as blocked:
        applied = blocked.result
    recorded = shadow.check(query, chunks, access=access)
    assert recorded.allowed == chunks
    assert [c.text for c in recorded.allowed] == [c.text for c in chunks]
    assert recorded.redacted == {}
    assert (recorded.refusal, recorded.query.allowed, recorded.is_safe) == (None, True, True)
    audit, reference = recorded.audit(), applied.audit()
    assert verdicts(audit) == verdicts(reference)
    assert audit["query"]["allowed"] == reference["query"]["allowed"]
    assert audit["refused_shadow"] == (applied.refusal is not None)


LINKED_RULE_IN_SHADOW = """
version: 1
extends: [default]
loosen: [rules.default_review_employee_linked]
overrides: {rules: {default_review_employee_linked: {mode: shadow}}}
"""


def test_a_linked_rule_in_shadow_mode_denies_no_chunk_for_its_unreadable_links() -> None:
    """A chunk whose linking value cannot be read is denied only where a rule that links
    chunks is enforced: with the one linked rule in shadow mode it passes, and the shadow
    evaluation records the denial."""
    odd = {"text": "The canteen opens at nine.", "metadata": {"entity": {"nested": "x"}}}
    enforced = Guard.from_policy("default").check("q", [odd])
    assert [d.stage for d in enforced.denied] == ["linking"]
    result = Guard(parse_policy(LINKED_RULE_IN_SHADOW)).check("q", [odd])
    assert len(result.allowed) == 1
    assert result.shadow is not None
    assert [d.stage for d in result.shadow.denied] == ["linking"]
