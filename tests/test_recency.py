"""The recency stage: one module plus its policy section, run through the stage registry."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone

import pytest

from rag_guard_integrations import Chunk, Guard, PolicyError, parse_policy
from rag_guard_integrations.guards.recency import RecencyGuard
from rag_guard_integrations.policy.lint import lint_text

pytestmark = pytest.mark.unit

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=timezone.utc)
POLICY = "version: 1\nrecency: {field: updated_at, max_age_days: 30}\n"


def fixed_clock() -> datetime:
    """The injected time source: always ``NOW``."""
    return NOW


@pytest.mark.parametrize(
    ("value", "allowed"),
    [
        ("2026-11-20", True),
        ("2026-11-01T12:00:00", True),  # exactly 30 days
        ("2026-10-31", False),
        ("2026-11-20T08:00:00+05:30", True),
        ("2026-11-20T08:00:00Z", True),
        (datetime(2026, 11, 30, tzinfo=timezone.utc), True),
        (datetime(2025, 11, 30), False),  # naive counts as UTC
        (date(2026, 11, 25), True),
        (NOW.timestamp() - 86_400, True),
        (int(NOW.timestamp()) - 90 * 86_400, False),
        (None, False),
        ("last tuesday", False),
        (True, False),
        (["2026-11-20"], False),
        (1e300, False),
        ("2026-12-02T06:00:00Z", True),  # ahead of the clock, within a day's skew
        ("2026-12-03", False),  # further ahead: it would never grow old
        ("2999-01-01", False),
    ],
)
def test_recent_dates_pass_and_old_or_undated_are_denied(value: object, allowed: bool) -> None:
    """Dates within max_age_days pass; older, missing and unreadable ones are denied."""
    guard = RecencyGuard("updated_at", 30, clock=fixed_clock)
    metadata = {} if value is None else {"updated_at": value}
    reason = guard(Chunk("text", metadata), None)
    assert (reason is None) is allowed


def test_denial_names_the_field_the_age_and_the_limit() -> None:
    """The reason says which field, how old and what the limit is; undated says undated."""
    guard = RecencyGuard("published", 7, clock=fixed_clock)
    old = guard(Chunk("t", {"published": "2026-11-01"}), None)
    assert old == "published 2026-11-01 is 30 days old, over the 7 allowed"
    missing = guard(Chunk("t"), None)
    assert missing == "the chunk carries no published date (undated is denied)"
    ahead = guard(Chunk("t", {"published": "2999-01-01"}), None)
    assert ahead == "published 2999-01-01 is in the future (denied)"
    bad = guard(Chunk("t", {"published": "soon"}), None)
    assert bad == "the chunk carries no published date ('soon' is not a date) (undated is denied)"


def test_policy_section_adds_the_stage_to_the_guard() -> None:
    """A ``recency:`` section alone makes the guard deny stale chunks, recorded as stage recency."""
    fresh = (datetime.now(timezone.utc) - timedelta(days=2)).isoformat()
    stale = (datetime.now(timezone.utc) - timedelta(days=400)).date().isoformat()
    guard = Guard(parse_policy(POLICY))
    assert [check.name for check in guard.checks] == ["non_text", "recency", "hint"]
    result = guard.check("q", [{"text": "a", "meta": {"updated_at": fresh}},
                               {"text": "b", "meta": {"updated_at": stale}},
                               {"text": "c"}])  # fmt: skip
    assert [d.allowed for d in result.decisions] == [True, False, False]
    assert {d.stage for d in result.denied} == {"recency"}
    assert "recency, hint" in result.decisions[0].reason


def test_section_defaults_the_field_and_refuses_bad_ages() -> None:
    """``field`` defaults to updated_at; a missing or non-positive max_age_days is a PolicyError."""
    assert parse_policy("recency: {max_age_days: 5}\n").recency.field == "updated_at"  # type: ignore[union-attr]
    for bad in ("recency: {max_age_days: 0}\n", "recency: {field: x}\n", "recency: {age: 3}\n"):
        with pytest.raises(PolicyError, match="recency"):
            parse_policy(bad)


def test_lint_counts_recency_as_a_check() -> None:
    """A policy whose only section is recency checks something, so lint finds no problem."""
    policy, problems = lint_text(POLICY)
    assert policy is not None
    assert problems == []
    _, empty = lint_text("version: 1\n")
    assert any("checks nothing" in p and "recency" in p for p in empty)


def test_recency_joins_the_other_stages_in_order() -> None:
    """With access, clauses and recency, the checks run non_text, access, clause, recency, hint."""
    policy = parse_policy(
        "access: {attributes: [contract_type]}\n"
        "clauses: {RENEWAL: {intents: ['renew']}}\n"
        "recency: {max_age_days: 10}\n"
    )
    names = [c.name for c in Guard(policy).checks]
    assert names == ["non_text", "access", "clause", "recency", "hint"]


class _Region:
    """A caller-supplied check: only EU chunks."""

    name = "region"

    def __call__(self, chunk: Chunk, request: object) -> str | None:
        return None if chunk.metadata.get("region") == "EU" else "not an EU chunk"


class _Broken:
    """A check that raises."""

    name = "broken"

    def __call__(self, chunk: Chunk, request: object) -> str | None:
        raise RuntimeError("boom")


def test_extra_checks_run_after_the_policy_stages() -> None:
    """``checks=`` adds stages after the policy's; their denials carry their name."""
    guard = Guard(
        parse_policy(POLICY), checks=[RecencyGuard("updated_at", 30, fixed_clock), _Region()]
    )
    assert [c.name for c in guard.checks] == ["non_text", "recency", "hint", "recency", "region"]
    guard = Guard.from_policy("default", checks=[_Region()])
    result = guard.check("q", [{"text": "a", "meta": {"region": "EU"}}, {"text": "b"}])
    assert [(d.allowed, d.stage) for d in result.decisions] == [(True, "passed"), (False, "region")]


def test_an_extra_check_that_raises_denies_the_chunk() -> None:
    """A failing caller-supplied check blocks the chunk and says why (fail closed)."""
    result = Guard.from_policy("default", checks=[_Broken()]).check("q", [{"text": "a"}])
    (decision,) = result.decisions
    assert not decision.allowed
    assert decision.stage == "broken"
    assert "RuntimeError: boom" in decision.reason


def test_every_from_policy_takes_a_policy_or_a_reference() -> None:
    """``from_policy`` means one thing everywhere: a Policy, a built-in name or a path."""
    from rag_guard_integrations import load_policy
    from rag_guard_integrations.classify import PatternClassifier
    from rag_guard_integrations.guards.clause import ClauseGuard

    policy = load_policy("contracts")
    assert load_policy(policy) is policy
    for build in (Guard.from_policy, ClauseGuard.from_policy, PatternClassifier.from_policy):
        assert type(build(policy)) is type(build("contracts"))
    merged = load_policy(policy, "default")
    assert set(merged.clauses) == set(policy.clauses)
    assert len(merged.rules) == len(load_policy("contracts", "default").rules)
    inline = load_policy(parse_policy(POLICY), "default")
    assert inline.recency is not None
    assert inline.recency.max_age_days == 30
    assert inline.rules
