"""Chunks coerced from plain dicts (the fast path) are the same frozen chunks ``from_any``
builds, each built only when asked for, and every other shape still goes through its checks."""

from __future__ import annotations

import dataclasses
import gc

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rag_guard_integrations import AccessContext, Chunk, Guard
from rag_guard_integrations.core.chunk_list import coerce_chunks
from rag_guard_integrations.core.errors import ChunkError
from rag_guard_integrations.guards.non_text import NonTextChunk

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


def test_a_check_builds_no_chunk_for_dicts_it_withholds() -> None:
    """Stages read the dicts' metadata and text as columns: a check that withholds every one
    of 1,000 dict chunks leaves no Chunk object behind, and the allowed ones are built once."""
    guard = Guard.from_policy("contracts")
    access = AccessContext(contract_type=["MSA"])
    withheld = [
        {"text": f"The SOW may end on {i} days' notice.", "meta": {"contract_type": "SOW"}}
        for i in range(1000)
    ]
    before = _live_chunks()
    result = guard.check("What is the termination notice period?", withheld, access=access)
    assert result.allowed == []
    assert len(result.decisions) == 1000
    assert _live_chunks() == before
    allowed = {"contract_type": "MSA", "clause_id": "TERMINATION_NOTICE"}
    kept = guard.check(
        "What is the termination notice period?",
        [{"text": "Either party may terminate on thirty (30) days' notice.", "meta": allowed}],
        access=access,
    )
    assert kept.allowed[0] is kept.allowed[0] is kept.decisions[0].chunk
    assert kept.allowed[0].metadata is allowed


def test_picked_chunks_are_the_chunks_of_the_whole_list() -> None:
    """A list picked from the coerced one shares its columns' values and its Chunk objects, so
    a stage and the result see the same chunk, and a score is read without building one."""
    items = [
        {"text": "a", "meta": {"k": 1}},
        {"text": "b", "meta": {"k": 2}, "score": 0.5, "id": "b"},
        {"text": "c", "meta": {"k": 3}},
    ]
    chunks = coerce_chunks(items)
    picked = chunks.pick([1, 2]).pick([1])
    assert picked.texts == ["c"]
    assert picked.metadata[0] is items[2]["meta"]
    assert picked[0] is chunks[2]
    assert chunks[2] is chunks[2]
    assert chunks.pick([0, 1]).score_at(1) == 0.5
    assert chunks.score_at(0) is None
    assert [chunk.text for chunk in chunks] == ["a", "b", "c"]
    assert [chunk.text for chunk in chunks[1:]] == ["b", "c"]


def test_a_non_text_chunk_among_dicts_is_still_denied() -> None:
    """The non-text stage skips its type scan only when every chunk is a plain one."""
    guard = Guard.from_policy("default")
    items = [{"text": "plain", "meta": {}}, NonTextChunk("caption", {}, kinds=("image",))]
    result = guard.check("q", items)
    assert [d.allowed for d in result.decisions] == [True, False]
    assert result.decisions[1].stage == "non_text"


def _live_chunks() -> int:
    gc.collect()
    return sum(isinstance(item, Chunk) for item in gc.get_objects())


FIELD = st.sampled_from(["text", "meta", "metadata", "page_content", "score", "id", "source"])
VALUE = st.one_of(
    st.none(),
    st.text(max_size=3),
    st.integers(),
    st.floats(allow_nan=False),
    st.booleans(),
    st.binary(max_size=2),
    st.dictionaries(st.text(max_size=2), st.integers(), max_size=2),
    st.lists(st.integers(), max_size=2),
)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.dictionaries(FIELD, VALUE, max_size=5), max_size=6))
def test_coercion_reads_every_dict_as_from_any_does(items: list[dict[str, object]]) -> None:
    """Whatever fields and types a list of dicts holds, coercion fails where Chunk.from_any
    fails (with its message) and otherwise gives the same fields, column by column."""
    try:
        expected = [Chunk.from_any(item, position=i) for i, item in enumerate(items)]
    except ChunkError as error:
        message = str(error)
    else:
        message = None
    if message is not None:
        with pytest.raises(ChunkError) as raised:
            coerce_chunks(items)
        assert str(raised.value) == message
        return
    chunks = coerce_chunks(items)
    assert [dataclasses.astuple(c) for c in chunks] == [dataclasses.astuple(c) for c in expected]
    assert chunks.texts == [c.text for c in expected]
    assert chunks.metadata == [c.metadata for c in expected]
