"""Access pushdown: the policy's access allowlists as a vector-store filter, so a store that
supports one never returns a chunk the caller may not see.

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

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

    from langchain_core.documents import Document
    from langchain_core.vectorstores import VectorStore

    from rag_guard_integrations.core.access import AccessContext

IN_MEMORY = "in_memory"
CHROMA = "chroma"


@dataclass(frozen=True, slots=True)
class Pushdown:
    """The filter to hand the store (already merged with the caller's own filter).

    ``admits_nothing`` is True when the access context grants no value of some controlled
    attribute (default deny): there is nothing the caller may see, so nothing is fetched.
    """

    store: str
    filter: Any
    admits_nothing: bool = False


def plan_pushdown(
    vectorstore: VectorStore,
    attributes: Sequence[str],
    access: AccessContext | None,
    user_filter: Any = None,
) -> Pushdown | None:
    """The pushdown for ``vectorstore``, or None when the store or the policy allows none.

    Example:
        >>> from langchain_core.embeddings import FakeEmbeddings
        >>> from rag_guard_integrations import AccessContext
        >>> store = InMemoryVectorStore(FakeEmbeddings(size=8))
        >>> plan = plan_pushdown(store, ["contract_type"], AccessContext(contract_type={"MSA"}))
        >>> plan.store, plan.admits_nothing
        ('in_memory', False)
    """
    store = _store_kind(vectorstore)
    if store is None or not attributes:
        return None
    if access is None or not all(access.allowlists.get(a) for a in attributes):
        return Pushdown(store, None, admits_nothing=True)
    if store == IN_MEMORY:
        return Pushdown(store, _memory_filter(tuple(attributes), access, user_filter))
    return Pushdown(store, _chroma_filter(attributes, access, user_filter))


def _store_kind(vectorstore: VectorStore) -> str | None:
    if isinstance(vectorstore, InMemoryVectorStore):
        return IN_MEMORY
    # A Chroma store can only exist once langchain_chroma is imported, so the optional package
    # is never imported here.
    chroma = sys.modules.get("langchain_chroma")
    if chroma is not None and isinstance(vectorstore, chroma.Chroma):
        return CHROMA
    return None


def _memory_filter(
    attributes: tuple[str, ...], access: AccessContext, user_filter: Any
) -> Callable[[Document], bool]:
    if user_filter is not None and not callable(user_filter):
        raise TypeError(
            f"InMemoryVectorStore filter must be a callable taking a Document, got "
            f"{type(user_filter).__name__}; pass a function"
        )

    def admitted(document: Document) -> bool:
        return admits(attributes, access, document.metadata) and (
            user_filter is None or bool(user_filter(document))
        )

    return admitted


def admits(attributes: Sequence[str], access: AccessContext, metadata: Mapping[str, Any]) -> bool:
    """The guard's access rule (``AccessGuard``) as a predicate: a missing value is denied.

    Inlined rather than calling ``AccessGuard`` because the store calls it once per stored
    chunk; a test holds the two to the same verdicts.
    """
    for attribute in attributes:
        value = metadata.get(attribute)
        if value is None or not access.allows(attribute, value):
            return False
    return True


def _chroma_filter(
    attributes: Sequence[str], access: AccessContext, user_filter: Any
) -> dict[str, Any]:
    allowlists = access.allowlists
    clauses: list[dict[str, Any]] = [
        {attribute: {"$in": sorted(allowlists[attribute])}} for attribute in attributes
    ]
    if user_filter:
        clauses.append(dict(user_filter))
    return clauses[0] if len(clauses) == 1 else {"$and": clauses}
