"""The stage registry: query, per-chunk and set stages come from the guards modules alone."""

from __future__ import annotations

import pickle
from typing import TYPE_CHECKING

import pytest

from rag_guard_integrations import Guard, parse_policy
from rag_guard_integrations.core.decisions import QueryDecision
from rag_guard_integrations.guards import registry
from rag_guard_integrations.guards.registry import (
    QueryInputs,
    QueryStage,
    builtin_query_stages,
    builtin_set_stages,
    builtin_stages,
    query_checks,
    set_check,
)
from rag_guard_integrations.policy.loader import load_policy

if TYPE_CHECKING:
    from collections.abc import Sequence

    from rag_guard_integrations.core.chunk import Chunk
    from rag_guard_integrations.policy.schema import Policy

pytestmark = pytest.mark.unit


class _Keyword:
    """A query stage that rejects any query naming ``word``."""

    def __init__(self, word: str) -> None:
        self.word = word

    def decide(self, query: str, chunks: Sequence[Chunk]) -> QueryDecision:
        if self.word in query:
            return QueryDecision(False, "keyword", f"the query names {self.word!r}", refusal="No.")
        return QueryDecision(True, "keyword", "no forbidden word")


def _keyword_stage(policy: Policy, inputs: QueryInputs) -> _Keyword:
    return _Keyword("forbidden")


def test_each_kind_lists_the_builtin_stages_of_the_guards_modules() -> None:
    """The three kinds hold the built-in stages, each declared by its own module."""
    assert [s.name for s in builtin_query_stages()] == ["domain"]
    assert [s.name for s in builtin_stages()] == ["non_text", "access", "clause", "recency", "hint"]
    assert [s.name for s in builtin_set_stages()] == ["combination"]


@pytest.mark.parametrize(
    ("text", "query_stages", "set_stage"),
    [
        ("version: 1\nname: rules\nrules: [{name: r, trigger: {all_present: [a, b]}}]\n", 0, True),
        ("version: 1\nname: gate\ndomain: {roots: [steel]}\n", 1, False),
        ("version: 1\nname: neither\nrecency: {max_age_days: 9}\n", 0, False),
    ],
)
def test_a_policy_builds_only_the_stages_its_sections_configure(
    text: str, query_stages: int, set_stage: bool
) -> None:
    """A section the policy leaves out builds no stage: no domain, no query check."""
    policy = parse_policy(text)
    assert len(query_checks(policy, QueryInputs())) == query_stages
    assert (set_check(policy) is not None) is set_stage


def test_a_new_query_stage_needs_no_engine_change(monkeypatch: pytest.MonkeyPatch) -> None:
    """A query stage added to the registry rejects queries through the unchanged engine."""
    extra = QueryStage("keyword", 20, _keyword_stage)
    monkeypatch.setattr(
        registry, "builtin_query_stages", lambda: (*builtin_query_stages.__wrapped__(), extra)
    )
    guard = Guard(parse_policy("version: 1\nname: gate\nrules: []\n"))
    chunks = [{"text": "Any chunk at all."}]
    rejected = guard.check("a forbidden question", chunks)
    assert (rejected.query.allowed, rejected.query.tier, rejected.refusal) == (
        False,
        "keyword",
        "No.",
    )
    assert rejected.allowed == []
    passed = guard.check("an ordinary question", chunks)
    assert passed.query.allowed
    assert len(passed.allowed) == 1


def test_the_first_query_stage_to_reject_decides(monkeypatch: pytest.MonkeyPatch) -> None:
    """After a domain gate that accepts, a later stage can still reject the query."""
    extra = QueryStage("keyword", 20, _keyword_stage)
    monkeypatch.setattr(
        registry, "builtin_query_stages", lambda: (*builtin_query_stages.__wrapped__(), extra)
    )
    guard = Guard(load_policy("bis"), identifiers=["IS 2062"])
    assert guard.check("What does IS 2062 cover?", []).query.tier == "identifier"
    assert guard.check("forbidden: what does IS 2062 cover?", []).query.allowed is False


def test_a_pickled_guard_keeps_the_collection_identifiers() -> None:
    """Identifiers given to the guard survive pickling (Ray workers receive guards pickled)."""
    guard = Guard(load_policy("bis"), identifiers=["IS 2062"])
    copy = pickle.loads(pickle.dumps(guard))
    query = "What does IS 2062 cover?"
    assert guard.check(query, []).query.tier == copy.check(query, []).query.tier == "identifier"
