"""What a LlamaIndex adapter was given where it expects a retriever or an index: the value when
it fits, else one ``AdapterConfigError`` line naming what it is and how to get the right one."""

from __future__ import annotations

from typing import Any, Literal

from llama_index.core.base.base_query_engine import BaseQueryEngine
from llama_index.core.base.base_retriever import BaseRetriever
from llama_index.core.indices.base import BaseIndex
from llama_index.core.vector_stores.types import BasePydanticVectorStore

from rag_guard_integrations.llama_index.errors import AdapterConfigError

Wanted = Literal["retriever", "index", "index or retriever"]


def require_retriever(value: object, owner: str) -> BaseRetriever:
    """``value`` when it is a LlamaIndex retriever.

    Example:
        >>> from llama_index.core.vector_stores import SimpleVectorStore
        >>> require_retriever(SimpleVectorStore(), "GuardedRetriever")
        Traceback (most recent call last):
        ...
        rag_guard_integrations.llama_index.errors.AdapterConfigError: GuardedRetriever needs a \
LlamaIndex retriever, got the vector store SimpleVectorStore; wrap it in an index and pass \
index.as_retriever(), with index = VectorStoreIndex.from_vector_store(store, embed_model=...)
    """
    if isinstance(value, BaseRetriever):
        return value
    raise _wrong(value, owner, "retriever")


def require_index(value: object, owner: str) -> BaseIndex[Any]:
    """``value`` when it is a LlamaIndex index."""
    if isinstance(value, BaseIndex):
        return value
    raise _wrong(value, owner, "index")


def require_source(value: object, owner: str) -> BaseIndex[Any] | BaseRetriever:
    """``value`` when it is a LlamaIndex index or retriever."""
    if isinstance(value, BaseIndex | BaseRetriever):
        return value
    raise _wrong(value, owner, "index or retriever")


def _wrong(value: object, owner: str, wanted: Wanted) -> AdapterConfigError:
    name = type(value).__name__
    if isinstance(value, BaseIndex):
        what, fix = f"the index {name}", "pass index.as_retriever()"
    elif isinstance(value, BaseRetriever):
        what = f"the retriever {name}"
        fix = "use GuardedQueryEngine.from_args(GuardedRetriever(retriever, guard))"
    elif isinstance(value, BasePydanticVectorStore):
        what = f"the vector store {name}"
        index = "VectorStoreIndex.from_vector_store(store, embed_model=...)"
        fix = (
            f"wrap it in an index and pass index.as_retriever(), with index = {index}"
            if wanted == "retriever"
            else f"pass {index}"
        )
    elif isinstance(value, BaseQueryEngine):
        what, fix = f"the query engine {name}", "pass the retriever it was built on"
    else:
        what = name
        fix = "pass a VectorStoreIndex" if wanted == "index" else "pass index.as_retriever()"
    return AdapterConfigError(f"{owner} needs a LlamaIndex {wanted}, got {what}; {fix}")
