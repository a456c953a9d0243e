"""The metadata of every document a LangChain vector store holds, for the stores that can list
it cheaply, so a guarded retriever teaches its guard the collection's identifiers at first use
(:class:`~rag_guard_integrations.guards.domain_collection.StoreLesson`)."""

from __future__ import annotations

from itertools import islice
from typing import TYPE_CHECKING, Any

from langchain_core.vectorstores import VectorStoreRetriever

from rag_guard_integrations.langchain.stores import along_classes

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from langchain_core.retrievers import BaseRetriever
    from langchain_core.vectorstores import VectorStore

# Rows read from a store at most: a larger collection is learned from its retrieved sets.
LISTED_ROWS = 100_000


def _in_memory(store: Any) -> list[Mapping[str, Any]]:
    return [row["metadata"] for row in islice(store.store.values(), LISTED_ROWS)]


def _faiss(store: Any) -> list[Mapping[str, Any]]:
    return [doc.metadata for doc in islice(store.docstore._dict.values(), LISTED_ROWS)]


def _chroma(store: Any) -> list[Mapping[str, Any]]:
    return list(store.get(include=["metadatas"], limit=LISTED_ROWS)["metadatas"])


_LISTERS: dict[str, Callable[[Any], list[Mapping[str, Any]]]] = {
    "langchain_core.vectorstores.in_memory.InMemoryVectorStore": _in_memory,
    "langchain_community.vectorstores.faiss.FAISS": _faiss,
    "langchain_chroma.vectorstores.Chroma": _chroma,
}


def store_metadata(retriever: BaseRetriever) -> list[Mapping[str, Any]] | None:
    """Every row's metadata of the store behind ``retriever``, or None when it cannot be
    listed (another kind of retriever or store, more than :data:`LISTED_ROWS` rows, or the
    listing failed: then the retrieved sets teach the guard instead)."""
    if not isinstance(retriever, VectorStoreRetriever):
        return None
    store: VectorStore = retriever.vectorstore
    lister = along_classes(_LISTERS, store)
    if lister is None:
        return None
    try:
        rows = lister(store)
    except Exception:
        return None
    return rows if len(rows) < LISTED_ROWS else None
