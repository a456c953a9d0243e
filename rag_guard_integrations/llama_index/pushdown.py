"""Pushdown for ``VectorIndexRetriever``: what the guard requires of every node (the caller's
allowlists with their match modes, the clause ids the query asks for) as ``MetadataFilters``
in the operators the index's store honours (:mod:`rag_guard_integrations.llama_index.stores`),
and a per-request copy of the retriever that fetches ``fetch_k``.

The shared retriever is never changed: each request gets its own ``VectorIndexRetriever`` over
the same index, with the same settings, its own ``similarity_top_k`` and the merged filters.
The guard re-checks every fetched node either way, so pushdown only saves work and recall; it
is never the only line of defence.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

from llama_index.core.vector_stores.types import (
    FilterCondition,
    MetadataFilter,
    MetadataFilters,
)

from rag_guard_integrations.core.constraints import MATCH_ANY, Constraints
from rag_guard_integrations.llama_index.stores import StoreOperators, store_operators

if TYPE_CHECKING:
    from collections.abc import Mapping

    from llama_index.core.indices.vector_store.retrievers import VectorIndexRetriever
    from llama_index.core.vector_stores.types import BasePydanticVectorStore


def constraint_filters(
    constraints: Mapping[str, Any] | None,
    vector_store: BasePydanticVectorStore | None = None,
) -> MetadataFilters | None:
    """What :meth:`Guard.prefilter` asks of every node, as filters ``vector_store`` honours:
    per attribute, its match mode's operators for this store (ORed when there are several),
    all joined with AND. An attribute the store cannot test is left out (the guard still checks
    it). None when nothing is left, or the store is not registered. Without a store, the
    in-process default (``SimpleVectorStore``).

    Example:
        >>> f = constraint_filters({"contract_type": frozenset({"SOW", "MSA"})})
        >>> f.filters[0].key, f.filters[0].operator.value, f.filters[0].value
        ('contract_type', 'in', ['MSA', 'SOW'])
    """
    operators = store_operators(vector_store)
    if not constraints or operators is None:
        return None
    return filters_for(Constraints.of(constraints), operators)


# Keys LlamaIndex overwrites with the node's source document id in what a store filters on
# (``node_to_metadata_dict``), whatever the node's metadata says: a filter on them would test
# that id, not the chunk's value, so they are never pushed down (the guard still checks them).
SOURCE_ID_KEYS = frozenset({"doc_id", "document_id", "ref_doc_id"})


def filters_for(constraints: Constraints, operators: StoreOperators) -> MetadataFilters | None:
    """``constraints`` in a store's ``operators``; None when the store can test none of them."""
    parts: list[MetadataFilter | MetadataFilters] = []
    for key, allowed in constraints.items():
        chosen = operators.any_of if allowed.match == MATCH_ANY else operators.all_of
        if key in SOURCE_ID_KEYS or not operators.can_send(key, allowed.values):
            continue
        if len(chosen) > 1 and not operators.nests:
            chosen = chosen[:1]
        tests = [MetadataFilter(key=key, value=sorted(allowed.values), operator=o) for o in chosen]
        if len(tests) == 1:
            parts.append(tests[0])
        elif tests:
            parts.append(MetadataFilters(filters=list(tests), condition=FilterCondition.OR))
    if not parts:
        return None
    return MetadataFilters(filters=parts, condition=FilterCondition.AND)


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
    """A new retriever like ``inner`` that fetches ``fetch_k`` nodes, under ``filters`` too.

    A shallow copy keeps every setting of ``inner``, including ones a later LlamaIndex adds;
    ``similarity_top_k`` is set through its public setter. The filters have no public accessor,
    so they are the one private attribute read and written (on the copy only).
    """
    clone = copy.copy(inner)
    clone.similarity_top_k = fetch_k
    clone._filters = merge_filters(inner._filters, filters)
    return clone
