"""Tests that the LangChain and LlamaIndex adapters hand on copies with the masked text."""

from __future__ import annotations

import copy

import pytest
from langchain_core.documents import Document
from llama_index.core.schema import MetadataMode, NodeWithScore, TextNode
from llama_index_support import REDACT_POLICY

from rag_guard_integrations import Guard, parse_policy
from rag_guard_integrations.langchain import GuardCompressor
from rag_guard_integrations.llama_index import GuardPostprocessor

EMAIL = "bob.stone@example.com"
MASKED = "Write to [CONTACT_DETAILS] today."


@pytest.fixture(scope="module")
def guard() -> Guard:
    return Guard(parse_policy(REDACT_POLICY))


async def test_langchain_compressor_returns_a_masked_copy(guard: Guard) -> None:
    """The compressor returns a new Document with the masked text; the caller's stays as it was."""
    docs = [
        Document(f"Write to {EMAIL} today.", metadata={"team": "sales"}, id="d1"),
        Document("Offices open at nine.", id="d2"),
    ]
    before = copy.deepcopy(docs)
    compressor = GuardCompressor(guard=guard)
    for kept in (
        compressor.compress_documents(docs, "q"),
        await compressor.acompress_documents(docs, "q"),
    ):
        masked, plain = kept
        assert (masked.page_content, masked.id, masked.metadata) == (
            MASKED,
            "d1",
            {"team": "sales"},
        )
        assert masked is not docs[0]
        assert plain is docs[1]
    assert docs == before


async def test_llama_index_postprocessor_returns_a_masked_copy(guard: Guard) -> None:
    """The postprocessor returns a new node with the masked text; the LLM never sees the email."""
    nodes = [
        NodeWithScore(node=TextNode(text=f"Write to {EMAIL} today.", id_="n1"), score=0.8),
        NodeWithScore(node=TextNode(text="Offices open at nine.", id_="n2"), score=0.5),
    ]
    before = copy.deepcopy(nodes)
    postprocessor = GuardPostprocessor(guard=guard)
    for kept in (
        postprocessor.postprocess_nodes(nodes, query_str="q"),
        await postprocessor.apostprocess_nodes(nodes, query_str="q"),
    ):
        masked, plain = kept
        assert masked.node.get_content(metadata_mode=MetadataMode.LLM) == MASKED
        assert (masked.node.node_id, masked.score) == ("n1", 0.8)
        assert masked.node is not nodes[0].node
        assert plain is nodes[1]
    assert [n.node.get_content() for n in nodes] == [n.node.get_content() for n in before]
