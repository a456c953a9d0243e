"""Tests for what the README says about LlamaIndex's Milvus store at the pinned pymilvus: built
inside the event loop that uses it, a guarded retriever answers sync and async; plain sync
construction fails exactly when the installed pymilvus opens its async client eagerly."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

import pymilvus
import pytest
from llama_index.core import StorageContext, VectorStoreIndex
from llama_index.vector_stores.milvus import MilvusVectorStore
from llama_index_support import QUERY, contracts_nodes

from rag_guard_integrations import Guard
from rag_guard_integrations.llama_index import GuardedRetriever, MiniLMEmbedding, guard_access

if TYPE_CHECKING:
    from pathlib import Path

    from rag_guard_integrations.embeddings import MiniLMEmbedder

pytestmark = pytest.mark.integration  # a real Milvus Lite store over the MiniLM-embedded clauses

# The first pymilvus whose AsyncMilvusClient connects on first use rather than at construction.
DEFERRED_FROM = (2, 6, 10)


def _version() -> tuple[int, ...]:
    return tuple(int(part) for part in pymilvus.__version__.split(".")[:3])


def test_a_store_built_in_its_event_loop_serves_sync_and_async(
    tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    """The README's construction: the store built inside ``async def main()``, then a guarded
    retriever over it answers ``retrieve`` and ``aretrieve`` in that loop, MSA only."""

    async def main() -> tuple[set[Any], set[Any]]:
        store = MilvusVectorStore(uri=str(tmp_path / "milvus.db"), dim=384, overwrite=True)
        index = VectorStoreIndex(
            contracts_nodes(),
            storage_context=StorageContext.from_defaults(vector_store=store),
            embed_model=MiniLMEmbedding(embedder),
        )
        retriever = GuardedRetriever(index.as_retriever(), Guard.from_policy("contracts"))
        async with guard_access({"contract_type": ["MSA"]}):
            sync = {n.node.metadata["contract_type"] for n in retriever.retrieve(QUERY)}
            both = {n.node.metadata["contract_type"] for n in await retriever.aretrieve(QUERY)}
        return sync, both

    assert asyncio.run(main()) == ({"MSA"}, {"MSA"})


def test_plain_sync_construction_fails_only_where_the_readme_says(tmp_path: Path) -> None:
    """Built in plain sync code, the store fails with "no running event loop" before pymilvus
    2.6.10 (the pinned 2.6.6 among them) and works from it, as the README states."""
    uri = str(tmp_path / "sync.db")
    if _version() >= DEFERRED_FROM:
        assert MilvusVectorStore(uri=uri, dim=4, overwrite=True) is not None
        return
    with pytest.raises(pymilvus.exceptions.ConnectionConfigException, match="no running event"):
        MilvusVectorStore(uri=uri, dim=4, overwrite=True)
