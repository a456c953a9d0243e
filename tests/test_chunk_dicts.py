"""Chunks coerced from plain dicts (the fast path) are the same frozen chunks ``from_any``
builds, and every other shape still goes through its checks."""

from __future__ import annotations

import dataclasses

import pytest

from rag_guard_integrations import Chunk
from rag_guard_integrations.core.chunk import coerce_chunks
from rag_guard_integrations.core.errors import ChunkError

pytestmark = pytest.mark.unit

ITEMS = [
    {"text": "a", "meta": {"k": 1}, "score": 0.5, "id": "x"},
    {"text": "b", "metadata": {"k": 2}},
    {"text": "c"},
    {"text": "d", "score": 3, "id": 7},  # an int score and id take the checked path
]


@pytest.mark.parametrize("item", ITEMS)
def test_dict_chunks_match_from_any_and_are_frozen(item: dict[str, object]) -> None:
    """Same fields as Chunk.from_any; assigning a field raises like any frozen Chunk."""
    [chunk] = coerce_chunks([item])
    expected = Chunk.from_any(item)
    assert type(chunk) is Chunk
    assert dataclasses.astuple(chunk) == dataclasses.astuple(expected)
    with pytest.raises(dataclasses.FrozenInstanceError):
        chunk.text = "changed"  # type: ignore[misc]


def test_bad_dicts_still_fail_with_their_message() -> None:
    """A dict the fast path does not take is explained by the full check."""
    with pytest.raises(ChunkError, match="chunk 1 text is a bytes"):
        coerce_chunks([{"text": "ok"}, {"text": b"raw"}])
