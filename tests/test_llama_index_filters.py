"""Tests for a caller's own OR or nested ``filters=`` under GuardedRetriever: kept, combined with
the guard's filter where the store nests filters (Chroma), fetched without pushdown where it
does not (SimpleVectorStore), and re-checked by the guard either way."""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING, Any

import pytest
from llama_index.core import StorageContext, VectorStoreIndex
from llama_index.core.vector_stores import SimpleVectorStore
from llama_index.core.vector_stores.types import (
    FilterCondition,
    FilterOperator,
    MetadataFilter,
    MetadataFilters,
)
from llama_index_support import QUERY, contracts_index, contracts_nodes

from rag_guard_integrations import Guard, RetrievalError
from rag_guard_integrations.llama_index import GuardedRetriever, MiniLMEmbedding, guard_access

if TYPE_CHECKING:
    from rag_guard_integrations.embeddings import MiniLMEmbedder

MSA_OR_SOW = MetadataFilters(
    filters=[
        MetadataFilter(key="contract_type", value="MSA"),
        MetadataFilter(key="contract_type", value="SOW"),
    ],
    condition=FilterCondition.OR,
)
NESTED = MetadataFilters(
    filters=[
        MSA_OR_SOW,
        MetadataFilter(key="clause_id", value="GOVERNING_LAW", operator=FilterOperator.NE),
    ],
    condition=FilterCondition.AND,
)
CALLER = {"contract_type": ["MSA", "NDA"]}


@pytest.fixture(scope="module")
def guard() -> Guard:
    return Guard.from_policy("contracts")


def seen_filters(monkeypatch: pytest.MonkeyPatch, store: type[Any]) -> list[Any]:
    """Record the filters every query to ``store`` carries."""
    calls: list[Any] = []
    original = store.query

    def query(self: Any, query: Any, **kwargs: Any) -> Any:
        calls.append(query.filters)
        return original(self, query, **kwargs)

    monkeypatch.setattr(store, "query", query)
    return calls


def test_simple_store_keeps_the_callers_or_filter_without_pushdown(
    embedder: MiniLMEmbedder, guard: Guard, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SimpleVectorStore refuses nested filters: the retriever falls back to the caller's own
    OR filter, does not crash, and the guard still leaves only what both allow."""
    index = contracts_index(embedder)
    calls = seen_filters(monkeypatch, SimpleVectorStore)
    retriever = GuardedRetriever(index.as_retriever(filters=MSA_OR_SOW, similarity_top_k=3), guard)
    with guard_access(CALLER):
        nodes = retriever.retrieve(QUERY)
    assert [n.node.metadata["contract_type"] for n in nodes] == ["MSA"]
    assert calls[-1] == MSA_OR_SOW


def test_a_filter_the_store_itself_refuses_fails_as_without_the_guard(
    embedder: MiniLMEmbedder, guard: Guard
) -> None:
    """A nested filter SimpleVectorStore cannot run fails as the bare retriever does, as a
    RetrievalError naming the store's error type: the guard neither hides the failure nor
    returns unfiltered nodes (the message, which might quote nodes, is not passed on)."""
    inner = contracts_index(embedder).as_retriever(filters=NESTED, similarity_top_k=3)
    with pytest.raises(ValueError, match="Nested MetadataFilters"):
        inner.retrieve(QUERY)
    with guard_access(CALLER), pytest.raises(RetrievalError, match="raised ValueError;"):
        GuardedRetriever(inner, guard).retrieve(QUERY)


async def test_async_simple_store_falls_back_too(embedder: MiniLMEmbedder, guard: Guard) -> None:
    """aretrieve takes the same fallback."""
    index = contracts_index(embedder)
    retriever = GuardedRetriever(index.as_retriever(filters=MSA_OR_SOW, similarity_top_k=3), guard)
    async with guard_access(CALLER):
        nodes = await retriever.aretrieve(QUERY)
    assert [n.node.metadata["contract_type"] for n in nodes] == ["MSA"]


@pytest.fixture(scope="module")
def chroma_index(embedder: MiniLMEmbedder) -> VectorStoreIndex:
    import chromadb
    from llama_index.vector_stores.chroma import ChromaVectorStore

    client = chromadb.EphemeralClient(settings=chromadb.config.Settings(anonymized_telemetry=False))
    collection = client.create_collection(f"filters-{uuid.uuid4().hex[:8]}")
    store = ChromaVectorStore(chroma_collection=collection)
    return VectorStoreIndex(
        contracts_nodes(),
        storage_context=StorageContext.from_defaults(vector_store=store),
        embed_model=MiniLMEmbedding(embedder),
    )


@pytest.mark.parametrize("filters", [MSA_OR_SOW, NESTED], ids=["or", "nested"])
async def test_a_nesting_store_gets_both_filters_combined(
    chroma_index: VectorStoreIndex,
    guard: Guard,
    monkeypatch: pytest.MonkeyPatch,
    filters: MetadataFilters,
) -> None:
    """Chroma nests filters: the query carries the caller's filters AND the guard's, sync and
    async, and only nodes allowed by both come back."""
    from llama_index.vector_stores.chroma import ChromaVectorStore

    calls = seen_filters(monkeypatch, ChromaVectorStore)
    retriever = GuardedRetriever(
        chroma_index.as_retriever(filters=filters, similarity_top_k=3), guard
    )
    with guard_access(CALLER):
        nodes = retriever.retrieve(QUERY)
    async with guard_access(CALLER):
        anodes = await retriever.aretrieve(QUERY)
    assert [n.node.metadata["contract_type"] for n in nodes] == ["MSA"]
    assert [n.node.node_id for n in anodes] == [n.node.node_id for n in nodes]
    combined = calls[0]
    assert combined.condition == FilterCondition.AND
    own = filters.filters if filters.condition == FilterCondition.AND else [filters]
    assert combined.filters[: len(own)] == own
    assert {f.key for f in combined.filters[len(own) :]} == {"contract_type", "clause_id"}
