"""How a guarded component fetches candidates: from the inner retriever without its
instrumentation and logs (its events, spans, callbacks and DEBUG lines would carry every node,
denied ones too), and with the guard's pushdown only where the store can combine it with the
caller's own filters."""

from __future__ import annotations

import logging
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

from llama_index.core.indices.vector_store.retrievers import VectorIndexRetriever
from llama_index.core.vector_stores.types import MetadataFilters

from rag_guard_integrations.engine.guard import fetch_size
from rag_guard_integrations.llama_index.pushdown import (
    constraint_filters,
    fetching_retriever,
    merge_filters,
)

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    from llama_index.core.base.base_retriever import BaseRetriever
    from llama_index.core.schema import NodeWithScore, QueryBundle

    from rag_guard_integrations.guards.access import Constraints

# Set by LlamaIndex's ``dispatcher.span`` on the function it wraps.
_SPAN_MARK = "__dispatcher_span_decorated__"
# Where ``VectorIndexRetriever`` logs the text of every candidate it found.
_RESULT_LOGGER = "llama_index.core.indices.utils"
_QUIET: ContextVar[bool] = ContextVar("rag_guard_quiet_retrieval", default=False)


class _QuietInContext(logging.Filter):
    """Drops a logger's records while the current context runs an inner retrieval (other
    threads and requests log as usual: no logger level changes)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not _QUIET.get()


_FILTER = _QuietInContext()


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
    """``retriever.retrieve(bundle)`` without its own instrumentation events, callbacks and
    log records."""
    with _silenced(retriever):
        nodes = _unwrapped(type(retriever)._retrieve)(retriever, bundle)
        return retriever._handle_recursive_retrieval(bundle, nodes)


async def aquiet_retrieve(retriever: BaseRetriever, bundle: QueryBundle) -> list[NodeWithScore]:
    """Async twin of :func:`quiet_retrieve`."""
    with _silenced(retriever):
        nodes = await _unwrapped(type(retriever)._aretrieve)(retriever, bundle)
        return await retriever._ahandle_recursive_retrieval(bundle, nodes)


@contextmanager
def _silenced(retriever: BaseRetriever) -> Iterator[None]:
    """Drop, in this context only, the records of the loggers of ``retriever``'s class modules
    and of LlamaIndex's query-result logger (work the retriever hands to other threads still
    logs)."""
    modules = {c.__module__ for c in type(retriever).__mro__ if c is not object}
    for name in (_RESULT_LOGGER, *sorted(modules)):
        logging.getLogger(name).addFilter(_FILTER)
    token = _QUIET.set(True)
    try:
        yield
    finally:
        _QUIET.reset(token)


def _unwrapped(method: Callable[..., Any]) -> Callable[..., Any]:
    inner = getattr(method, "__wrapped__", None)
    return inner if callable(inner) and getattr(inner, _SPAN_MARK, False) else method


def _nested(filters: MetadataFilters) -> bool:
    return any(isinstance(f, MetadataFilters) for f in filters.filters)
