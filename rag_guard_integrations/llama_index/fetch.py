"""How a guarded component fetches candidates: from the inner retriever without its
instrumentation and logs (its events, spans, callbacks and DEBUG lines would carry every node,
denied ones too), and with the guard's pushdown only where the store can combine it with the
caller's own filters."""

from __future__ import annotations

from typing import TYPE_CHECKING

from llama_index.core.indices.vector_store.retrievers import VectorIndexRetriever
from llama_index.core.vector_stores.types import MetadataFilters

from rag_guard_integrations.engine.guard import fetch_size
from rag_guard_integrations.llama_index.pushdown import (
    constraint_filters,
    fetching_retriever,
    merge_filters,
)
from rag_guard_integrations.llama_index.quiet import silenced

if TYPE_CHECKING:
    from llama_index.core.base.base_retriever import BaseRetriever
    from llama_index.core.schema import NodeWithScore, QueryBundle

    from rag_guard_integrations.guards.access import Constraints


def plan(
    inner: BaseRetriever, constraints: Constraints, fetch_k: int | None
) -> tuple[BaseRetriever, BaseRetriever | None]:
    """The retriever to fetch from, and a fallback without the guard's filters (or None).

    Over a ``VectorIndexRetriever`` the guard's constraints are ANDed with the retriever's own
    filters. Where that needs nesting (the caller's filters use OR, or are nested), some stores
    refuse it (``SimpleVectorStore``): the fallback then fetches with the caller's filters only,
    and the guard re-checks everything either way.
    """
    if not isinstance(inner, VectorIndexRetriever):
        return inner, None
    size = fetch_size(inner.similarity_top_k, fetch_k)
    guard_filters = constraint_filters(constraints, inner._index.vector_store)
    pushed = fetching_retriever(inner, size, guard_filters)
    merged = merge_filters(inner._filters, guard_filters)
    if merged is None or not _nested(merged):
        return pushed, None
    return pushed, fetching_retriever(inner, size, None)


def fetch(
    primary: BaseRetriever, fallback: BaseRetriever | None, bundle: QueryBundle
) -> list[NodeWithScore]:
    """Nodes from ``primary``, or from ``fallback`` when the store refuses ``primary``'s filters."""
    if fallback is None:
        return quiet_retrieve(primary, bundle)
    try:
        return quiet_retrieve(primary, bundle)
    except (ValueError, NotImplementedError):
        return quiet_retrieve(fallback, bundle)


async def afetch(
    primary: BaseRetriever, fallback: BaseRetriever | None, bundle: QueryBundle
) -> list[NodeWithScore]:
    """Async twin of :func:`fetch`."""
    if fallback is None:
        return await aquiet_retrieve(primary, bundle)
    try:
        return await aquiet_retrieve(primary, bundle)
    except (ValueError, NotImplementedError):
        return await aquiet_retrieve(fallback, bundle)


def quiet_retrieve(retriever: BaseRetriever, bundle: QueryBundle) -> list[NodeWithScore]:
    """``retriever.retrieve(bundle)`` reporting nothing: none of its own events, spans, callbacks
    and log records, nor those of any retriever it calls (see :mod:`.quiet`)."""
    with silenced(*_modules(retriever)):
        return retriever.retrieve(bundle)


async def aquiet_retrieve(retriever: BaseRetriever, bundle: QueryBundle) -> list[NodeWithScore]:
    """Async twin of :func:`quiet_retrieve`."""
    with silenced(*_modules(retriever)):
        return await retriever.aretrieve(bundle)


def _modules(retriever: BaseRetriever) -> list[str]:
    """The modules of ``retriever``'s classes (a custom retriever logs under its own name)."""
    return sorted({c.__module__ for c in type(retriever).__mro__ if c is not object})


def _nested(filters: MetadataFilters) -> bool:
    return any(isinstance(f, MetadataFilters) for f in filters.filters)
