"""A request's result and records say what it handed on: of ``fetch_k`` candidates the guard
allows, the ones beyond the ``k`` a retriever returns are decided at the ``limit`` stage, so
``result.allowed``, the summary, the audit record and the framework's event all count the ``k``
chunks that reached the model, in LangChain, LlamaIndex and Haystack."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from haystack import Document as HaystackDocument
from haystack.components.retrievers.in_memory import InMemoryBM25Retriever
from haystack.document_stores.in_memory import InMemoryDocumentStore
from langchain_core.documents import Document
from langchain_support import ListRetriever
from llama_index.core import VectorStoreIndex
from llama_index.core.schema import TextNode
from llama_index_support import RecordingLLM

from rag_guard_integrations import ContextBlocked, Guard, parse_policy
from rag_guard_integrations.adapters import guard_access
from rag_guard_integrations.adapters.listen import guard_results
from rag_guard_integrations.haystack import GuardedDocuments
from rag_guard_integrations.haystack import GuardedRetriever as HaystackRetriever
from rag_guard_integrations.langchain import GuardedRetriever
from rag_guard_integrations.llama_index import MiniLMEmbedding, guarded_query_engine

if TYPE_CHECKING:
    from rag_guard_integrations.core.decisions import GuardResult
    from rag_guard_integrations.embeddings import MiniLMEmbedder

pytestmark = pytest.mark.unit

POLICY = "version: 1\nname: handbook\naccess: {attributes: [department]}\n"
ACCESS = {"department": ["engineering"]}
TEXTS = [f"Deploy note {i}: production deploys are frozen in December." for i in range(6)]


@pytest.fixture(scope="module")
def guard() -> Guard:
    return Guard(parse_policy(POLICY))


def _sent_as_recorded(result: GuardResult, sent: list[str]) -> None:
    assert [chunk.id for chunk in result.allowed] == sent
    assert result.summary()["allowed"] == len(sent)
    rows = result.audit()["chunks"]
    assert [row["id"] for row in rows if row["decision"] == "allow"] == sent
    beyond = [row for row in rows if row["stage"] == "limit"]
    assert len(beyond) == len(TEXTS) - len(sent)
    assert all(row["decision"] == "deny" and row["enforced"] for row in beyond)


def test_langchain_records_the_k_documents_it_returns(guard: Guard) -> None:
    documents = [
        Document(text, metadata={"department": "engineering"}, id=f"e{i}")
        for i, text in enumerate(TEXTS)
    ]
    retriever = GuardedRetriever(retriever=ListRetriever(documents=documents), guard=guard, k=2)
    with guard_results() as results:
        returned = retriever.invoke("When are deploys frozen?", access=ACCESS)
    assert [d.id for d in returned] == ["e0", "e1"]
    _sent_as_recorded(results[-1], ["e0", "e1"])
    report = retriever.with_result().invoke(
        "When are deploys frozen?", config={"configurable": {"access": ACCESS}}
    )["result"]
    assert report.summary["allowed"] == 2


def test_llama_index_records_the_top_k_nodes_the_llm_reads(
    guard: Guard, embedder: MiniLMEmbedder
) -> None:
    nodes = [
        TextNode(text=text, id_=f"e{i}", metadata={"department": "engineering"})
        for i, text in enumerate(TEXTS)
    ]
    index = VectorStoreIndex(nodes, embed_model=MiniLMEmbedding(embedder))
    engine = guarded_query_engine(index, guard, llm=RecordingLLM(), similarity_top_k=2)
    with guard_results() as results, guard_access(ACCESS):
        answer = engine.query("When are deploys frozen?")
    sent = [n.node.node_id for n in answer.source_nodes]
    assert len(sent) == 2
    _sent_as_recorded(results[-1], sent)


def test_haystack_records_the_top_k_documents_it_hands_on(guard: Guard) -> None:
    store = InMemoryDocumentStore()
    store.write_documents(
        [
            HaystackDocument(id=f"e{i}", content=text, meta={"department": "engineering"})
            for i, text in enumerate(TEXTS)
        ]
    )
    retriever = HaystackRetriever(InMemoryBM25Retriever(store), guard, top_k=2, fetch_k=6)
    with guard_results() as results:
        documents = retriever.run(query="When are deploys frozen?", access=ACCESS)["documents"]
    sent = [d.id for d in documents]
    assert len(sent) == 2
    _sent_as_recorded(results[-1], sent)


RAISING = """
version: 1
name: cards
on_block: raise
labels: {payment_card: {}}
classifiers: {builtin: {credit_card: payment_card}}
rules:
  - {name: no_cards, action: block, trigger: {all_present: [payment_card]}}
"""
NOTES = ["Plain note zero.", "Card 4111 1111 1111 1111 on file.", "Plain note two."]


def test_a_request_that_raises_on_a_block_records_that_it_handed_on_nothing() -> None:
    """Under ``on_block: raise`` LangChain raises and Haystack answers the refusal: the result
    each publishes refuses, with every chunk denied, and the exception keeps the evaluation."""
    guard = Guard(parse_policy(RAISING))
    documents = [Document(text, id=f"n{i}") for i, text in enumerate(NOTES)]
    retriever = GuardedRetriever(retriever=ListRetriever(documents=documents), guard=guard, k=1)
    with guard_results() as results, pytest.raises(ContextBlocked) as raised:
        retriever.invoke("the notes?")
    given = [HaystackDocument(id=f"n{i}", content=text) for i, text in enumerate(NOTES)]
    with guard_results() as heard:
        assert "refusal" in GuardedDocuments(guard, top_k=1).run("the notes?", given)
    for result in (results[-1], heard[-1]):
        assert result.allowed == []
        assert result.refusal is not None
        assert {row["decision"] for row in result.audit()["chunks"]} == {"deny"}
        assert result.audit()["refused"] is True
    assert [v.rule for v in raised.value.result.violations] == ["no_cards"]
    assert len(raised.value.result.allowed) == 2
