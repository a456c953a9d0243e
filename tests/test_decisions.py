"""Per-chunk decisions built on first read: they read like the tuple they stand for, and
``allowed`` needs none of them."""

from __future__ import annotations

import logging

import pytest

from rag_guard_integrations import Chunk, Guard, parse_policy
from rag_guard_integrations.core.decisions import (
    ChunkDecision,
    ChunkDecisions,
    GuardResult,
    QueryDecision,
)

POLICY = """
version: 1
rules:
  - name: money_and_names
    trigger: {all_present: [financial, person]}
"""


def decisions() -> ChunkDecisions:
    chunks = [Chunk("a"), Chunk("b"), Chunk("c")]
    return ChunkDecisions(chunks, {1: ("hint", "no match")}, {0: frozenset({"x"})}, {}, "passed")


def test_lazy_decisions_read_like_a_tuple() -> None:
    """Indexing (also negative and sliced), iteration, length and equality match a tuple."""
    lazy = decisions()
    built = tuple(lazy)
    assert len(lazy) == 3
    assert lazy[-2] is lazy[1]
    assert lazy[1:] == built[1:]
    assert lazy == built
    assert (lazy[0].allowed, lazy[0].labels, lazy[1].stage, lazy[1].reason) == (
        True,
        frozenset({"x"}),
        "hint",
        "no match",
    )
    with pytest.raises(IndexError):
        lazy[3]


def test_allowed_needs_no_decision_object(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """With no audit listener, a caller that only takes ``allowed`` makes no ChunkDecision."""
    caplog.set_level(logging.WARNING, logger="rag_guard_integrations.audit")
    made: list[int] = []
    original = ChunkDecisions._decision

    def spy(self: ChunkDecisions, position: int) -> ChunkDecision:
        made.append(position)
        return original(self, position)

    monkeypatch.setattr(ChunkDecisions, "_decision", spy)
    chunks = [
        {"text": "Revenue was $4M.", "meta": {"classification": "financial"}},
        {"text": "Jane Doe", "meta": {"classification": "person"}},
        {"text": "Weather", "meta": {}},
    ]
    result = Guard(parse_policy(POLICY)).check("q", chunks)
    assert result.allowed_indices == (0, 2)  # the later of two tied carriers goes
    assert [c.text for c in result.allowed] == ["Revenue was $4M.", "Weather"]
    assert result.summary()["denied_by_stage"] == {"combination": 1}
    assert made == []


def test_a_result_built_from_a_tuple_reads_the_same() -> None:
    """GuardResult given decisions as a tuple answers as one given lazy decisions."""
    lazy = decisions()
    from_tuple = GuardResult(QueryDecision(), tuple(lazy))
    from_lazy = GuardResult(QueryDecision(), lazy)
    assert from_tuple.allowed == from_lazy.allowed
    assert from_tuple.allowed_indices == from_lazy.allowed_indices == (0, 2)
    assert from_tuple.summary() == from_lazy.summary()
