"""How a guarded component fetches candidates: from the inner retriever without its
instrumentation and logs (its events, spans, callbacks and DEBUG lines would carry every node,
denied ones too), and with the guard's pushdown only where the store can combine it with the
caller's own filters."""

from __future__ import annotations

from typing import TYPE_CHECKING

from llama_index.core.indices.vector_store.retrievers import VectorIndexRetriever
from llama_index.core.vector_stores.types import MetadataFilters

from rag_guard_integrations.adapters.drive import Call, once
from rag_guard_integrations.adapters.fetch import shielded
from rag_guard_integrations.engine.guard import fetch_size
from rag_guard_integrations.llama_index.pushdown import (
    constraint_filters,
    fetching_retriever,
    merge_filters,
)
from rag_guard_integrations.llama_index.quiet import class_modules, silenced

if TYPE_CHECKING:
    from llama_index.core.base.base_retriever import BaseRetriever
    from llama_index.core.schema import NodeWithScore, QueryBundle

    from rag_guard_integrations.adapters.drive import Flow
    from rag_guard_integrations.core.constraints import Constraints


def sources(
    inner: BaseRetriever, constraints: Constraints, fetch_k: int | None, k: int | None = None
) -> tuple[BaseRetriever, BaseRetriever | None]:
    """The retriever to fetch from, and a fallback without the guard's filters (or None);
    ``k`` (default the inner retriever's ``similarity_top_k``) sizes the over-fetch.

    Over a ``VectorIndexRetriever`` the guard's constraints are ANDed with the retriever's own
    filters. Where that needs nesting (the caller's filters use OR, or are nested), some stores
    refuse it (``SimpleVectorStore``): the fallback then fetches with the caller's filters only,
    and the guard re-checks everything either way.
    """
    if not isinstance(inner, VectorIndexRetriever):
        return inner, None
    size = fetch_size(inner.similarity_top_k if k is None else k, fetch_k)
    guard_filters = constraint_filters(constraints, inner._index.vector_store)
    pushed = fetching_retriever(inner, size, guard_filters)
    merged = merge_filters(inner._filters, guard_filters)
    if merged is None or not _nested(merged):
        return pushed, None
    return pushed, fetching_retriever(inner, size, None)


def fetched(
    primary: BaseRetriever, fallback: BaseRetriever | None, bundle: QueryBundle
) -> Flow[list[NodeWithScore]]:
    """Nodes from ``primary``, or from ``fallback`` when the store refuses ``primary``'s filters,
    fetched reporting nothing (none of their events, spans, callbacks and log records, nor
    those of any retriever they call: see :mod:`.quiet`).

    Raises:
        RetrievalError: the retriever raised; its message, which may quote unchecked nodes,
            stays out of the error and so out of every trace and handler.
    """
    quiet = silenced(*class_modules(type(primary)))
    return shielded(_retrieved(primary, fallback, bundle), quiet, "GuardedRetriever")


def _retrieved(
    primary: BaseRetriever, fallback: BaseRetriever | None, bundle: QueryBundle
) -> Flow[list[NodeWithScore]]:
    try:
        return (yield from once(_retrieve(primary, bundle)))
    except (ValueError, NotImplementedError):
        if fallback is None:
            raise
    return (yield from once(_retrieve(fallback, bundle)))


def _retrieve(retriever: BaseRetriever, bundle: QueryBundle) -> Call[list[NodeWithScore]]:
    return Call(lambda: retriever.retrieve(bundle), lambda: retriever.aretrieve(bundle))


def _nested(filters: MetadataFilters) -> bool:
    return any(isinstance(f, MetadataFilters) for f in filters.filters)
