"""Pushdown: what the guard would require of every chunk (the caller's access allowlists, the
clause ids the query asks for) as a vector-store filter, so a store that supports one never
returns a chunk the guard would withhold, and the over-fetch is spent on candidates that count.

Supported stores: ``InMemoryVectorStore`` (a callable ``filter``) and ``langchain_chroma.Chroma``
(a ``where`` filter: ``{"contract_type": {"$in": [...]}}``, several attributes under ``$and``).
A filter the caller already set is kept: both must hold. Any other store gets no pushdown. The
guard re-checks every fetched chunk either way, so pushdown only saves work and recall; it is
never the only line of defence.

Allowlist values are strings (as in ``AccessContext``): a Chroma store holding numbers under a
controlled attribute matches none of them, which fails closed. ``InMemoryVectorStore`` builds a
Document for every stored chunk to call a filter (about 4 us each), so there pushdown costs time
in proportion to the store's size.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from langchain_core.vectorstores import InMemoryVectorStore

from rag_guard_integrations.guards.access import satisfies

if TYPE_CHECKING:
    from collections.abc import Callable

    from langchain_core.documents import Document
    from langchain_core.vectorstores import VectorStore

    from rag_guard_integrations.guards.access import Constraints

IN_MEMORY = "in_memory"
CHROMA = "chroma"


@dataclass(frozen=True, slots=True)
class Pushdown:
    """The filter to hand the store (already merged with the caller's own filter).

    ``admits_nothing`` is True when no chunk could pass (default deny, or a query that asks for
    no clause of a clause policy), so nothing is fetched.
    """

    store: str
    filter: Any
    admits_nothing: bool = False


def plan_pushdown(
    vectorstore: VectorStore, constraints: Constraints | None, user_filter: Any = None
) -> Pushdown | None:
    """The pushdown of ``constraints`` (from :meth:`Guard.prefilter`) for ``vectorstore``, or None
    when the store takes no filter or there is nothing to push down.

    Example:
        >>> from langchain_core.embeddings import FakeEmbeddings
        >>> store = InMemoryVectorStore(FakeEmbeddings(size=8))
        >>> plan = plan_pushdown(store, {"contract_type": frozenset({"MSA"})})
        >>> plan.store, plan.admits_nothing
        ('in_memory', False)
    """
    store = _store_kind(vectorstore)
    if store is None or constraints == {}:
        return None
    if constraints is None:
        return Pushdown(store, None, admits_nothing=True)
    if store == IN_MEMORY:
        return Pushdown(store, _memory_filter(constraints, user_filter))
    return Pushdown(store, _chroma_filter(constraints, user_filter))


def _store_kind(vectorstore: VectorStore) -> str | None:
    if isinstance(vectorstore, InMemoryVectorStore):
        return IN_MEMORY
    # A Chroma store can only exist once langchain_chroma is imported, so the optional package
    # is never imported here.
    chroma = sys.modules.get("langchain_chroma")
    if chroma is not None and isinstance(vectorstore, chroma.Chroma):
        return CHROMA
    return None


def _memory_filter(constraints: Constraints, user_filter: Any) -> Callable[[Document], bool]:
    if user_filter is not None and not callable(user_filter):
        raise TypeError(
            f"InMemoryVectorStore filter must be a callable taking a Document, got "
            f"{type(user_filter).__name__}; pass a function"
        )

    def admitted(document: Document) -> bool:
        return satisfies(constraints, document.metadata) and (
            user_filter is None or bool(user_filter(document))
        )

    return admitted


def _chroma_filter(constraints: Constraints, user_filter: Any) -> dict[str, Any]:
    clauses: list[dict[str, Any]] = [
        {key: {"$in": sorted(allowed)}} for key, allowed in constraints.items()
    ]
    if user_filter:
        clauses.append(dict(user_filter))
    return clauses[0] if len(clauses) == 1 else {"$and": clauses}
