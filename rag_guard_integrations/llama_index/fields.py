"""What the LlamaIndex components take: pydantic field types (a guard stored as its policy
references and an access default stored as a mapping, so ``to_dict``/``from_dict``,
``to_json``, pickling and ``model_json_schema()`` work), unknown arguments refused in one line,
and the retriever or index expected, else one ``AdapterConfigError`` line naming what was given
and how to get the right one."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal

from llama_index.core.base.base_query_engine import BaseQueryEngine
from llama_index.core.base.base_retriever import BaseRetriever
from llama_index.core.indices.base import BaseIndex
from llama_index.core.vector_stores.types import BasePydanticVectorStore
from pydantic import BeforeValidator, PlainSerializer, WithJsonSchema

from rag_guard_integrations.adapters.stored import coerce_guard, guard_reference
from rag_guard_integrations.core.access import AccessContext, AccessField
from rag_guard_integrations.core.arguments import unknown_argument
from rag_guard_integrations.core.errors import AdapterConfigError
from rag_guard_integrations.engine.guard import Guard

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

Wanted = Literal["retriever", "index", "index or retriever"]


GuardField = Annotated[
    Guard,
    BeforeValidator(coerce_guard),
    PlainSerializer(guard_reference, return_type=dict),
    WithJsonSchema(
        {
            "type": "object",
            "description": "the guard, stored as the policies it was built from",
            "properties": {
                "policy": {"type": "array", "items": {"type": "string"}},
                "name": {"type": ["string", "null"]},
            },
        }
    ),
]
"""A Guard, given as a Guard or policy references, serialised as ``guard_reference``."""


def _access_dict(access: AccessContext | None) -> dict[str, Any] | None:
    return None if access is None else access.to_dict()


AccessDefault = Annotated[
    AccessField,
    PlainSerializer(_access_dict),
    WithJsonSchema(
        {
            "type": ["object", "null"],
            "description": "attribute -> allowed values, plus an optional principal",
            "additionalProperties": True,
        }
    ),
]
"""The access default of a component: an AccessContext, a mapping or None."""


def refuse_unknown(component: str, given: Mapping[str, Any], known: Iterable[str]) -> None:
    """Raise :class:`AdapterConfigError` for the first key of ``given`` not in ``known``.

    Example:
        >>> try:
        ...     refuse_unknown("GuardTagger", {"polcy": "default"}, ["policy", "guard"])
        ... except AdapterConfigError as error:
        ...     print(error)
        GuardTagger got an unknown argument 'polcy'; did you mean 'policy'? It takes: guard, policy
    """
    message = unknown_argument(component, given, known)
    if message is not None:
        raise AdapterConfigError(message)


def require_retriever(value: object, owner: str) -> BaseRetriever:
    """``value`` when it is a LlamaIndex retriever.

    Example:
        >>> from llama_index.core.vector_stores import SimpleVectorStore
        >>> require_retriever(SimpleVectorStore(), "GuardedRetriever")
        Traceback (most recent call last):
        ...
        rag_guard_integrations.core.errors.AdapterConfigError: GuardedRetriever needs a \
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
