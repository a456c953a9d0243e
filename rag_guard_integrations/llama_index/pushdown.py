"""Pushdown for ``VectorIndexRetriever``: what the guard requires of every node (the caller's
allowlists, the clause ids the query asks for) as ``MetadataFilters`` (``FilterOperator.IN``),
and a per-request copy of the retriever that fetches ``fetch_k``.

The shared retriever is never changed: each request gets its own ``VectorIndexRetriever`` over
the same index, with the same settings, its own ``similarity_top_k`` and the merged filters.
The guard re-checks every fetched node either way, so pushdown only saves work and recall; it
is never the only line of defence.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from llama_index.core.indices.vector_store.retrievers import VectorIndexRetriever
from llama_index.core.vector_stores.types import (
    FilterCondition,
    FilterOperator,
    MetadataFilter,
    MetadataFilters,
)

if TYPE_CHECKING:
    from rag_guard_integrations.guards.access import Constraints


def constraint_filters(constraints: Constraints) -> MetadataFilters | None:
    """``key IN allowed values`` for each constraint of :meth:`Guard.prefilter`, joined with AND;
    None when there is no constraint.

    Example:
        >>> f = constraint_filters({"contract_type": frozenset({"SOW", "MSA"})})
        >>> f.filters[0].key, f.filters[0].operator.value, f.filters[0].value
        ('contract_type', 'in', ['MSA', 'SOW'])
    """
    if not constraints:
        return None
    return MetadataFilters(
        filters=[
            MetadataFilter(key=key, value=sorted(allowed), operator=FilterOperator.IN)
            for key, allowed in constraints.items()
        ],
        condition=FilterCondition.AND,
    )


def merge_filters(
    own: MetadataFilters | None, access: MetadataFilters | None
) -> MetadataFilters | None:
    """Both sets of filters must hold. AND filters are flattened into one list, since simple
    stores (``SimpleVectorStore``) refuse nested filters; any other condition is nested."""
    if access is None:
        return own
    if own is None or not own.filters:
        return access
    if own.condition in (None, FilterCondition.AND):
        return MetadataFilters(
            filters=[*own.filters, *access.filters], condition=FilterCondition.AND
        )
    return MetadataFilters(filters=[own, *access.filters], condition=FilterCondition.AND)


def fetching_retriever(
    inner: VectorIndexRetriever, fetch_k: int, filters: MetadataFilters | None
) -> VectorIndexRetriever:
    """A new retriever like ``inner`` that fetches ``fetch_k`` nodes, under ``filters`` too."""
    # VectorIndexRetriever keeps its settings in private attributes and offers no copy method;
    # reading them is the only way to build an equivalent retriever without touching the shared one.
    return VectorIndexRetriever(
        index=inner._index,
        similarity_top_k=fetch_k,
        vector_store_query_mode=inner._vector_store_query_mode,
        filters=merge_filters(inner._filters, filters),
        alpha=inner._alpha,
        node_ids=inner._node_ids,
        doc_ids=inner._doc_ids,
        sparse_top_k=inner._sparse_top_k,
        hybrid_top_k=inner._hybrid_top_k,
        callback_manager=inner.callback_manager,
        object_map=inner.object_map,
        embed_model=inner._embed_model,
        verbose=inner._verbose,
        vector_store_kwargs=inner._kwargs,
    )
