"""Which LangChain vector stores take pushdown, and how: one entry per store class, looked up
along the store's class hierarchy by import path, so no optional package is imported to ask.

Each entry says how the store's filter language writes the two tests pushdown needs: "the
value is one of these" (``IN``, or an OR of ``EQ`` where the store's translator lacks ``IN``)
and "the list holds this value" (``CONTAIN``, or ``EQ`` where the store's equality already
looks inside lists). Every operator listed here is proven honoured by a test against the real
store (``tests/test_pushdown_langchain.py``); an operator a store ignores or answers with every
document (``$nin`` on a Chroma list) is never listed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from langchain_core.structured_query import Comparator, StructuredQuery

from rag_guard_integrations.core.errors import InputError
from rag_guard_integrations.core.extras import needs_extra

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from langchain_core.documents import Document
    from langchain_core.structured_query import FilterDirective, Visitor
    from langchain_core.vectorstores import VectorStore

    from rag_guard_integrations.core.constraints import Constraints


T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Translated:
    """A store whose filter is written by a ``structured_query`` translator.

    ``holds`` is how "the stored list holds v" is written (None: the store cannot, so a
    ``match: any`` attribute is not pushed down); ``combine`` ANDs the caller's own filter with
    ours in the store's language; ``one_of_on_lists`` is False where "one of" raises on a list
    field (a ``match: any`` attribute is then taken to hold lists); ``in_holds`` is True where
    "one of" also matches a stored list holding one of the values; ``filter_key`` names the
    search argument that takes the filter; ``extra`` adds search arguments the filter needs.
    """

    name: str
    translator: Callable[[VectorStore], Visitor]
    has_in: bool
    holds: Comparator | None
    combine: Callable[[Any, Any], Any]
    one_of_on_lists: bool = True
    in_holds: bool = False
    filter_key: str = "filter"
    extra: Callable[[VectorStore], Mapping[str, Any]] = field(default=lambda store: {})

    def search_kwargs(
        self, store: VectorStore, directive: FilterDirective, user: Any
    ) -> dict[str, Any]:
        """The search arguments that apply ``directive`` (and the caller's ``user`` filter)."""
        query = StructuredQuery(query="", filter=directive, limit=None)
        _, translated = self.translator(store).visit_structured_query(query)
        ours = translated[self.filter_key]
        merged = ours if user is None else self.combine(ours, user)
        return {self.filter_key: merged, **self.extra(store)}


@dataclass(frozen=True, slots=True)
class Predicate:
    """A store that takes a Python callable as its filter and calls it per stored chunk, so the
    guard's own verdict (:meth:`Constraints.admits`) is the filter, exact for both match modes.

    ``metadata_of`` reads the metadata from what the store hands the callable.
    """

    name: str
    metadata_of: Callable[[Any], Mapping[str, Any]]
    extra: Callable[[VectorStore], Mapping[str, Any]] = field(default=lambda store: {})

    def search_kwargs(
        self, store: VectorStore, constraints: Constraints, user: Any
    ) -> dict[str, Any]:
        """A ``filter`` callable admitting what ``constraints`` and the caller's filter admit."""
        if user is not None and not callable(user):
            raise InputError(
                f"{type(store).__name__} filter must be a callable, got {type(user).__name__}; "
                "pass a function"
            )

        def admitted(item: Any) -> bool:
            return constraints.admits(self.metadata_of(item)) and (user is None or bool(user(item)))

        return {"filter": admitted, **self.extra(store)}


StoreSupport = Translated | Predicate


def _and_dicts(ours: Any, user: Any) -> dict[str, Any]:
    return {"$and": [ours, dict(user)]}


def _and_text(keyword: str) -> Callable[[Any, Any], str]:
    def combine(ours: Any, user: Any) -> str:
        if not isinstance(user, str):
            raise InputError(f"filter must be a str expression here, got {type(user).__name__}")
        return f"({ours}) {keyword} ({user})"

    return combine


def _and_qdrant(ours: Any, user: Any) -> Any:
    with needs_extra("qdrant", "Qdrant pushdown"):
        from qdrant_client.http import models  # noqa: PLC0415 (only with a Qdrant store)

    return models.Filter(must=[ours, user])


def _chroma(store: VectorStore) -> Visitor:
    with needs_extra("chroma", "Chroma pushdown"):
        from rag_guard_integrations.langchain.translators import (  # noqa: PLC0415
            ChromaPushdownTranslator,
        )

    return ChromaPushdownTranslator()


def _qdrant(store: VectorStore) -> Visitor:
    with needs_extra("qdrant", "Qdrant pushdown"):
        from rag_guard_integrations.langchain.translators import (  # noqa: PLC0415
            QdrantPushdownTranslator,
        )

    return QdrantPushdownTranslator(getattr(store, "metadata_payload_key", "metadata"))


def _pgvector(store: VectorStore) -> Visitor:
    with needs_extra("pgvector", "PGVector pushdown"):
        from langchain_postgres.translator import PGVectorTranslator  # noqa: PLC0415

    return PGVectorTranslator()


def _milvus(store: VectorStore) -> Visitor:
    with needs_extra("milvus", "Milvus pushdown"):
        from rag_guard_integrations.langchain.translators import (  # noqa: PLC0415
            MilvusPushdownTranslator,
        )

    return MilvusPushdownTranslator()


def _lancedb(store: VectorStore) -> Visitor:
    with needs_extra("lancedb", "LanceDB pushdown"):
        from rag_guard_integrations.langchain.translators import LanceDBTranslator  # noqa: PLC0415

    return LanceDBTranslator.for_table(store.get_table().schema)  # type: ignore[attr-defined]


def _document_metadata(document: Document) -> Mapping[str, Any]:
    return document.metadata


def _as_mapping(metadata: Mapping[str, Any]) -> Mapping[str, Any]:
    return metadata


STORES: dict[str, StoreSupport] = {
    "langchain_core.vectorstores.in_memory.InMemoryVectorStore": Predicate(
        "in_memory", _document_metadata
    ),
    # FAISS applies a filter to its nearest ``fetch_k`` only: ask for every stored vector so
    # the filter sees them all (a flat index scores them all anyway).
    "langchain_community.vectorstores.faiss.FAISS": Predicate(
        "faiss",
        _as_mapping,
        lambda store: {"fetch_k": max(1, store.index.ntotal)},  # type: ignore[attr-defined]
    ),
    "langchain_chroma.vectorstores.Chroma": Translated(
        "chroma", _chroma, has_in=True, holds=Comparator.CONTAIN, combine=_and_dicts
    ),
    # Qdrant's match on a list field matches any element: one MatchAny (IN) covers scalars and
    # lists alike.
    "langchain_qdrant.qdrant.QdrantVectorStore": Translated(
        "qdrant", _qdrant, has_in=True, holds=Comparator.EQ, combine=_and_qdrant, in_holds=True
    ),
    # PGVector's $eq is a lax JSON path comparison (looks inside lists); its $in compares the
    # value's text and its translator's $contain is refused by the store.
    "langchain_postgres.vectorstores.PGVector": Translated(
        "pgvector", _pgvector, has_in=True, holds=Comparator.EQ, combine=_and_dicts
    ),
    # Milvus raises on ``in`` over a list field.
    "langchain_milvus.vectorstores.milvus.Milvus": Translated(
        "milvus",
        _milvus,
        has_in=True,
        holds=Comparator.CONTAIN,
        combine=_and_text("and"),
        one_of_on_lists=False,
        filter_key="expr",
    ),
    # LanceDB filters after the vector search unless told to prefilter (and then comes back
    # short of k).
    "langchain_community.vectorstores.lancedb.LanceDB": Translated(
        "lancedb",
        _lancedb,
        has_in=True,
        holds=Comparator.CONTAIN,
        combine=_and_text("AND"),
        extra=lambda store: {"prefilter": True},
    ),
}


def along_classes(registry: Mapping[str, T], value: object) -> T | None:
    """The entry of ``registry`` (keyed by import path) for ``value``'s class or its nearest
    registered base, if any: no optional package is imported to ask."""
    for cls in type(value).__mro__:
        found = registry.get(f"{cls.__module__}.{cls.__qualname__}")
        if found is not None:
            return found
    return None


def store_support(vectorstore: VectorStore) -> StoreSupport | None:
    """The registry entry for ``vectorstore``'s class or its nearest registered base, if any."""
    return along_classes(STORES, vectorstore)
