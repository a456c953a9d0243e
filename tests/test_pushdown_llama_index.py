"""Pushdown into real LlamaIndex vector stores: each store honours exactly the filters we emit,
returns only admissible nodes at full authorised recall, a store without filters gets none, and
a store that ignored the filter still could not leak."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
from pushdown_cells import llama_index_cell
from pushdown_stores import Stores
from pushdown_support import CASES, FLAT_ONLY, LLAMA_INDEX_STORES, QUERIES, corpus, guard_for

from rag_guard_integrations.llama_index.pushdown import constraint_filters

if TYPE_CHECKING:
    from collections.abc import Iterator

pytestmark = pytest.mark.integration  # real stores over the MiniLM-embedded corpus

FILTERING = [n for n in LLAMA_INDEX_STORES if n != "faiss"]
CELLS = [
    (name, mode)
    for name in LLAMA_INDEX_STORES
    for mode in ("all", "any")
    if mode == "all" or ("llama_index", name) not in FLAT_ONLY
]


@pytest.fixture(scope="session")
def stores() -> Iterator[Stores]:
    """Every LlamaIndex index over the shared corpus, built once; PostgreSQL stopped after."""
    built = Stores()
    yield built
    built.close()


@pytest.mark.parametrize(("name", "mode"), [c for c in CELLS if c[0] != "faiss"])
def test_store_returns_exactly_the_admissible_nodes(stores: Stores, name: str, mode: str) -> None:
    """Asked for every node under the pushed-down filters, the store returns the admissible
    ones and nothing else, for each caller: every operator we emit is honoured."""
    index = stores.get("llama_index", name)
    size = len(corpus().chunks)
    for access in CASES[mode]:
        constraints = guard_for(mode).prefilter(QUERIES[0], access)
        assert constraints is not None
        filters = constraint_filters(constraints, index.vector_store)
        assert filters is not None
        nodes = index.as_retriever(similarity_top_k=size, filters=filters).retrieve(QUERIES[0])
        admissible = {c.metadata["ref"] for c in corpus().chunks if constraints.admits(c.metadata)}
        assert {n.node.metadata["ref"] for n in nodes} == admissible


@pytest.mark.parametrize(("name", "mode"), CELLS)
def test_guarded_retriever_recall_and_no_leak(stores: Stores, name: str, mode: str) -> None:
    """Through GuardedRetriever at k with fetch_k: with pushdown nothing fetched is dropped
    and recall is full; without (FAISS takes no filters) the guard drops, and nothing leaks."""
    cell = llama_index_cell(stores, name, mode)
    assert cell.leaks == 0
    assert cell.pushdown is (name != "faiss")
    if cell.pushdown:
        assert (cell.dropped, cell.recall) == (0, 1.0)
    else:
        assert cell.dropped > 0


@pytest.mark.parametrize(("name", "mode"), CELLS)
def test_a_store_ignoring_the_filter_still_cannot_leak(
    stores: Stores, name: str, mode: str
) -> None:
    """With the store's unfiltered nearest nodes, the guard withholds what the store should
    have filtered: nodes are dropped, none leaks."""
    cell = llama_index_cell(stores, name, mode, ignore_filter=True)
    assert cell.dropped > 0
    assert cell.leaks == 0


def _list_attribute_filters(stores: Stores, name: str) -> tuple[Any, Any]:
    index = stores.get("llama_index", name)
    constraints = guard_for("any").prefilter(QUERIES[0], {"groups": ["hr"]})
    assert constraints is not None
    filters = constraint_filters(constraints, index.vector_store)
    assert filters is not None
    return index, filters


def test_chroma_refusing_lists_fetches_nothing_for_a_list_attribute(stores: Stores) -> None:
    """Chroma cannot store lists, so no node carries the match-any attribute: none is fetched."""
    index, filters = _list_attribute_filters(stores, "chroma")
    assert index.as_retriever(similarity_top_k=8, filters=filters).retrieve(QUERIES[0]) == []


def test_lancedb_refusing_lists_fails_closed_for_a_list_attribute(stores: Stores) -> None:
    """LanceDB cannot store lists and refuses a filter on a field it lacks: the request errors
    (nothing is returned unchecked)."""
    index, filters = _list_attribute_filters(stores, "lancedb")
    with pytest.raises(ValueError, match="groups"):
        index.as_retriever(similarity_top_k=8, filters=filters).retrieve(QUERIES[0])


def test_faiss_gets_no_filters(stores: Stores) -> None:
    """FAISS takes no metadata filters, so none is emitted for it (fetch_k only)."""
    index = stores.get("llama_index", "faiss")
    constraints = guard_for("all").prefilter(QUERIES[0], {"contract_type": ["MSA"]})
    assert constraints is not None
    assert constraint_filters(constraints, index.vector_store) is None


HOSTILE = ["MSA' OR '1'='1", 'MSA" or contract_type != "', "MSA) OR (1=1"]


@pytest.mark.parametrize("name", FILTERING)
def test_quotes_in_allowed_values_cannot_widen_the_filter(stores: Stores, name: str) -> None:
    """Allowlist values that try to close the quote and add a clause match no node (LanceDB
    raises on an empty result); where a store pastes values into its SQL unescaped
    (PostgreSQL), such values are not sent at all."""
    index = stores.get("llama_index", name)
    constraints = guard_for("all").prefilter(QUERIES[0], {"contract_type": HOSTILE})
    assert constraints is not None
    filters = constraint_filters(constraints, index.vector_store)
    if name == "pgvector":
        assert filters is None
        return
    retriever = index.as_retriever(similarity_top_k=len(corpus().chunks), filters=filters)
    if name == "lancedb":
        with pytest.raises(Warning, match="empty"):
            retriever.retrieve(QUERIES[0])
        return
    assert retriever.retrieve(QUERIES[0]) == []
