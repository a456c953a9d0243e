"""Tests for ``mode: shadow``: everything evaluated and recorded, only the rest enforced."""

from __future__ import annotations

import json
import logging

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rag_guard_integrations import Chunk, Guard, load_policy, parse_policy
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
    keys = ("index", "id", "content_sha256", "decision", "stage", "rule", "reason", "labels")
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
