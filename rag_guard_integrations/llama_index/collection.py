"""The metadata of every node an index holds, where it can be listed cheaply (its docstore, or
a Chroma collection), so a guarded retriever teaches its guard the collection's identifiers at
first use (:class:`~rag_guard_integrations.guards.domain_collection.StoreLesson`)."""

from __future__ import annotations

from itertools import islice
from typing import TYPE_CHECKING, Any

from llama_index.core.indices.vector_store.retrievers import VectorIndexRetriever

if TYPE_CHECKING:
    from collections.abc import Mapping

    from llama_index.core.base.base_retriever import BaseRetriever

# Rows read from a store at most: a larger collection is learned from its retrieved sets.
LISTED_ROWS = 100_000


def index_metadata(retriever: BaseRetriever) -> list[Mapping[str, Any]] | None:
    """Every node's metadata of the index behind ``retriever``, or None when it cannot be
    listed (another kind of retriever, a store that keeps the nodes but cannot list them,
    more than :data:`LISTED_ROWS` rows, or the listing failed: then the retrieved sets teach
    the guard instead)."""
    if not isinstance(retriever, VectorIndexRetriever):
        return None
    index = retriever._index
    try:
        # Counted before anything is read: the docstore deserialises every node it lists.
        if len(getattr(index.index_struct, "nodes_dict", ())) >= LISTED_ROWS:
            return None
        rows: list[Mapping[str, Any]] = [
            node.metadata for node in islice(index.docstore.docs.values(), LISTED_ROWS)
        ]
        if not rows and type(index.vector_store).__name__ == "ChromaVectorStore":
            collection = index.vector_store._collection  # type: ignore[attr-defined]
            rows = list(collection.get(include=["metadatas"], limit=LISTED_ROWS)["metadatas"])
    except Exception:
        return None
    return rows if rows and len(rows) < LISTED_ROWS else None
