"""Tests that every LlamaIndex entry point validates its inputs by the same rules: ``guard=`` as a
Guard or policy references, and a retriever (or index) where one belongs, with one-line errors
naming the fix."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
from llama_index_support import QUERY, contracts_index

from rag_guard_integrations import Guard
from rag_guard_integrations.core.errors import AdapterConfigError, ArgumentError
from rag_guard_integrations.llama_index import (
    GuardedQueryEngine,
    GuardedRetriever,
    GuardPostprocessor,
    guarded_chat_engine,
    guarded_query_engine,
)
from rag_guard_integrations.llama_index.testing import RecordingLLM

if TYPE_CHECKING:
    from collections.abc import Callable

    from llama_index.core import VectorStoreIndex

    from rag_guard_integrations.embeddings import MiniLMEmbedder

MSA = {"contract_type": ["MSA"]}


@pytest.fixture(scope="module")
def index(embedder: MiniLMEmbedder) -> VectorStoreIndex:
    return contracts_index(embedder)


def guarded(index: VectorStoreIndex, guard: Any) -> dict[str, Callable[[], Any]]:
    """Each entry point that takes ``guard=``, built over the contracts index."""
    llm = RecordingLLM()
    return {
        "GuardedRetriever": lambda: GuardedRetriever(index.as_retriever(), guard, MSA),
        "GuardPostprocessor": lambda: GuardPostprocessor(guard=guard, access=MSA),
        "guarded_query_engine": lambda: guarded_query_engine(index, guard, MSA, llm=llm),
        "guarded_chat_engine": lambda: guarded_chat_engine(index, guard, llm=llm, access=MSA),
    }


# How to read the guard each entry point ended up with.
GUARD_OF: dict[str, Callable[[Any], Guard]] = {
    "GuardedRetriever": lambda built: built.guard,
    "GuardPostprocessor": lambda built: built.guard,
    "guarded_query_engine": lambda built: built._guarded.guard,
    "guarded_chat_engine": lambda built: built._retriever.guard,
}
ENTRY_POINTS = sorted(GUARD_OF)


@pytest.mark.parametrize("entry", ENTRY_POINTS)
def test_a_policy_name_as_guard_builds_that_policy_everywhere(
    index: VectorStoreIndex, entry: str
) -> None:
    """``guard="contracts"`` is the built-in policy in every entry point, as it is in
    ``GuardPostprocessor``."""
    guard = GUARD_OF[entry](guarded(index, "contracts")[entry]())
    assert isinstance(guard, Guard)
    assert guard.policy.name == "contracts"


@pytest.mark.parametrize("entry", ENTRY_POINTS)
@pytest.mark.parametrize("bad", [42, [], {"contract_type": ["MSA"]}])
def test_anything_else_as_guard_is_the_same_one_line_error(
    index: VectorStoreIndex, entry: str, bad: object
) -> None:
    """Anything but a Guard or policy references is one ``ArgumentError`` line naming the entry
    point, the type and the fix, in every entry point."""
    with pytest.raises(ArgumentError) as raised:
        guarded(index, bad)[entry]()
    message = str(raised.value)
    assert "\n" not in message
    assert message.startswith(f"{entry}: guard must be a Guard or policy references")
    assert "Guard.from_policy('contracts')" in message


def sources(index: VectorStoreIndex) -> dict[str, Callable[[Any], Any]]:
    """Each entry point that takes a retriever or an index, given ``value`` in its place."""
    guard = Guard.from_policy("contracts")
    llm = RecordingLLM()
    return {
        "GuardedRetriever": lambda value: GuardedRetriever(value, guard),
        "GuardedQueryEngine": lambda value: GuardedQueryEngine.from_args(
            value, llm=llm, node_postprocessors=[GuardPostprocessor(guard=guard)]
        ),
        "guarded_chat_engine": lambda value: guarded_chat_engine(value, guard, llm=llm),
        "guarded_query_engine": lambda value: guarded_query_engine(value, guard, llm=llm),
    }


@pytest.mark.parametrize(
    ("entry", "fix"),
    [
        ("GuardedRetriever", "wrap it in an index and pass index.as_retriever()"),
        ("GuardedQueryEngine", "wrap it in an index and pass index.as_retriever()"),
        ("guarded_chat_engine", "pass VectorStoreIndex.from_vector_store(store"),
        ("guarded_query_engine", "pass VectorStoreIndex.from_vector_store(store"),
    ],
)
def test_a_vector_store_is_a_one_line_error_with_the_fix(
    index: VectorStoreIndex, entry: str, fix: str
) -> None:
    """A vector store where a retriever or index belongs is named as one, with the call that
    makes the right object, on one line."""
    with pytest.raises(AdapterConfigError) as raised:
        sources(index)[entry](index.vector_store)
    message = str(raised.value)
    assert "\n" not in message
    assert f"{entry} needs a LlamaIndex" in message
    assert "got the vector store SimpleVectorStore" in message
    assert fix in message


@pytest.mark.parametrize("entry", ["GuardedRetriever", "GuardedQueryEngine"])
def test_an_index_where_a_retriever_belongs_names_as_retriever(
    index: VectorStoreIndex, entry: str
) -> None:
    """An index passed as the retriever is one line naming ``index.as_retriever()``."""
    with pytest.raises(
        AdapterConfigError, match=r"got the index VectorStoreIndex; pass index\.as_retriever\(\)$"
    ):
        sources(index)[entry](index)


@pytest.mark.parametrize("entry", ["GuardedRetriever", "guarded_chat_engine"])
def test_a_query_engine_where_a_retriever_belongs_is_named(
    index: VectorStoreIndex, entry: str
) -> None:
    """A query engine passed where a retriever belongs is named as one."""
    with pytest.raises(AdapterConfigError, match="got the query engine RetrieverQueryEngine"):
        sources(index)[entry](index.as_query_engine(llm=RecordingLLM()))


def test_the_valid_forms_still_answer(index: VectorStoreIndex) -> None:
    """The right objects pass the same checks and answer."""
    built = sources(index)
    for entry, value in (
        ("GuardedRetriever", index.as_retriever()),
        ("GuardedQueryEngine", index.as_retriever()),
        ("guarded_chat_engine", index),
        ("guarded_query_engine", index),
    ):
        assert built[entry](value) is not None
    assert GuardedRetriever(index.as_retriever(), "contracts", MSA).retrieve(QUERY)
