"""Pushdown into real LangChain vector stores: each store honours exactly the filter we emit,
returns only admissible chunks at full authorised recall, and a store that ignored the filter
still could not leak."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
from langchain_core.vectorstores import VectorStoreRetriever
from pushdown_cells import langchain_cell
from pushdown_stores import Stores
from pushdown_support import CASES, LANGCHAIN_STORES, QUERIES, corpus, guard_for

from rag_guard_integrations.langchain import GuardedRetriever
from rag_guard_integrations.langchain.pushdown import plan_pushdown
from rag_guard_integrations.langchain.stores import store_support

if TYPE_CHECKING:
    from collections.abc import Iterator

pytestmark = pytest.mark.integration  # real stores over the MiniLM-embedded corpus

MODES = ("all", "any")


@pytest.fixture(scope="session")
def stores() -> Iterator[Stores]:
    """Every LangChain store over the shared corpus, built once; PostgreSQL stopped after."""
    built = Stores()
    yield built
    built.close()


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", LANGCHAIN_STORES)
def test_store_returns_exactly_the_admissible_chunks(stores: Stores, name: str, mode: str) -> None:
    """Asked for every chunk under the pushed-down filter, the store returns the admissible
    ones and nothing else, for each caller: every operator we emit is honoured."""
    store = stores.get("langchain", name)
    size = len(corpus().chunks)
    for access in CASES[mode]:
        constraints = guard_for(mode).prefilter(QUERIES[0], access)
        assert constraints is not None
        plan = plan_pushdown(store, constraints)
        assert plan is not None
        found = store.similarity_search(QUERIES[0], k=size, **plan.search_kwargs)
        admissible = {c.metadata["ref"] for c in corpus().chunks if constraints.admits(c.metadata)}
        assert {d.metadata["ref"] for d in found} == admissible


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", LANGCHAIN_STORES)
def test_guarded_retriever_has_full_recall_and_no_leak(
    stores: Stores, name: str, mode: str
) -> None:
    """Through GuardedRetriever at k with fetch_k, the store fetches nothing the guard drops,
    the top-k authorised chunks all come back, and none the caller may not see."""
    cell = langchain_cell(stores, name, mode)
    assert cell.pushdown
    assert (cell.leaks, cell.dropped, cell.recall) == (0, 0, 1.0)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", LANGCHAIN_STORES)
def test_a_store_ignoring_the_filter_still_cannot_leak(
    stores: Stores, name: str, mode: str
) -> None:
    """With the filter dropped before the store sees it, the guard withholds what the store
    should have filtered: chunks are dropped, none leaks."""
    cell = langchain_cell(stores, name, mode, ignore_filter=True)
    assert cell.dropped > 0
    assert cell.leaks == 0


@pytest.mark.parametrize("name", ["chroma", "pgvector", "milvus", "lancedb", "qdrant"])
def test_the_callers_own_filter_still_holds(stores: Stores, name: str) -> None:
    """A filter the caller set (contract MSA-2024-017 only) is ANDed with the pushed-down one."""
    store = stores.get("langchain", name)
    own = _own_filter(name)
    support = store_support(store)
    assert support is not None
    constraints = guard_for("any").prefilter(QUERIES[0], {"groups": ["legal", "hr"]})
    plan = plan_pushdown(store, constraints, search_kwargs={support.filter_key: own})
    assert plan is not None
    found = store.similarity_search(QUERIES[0], k=len(corpus().chunks), **plan.search_kwargs)
    assert found
    assert {d.metadata["contract_id"] for d in found} == {"MSA-2024-017"}


def _own_filter(name: str) -> Any:
    """``contract_id == MSA-2024-017`` in store ``name``'s own filter language."""
    if name == "qdrant":
        from qdrant_client.http import models

        match = models.MatchValue(value="MSA-2024-017")
        return models.Filter(must=[models.FieldCondition(key="metadata.contract_id", match=match)])
    return {
        "chroma": {"contract_id": "MSA-2024-017"},
        "pgvector": {"contract_id": {"$eq": "MSA-2024-017"}},
        "milvus": 'contract_id == "MSA-2024-017"',
        "lancedb": "metadata.contract_id = 'MSA-2024-017'",
    }[name]


HOSTILE = ["MSA' OR '1'='1", 'MSA" or contract_type != "', "MSA) OR (1=1"]


@pytest.mark.parametrize("name", LANGCHAIN_STORES)
def test_quotes_in_allowed_values_cannot_widen_the_filter(stores: Stores, name: str) -> None:
    """Allowlist values that try to close the quote and add a clause match nothing: the store
    returns no chunk (or refuses), never every chunk."""
    store = stores.get("langchain", name)
    constraints = guard_for("all").prefilter(QUERIES[0], {"contract_type": HOSTILE})
    plan = plan_pushdown(store, constraints)
    assert plan is not None
    assert store.similarity_search(QUERIES[0], k=len(corpus().chunks), **plan.search_kwargs) == []


# langchain-postgres serves ainvoke only from a store built on an async engine.
ASYNC_STORES = [n for n in LANGCHAIN_STORES if n != "pgvector"]


@pytest.mark.parametrize("name", ASYNC_STORES)
async def test_async_pushdown_returns_what_sync_does(stores: Stores, name: str) -> None:
    """ainvoke pushes the same filter down and returns the same chunks as invoke."""
    store = stores.get("langchain", name)
    inner = VectorStoreRetriever(vectorstore=store, search_kwargs={"k": 4})
    retriever = GuardedRetriever(retriever=inner, guard=guard_for("any"))
    access = {"groups": ["hr"]}
    sync = retriever.invoke(QUERIES[0], access=access)
    asynchronous = await retriever.ainvoke(QUERIES[0], access=access)
    assert [d.metadata["ref"] for d in asynchronous] == [d.metadata["ref"] for d in sync]
    assert all("hr" in d.metadata["groups"] for d in asynchronous)
