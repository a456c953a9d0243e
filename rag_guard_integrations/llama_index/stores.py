"""Which LlamaIndex vector stores take pushdown, and with which ``FilterOperator``: one entry per
store class, looked up along the store's class hierarchy by import path, so no optional package
is imported to ask.

Per store, the operators that together (OR) mean each match mode: ``all`` ("the value is one
of the allowed") and ``any`` ("the value is one of them, or the list holds one of them"). An
empty tuple pushes nothing for that mode. Every operator listed is proven honoured by a test
against the real store (``tests/test_pushdown_llama_index.py``); operators a store refuses,
ignores or answers with every node (``NIN`` on a PostgreSQL list) are never listed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from llama_index.core.vector_stores.types import FilterOperator

from rag_guard_integrations.core.constraints import is_plain_name

if TYPE_CHECKING:
    from llama_index.core.vector_stores.types import BasePydanticVectorStore

IN = FilterOperator.IN
ANY = FilterOperator.ANY


QUOTES = frozenset("'\"\\")


@dataclass(frozen=True, slots=True)
class StoreOperators:
    """The operators ORed for each match mode; ``nests`` when the store takes nested filters;
    ``quotes_unsafe`` when the store pastes keys and values into its query text unescaped (a
    key that is not a plain name, or a value with a quote or backslash, is then never sent:
    its attribute is not pushed down)."""

    name: str
    all_of: tuple[FilterOperator, ...]
    any_of: tuple[FilterOperator, ...]
    nests: bool = True
    quotes_unsafe: bool = False

    def can_send(self, key: str, values: frozenset[str]) -> bool:
        """True when ``key`` and ``values`` can go into this store's filters as they are."""
        if not self.quotes_unsafe:
            return True
        return is_plain_name(key) and not any(QUOTES & set(v) for v in values)


# The in-process default: no nested filters; ANY looks inside lists (and, on a string, for a
# substring: a superset the guard trims).
SIMPLE = StoreOperators("simple", (IN,), (ANY,), nests=False)

STORES: dict[str, StoreOperators] = {
    "llama_index.core.vector_stores.simple.SimpleVectorStore": SIMPLE,
    # Chroma and LanceDB refuse list metadata when nodes are added: values are single, so IN is
    # exact for both modes.
    "llama_index.vector_stores.chroma.base.ChromaVectorStore": StoreOperators(
        "chroma", (IN,), (IN,)
    ),
    "llama_index.vector_stores.lancedb.base.LanceDBVectorStore": StoreOperators(
        "lancedb", (IN,), (IN,), nests=False
    ),
    # Qdrant's IN is a match-any that also looks inside lists; it has no ANY or CONTAINS.
    "llama_index.vector_stores.qdrant.base.QdrantVectorStore": StoreOperators(
        "qdrant", (IN,), (IN,)
    ),
    # Milvus raises on IN over a list field: a match-any attribute is taken to hold lists.
    "llama_index.vector_stores.milvus.base.MilvusVectorStore": StoreOperators(
        "milvus", (IN,), (ANY,)
    ),
    # PostgreSQL's IN compares the value's text (a list never matches), its ANY looks inside
    # lists; both are written into the SQL text without escaping.
    "llama_index.vector_stores.postgres.base.PGVectorStore": StoreOperators(
        "pgvector", (IN,), (IN, ANY), quotes_unsafe=True
    ),
    # FAISS takes no metadata filters at all.
    "llama_index.vector_stores.faiss.base.FaissVectorStore": StoreOperators("faiss", (), ()),
}


def store_operators(vector_store: BasePydanticVectorStore | None) -> StoreOperators | None:
    """The entry for ``vector_store``'s class or its nearest registered base; ``None`` means the
    in-process default; an unregistered store gets None (no pushdown)."""
    if vector_store is None:
        return SIMPLE
    for cls in type(vector_store).__mro__:
        found = STORES.get(f"{cls.__module__}.{cls.__qualname__}")
        if found is not None:
            return found
    return None
