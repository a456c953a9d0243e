"""Guarded retrievers teach the domain gate the collection's identifiers themselves: a plain
``Guard.from_policy("bis")`` passes a question naming a standard the store holds although the
vector search did not bring its chunk back, and still refuses one the store does not hold."""

from __future__ import annotations

import pickle
from typing import TYPE_CHECKING

import pytest
from langchain_core.documents import Document
from langchain_core.vectorstores import InMemoryVectorStore
from langchain_qdrant import QdrantVectorStore
from llama_index.core import VectorStoreIndex
from llama_index.core.schema import TextNode

from rag_guard_integrations import Chunk, Guard
from rag_guard_integrations.data import load_corpus
from rag_guard_integrations.guards.domain_collection import VALUES_PER_KEY
from rag_guard_integrations.langchain import GuardedRetriever, MiniLMEmbeddings, guard_results
from rag_guard_integrations.llama_index import GuardedRetriever as LlamaGuardedRetriever
from rag_guard_integrations.llama_index import MiniLMEmbedding

if TYPE_CHECKING:
    from pathlib import Path

    from rag_guard_integrations.core.stage import Request
    from rag_guard_integrations.embeddings import MiniLMEmbedder

# Standards of the bundled corpus that a 2-nearest search for these bare questions misses.
HELD = "IS 1786 scope"
NOT_HELD = "IS 99999 scope"


def _documents(text_only: str | None = None) -> list[Document]:
    docs = [Document(c.text, metadata=dict(c.metadata)) for c in load_corpus("bis")]
    if text_only is not None:  # a chunk that names a standard in its text only
        docs.append(Document(f"See also {text_only} for galvanised wire.", metadata={}))
    return docs


def _tier(retriever: GuardedRetriever, query: str) -> str:
    with guard_results() as results:
        retriever.invoke(query)
    return results[-1].query.tier


@pytest.fixture(scope="module")
def store(embedder: MiniLMEmbedder) -> InMemoryVectorStore:
    return InMemoryVectorStore.from_documents(_documents("IS 4444"), MiniLMEmbeddings())


def test_a_plain_guard_refuses_a_held_standard_the_search_missed(
    store: InMemoryVectorStore,
) -> None:
    """Without the store's identifiers the gate sees only what the search returned."""
    found = store.similarity_search(HELD, k=2)
    assert all(d.metadata.get("standard") != "IS 1786" for d in found)
    chunks = [Chunk(d.page_content, d.metadata) for d in found]
    assert Guard.from_policy("bis").check(HELD, chunks).query.tier != "identifier"


def test_langchain_retriever_learns_the_stores_identifiers_at_first_use(
    store: InMemoryVectorStore,
) -> None:
    """The first question naming a held standard passes at tier 2; an unheld one is refused."""
    retriever = GuardedRetriever(
        retriever=store.as_retriever(search_kwargs={"k": 2}), guard=Guard.from_policy("bis")
    )
    assert _tier(retriever, HELD) == "identifier"
    assert _tier(retriever, NOT_HELD) != "identifier"
    assert retriever.invoke(NOT_HELD) == []


def test_an_identifier_a_chunk_names_only_in_its_text_is_not_learned(
    store: InMemoryVectorStore,
) -> None:
    """Only metadata teaches: a standard mentioned in a chunk's text is not the collection's."""
    retriever = GuardedRetriever(
        retriever=store.as_retriever(search_kwargs={"k": 2}), guard=Guard.from_policy("bis")
    )
    assert _tier(retriever, "IS 4444 scope") != "identifier"


def test_identifiers_given_when_the_guard_was_built_are_not_widened(
    store: InMemoryVectorStore,
) -> None:
    """A guard built with ``identifiers=`` keeps exactly those: the store teaches it nothing."""
    guard = Guard.from_policy("bis", identifiers=["IS 269"])
    retriever = GuardedRetriever(retriever=store.as_retriever(search_kwargs={"k": 2}), guard=guard)
    assert _tier(retriever, HELD) != "identifier"
    assert guard.learn_identifiers([{"standard": "IS 1786"}]) == 0


def test_a_store_that_cannot_be_listed_teaches_through_its_retrieved_sets(
    embedder: MiniLMEmbedder,
) -> None:
    """Over Qdrant (not listed), a standard is learned once a retrieved set carried it."""
    docs = _documents()
    store = QdrantVectorStore.from_documents(
        docs, MiniLMEmbeddings(), location=":memory:", collection_name="bis"
    )
    retriever = GuardedRetriever(
        retriever=store.as_retriever(search_kwargs={"k": 2}), guard=Guard.from_policy("bis")
    )
    assert _tier(retriever, HELD) != "identifier"
    # A question whose search brings back the IS 1786 chunk.
    title = next(d.page_content for d in docs if d.metadata.get("standard") == "IS 1786")
    retriever.invoke(title)
    assert _tier(retriever, HELD) == "identifier"


def test_llama_index_retriever_learns_the_index_identifiers_at_first_use(
    embedder: MiniLMEmbedder,
) -> None:
    """The LlamaIndex GuardedRetriever reads the index's docstore at first use."""
    nodes = [TextNode(text=c.text, metadata=dict(c.metadata)) for c in load_corpus("bis")]
    index = VectorStoreIndex(nodes, embed_model=MiniLMEmbedding(embedder))
    guard = Guard.from_policy("bis")
    retriever = LlamaGuardedRetriever(index.as_retriever(similarity_top_k=2), guard)
    assert retriever.guarded_retrieve(HELD).result.query.tier == "identifier"
    assert retriever.guarded_retrieve(NOT_HELD).nodes == []


def test_a_guard_pickles_with_what_it_learned() -> None:
    """A worker's copy of the guard knows the identifiers learned before it was sent."""
    guard = Guard.from_policy("bis")
    assert guard.learn_identifiers([{"standard": "IS 1786"}, {"standard": "IS 1786"}]) == 1
    copy = pickle.loads(pickle.dumps(guard))
    assert copy.check(HELD, []).query.tier == "identifier"
    assert copy.check(NOT_HELD, []).query.tier != "identifier"


def test_a_guard_whose_callers_see_different_chunks_learns_nothing(tmp_path: Path) -> None:
    """With access attributes, a store-wide set would tell a caller which identifiers exist
    among chunks only others may see: such a guard learns nothing, and tier 2 reads only what
    was retrieved for the caller."""
    path = tmp_path / "tenants.yaml"
    path.write_text("version: 1\nname: tenants\nextends: [bis]\naccess: {attributes: [tenant]}\n")
    guard = Guard.from_policy(path)
    assert guard.learn_identifiers([{"standard": "IS 1786", "tenant": "other"}]) == 0
    assert guard.check(HELD, [], access={"tenant": ["mine"]}).query.tier != "identifier"


def test_a_guard_with_checks_of_its_own_learns_nothing() -> None:
    """A check given beside the policy may judge each caller apart (a tenant check): the
    guard learns no store-wide set, as with access attributes."""

    def same_tenant(chunk: Chunk, request: Request) -> str | None:
        return None if chunk.metadata.get("tenant") == "mine" else "another tenant's"

    guard = Guard.from_policy("bis", checks=[same_tenant])
    assert guard.learn_identifiers([{"standard": "IS 1786", "tenant": "other"}]) == 0
    assert guard.check(HELD, []).query.tier != "identifier"


def test_what_a_row_teaches_is_bounded_whatever_it_holds() -> None:
    """A row holding thousands of values, long strings or values of other types teaches only
    short strings, a bounded number per key of the row."""
    guard = Guard.from_policy("bis")
    flood = [f"IS {n}" for n in range(10_000, 60_000)]
    learned = guard.learn_identifiers(
        [
            {"standard": flood},
            {"standard": "IS " + "9" * 5_000},
            {"standard": {"nested": "IS 4711"}},
            {"standard": 4712.0},
            "not a mapping",  # type: ignore[list-item]
        ]
    )
    assert learned == VALUES_PER_KEY
    assert guard.check("IS 4711 scope", []).query.tier != "identifier"
    assert guard.check(f"{flood[-1]} scope", []).query.tier != "identifier"
