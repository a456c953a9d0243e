"""Tests that the inner retriever's DEBUG log of its candidates stays silent inside a guarded
fetch, for that request only: the logger keeps its level and logs outside the guard."""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING

import pytest
from llama_index.core import VectorStoreIndex
from llama_index.core.schema import TextNode
from llama_index.core.vector_stores import FilterCondition, MetadataFilter, MetadataFilters

from rag_guard_integrations import Guard, parse_policy
from rag_guard_integrations.llama_index import (
    MiniLMEmbedding,
    aquery_with_access,
    guarded_query_engine,
    query_with_access,
)
from rag_guard_integrations.llama_index.testing import RecordingLLM

if TYPE_CHECKING:
    from rag_guard_integrations.embeddings import MiniLMEmbedder

CANARY = "CANARYZEBRA"
POLICY = "version: 1\nname: tenant\nextends: [default]\naccess: {attributes: [tenant]}\n"
RESULT_LOGGER = "llama_index.core.indices.utils"
BOTH = MetadataFilters(
    filters=[MetadataFilter(key="tenant", value="a"), MetadataFilter(key="tenant", value="b")],
    condition=FilterCondition.OR,
)


@pytest.fixture(scope="module")
def index(embedder: MiniLMEmbedder) -> VectorStoreIndex:
    nodes = [
        TextNode(id_="a1", text="Public note about widgets.", metadata={"tenant": "a"}),
        TextNode(id_="b1", text=f"Tenant b secret {CANARY} plan.", metadata={"tenant": "b"}),
    ]
    return VectorStoreIndex(nodes, embed_model=MiniLMEmbedding(embedder))


def test_the_inner_retrievers_candidate_log_is_silent_for_a_guarded_query(
    index: VectorStoreIndex, caplog: pytest.LogCaptureFixture
) -> None:
    """With the caller's OR filters (no pushdown) the denied candidate is fetched, but its
    text is not in the DEBUG log; the same logger still logs a plain retrieval afterwards."""
    engine = guarded_query_engine(
        index, Guard(parse_policy(POLICY)), llm=RecordingLLM(), similarity_top_k=2, filters=BOTH
    )
    caplog.set_level(logging.DEBUG)
    response = query_with_access(engine, "widgets?", {"tenant": ["a"]})
    assert [n.node.node_id for n in response.source_nodes] == ["a1"]
    assert CANARY not in caplog.text
    assert logging.getLogger(RESULT_LOGGER).getEffectiveLevel() == logging.DEBUG
    index.as_retriever(similarity_top_k=2).retrieve("widgets?")
    assert CANARY in caplog.text


async def test_async_guarded_query_keeps_the_candidate_log_silent(
    index: VectorStoreIndex, caplog: pytest.LogCaptureFixture
) -> None:
    """The async path silences the same log."""
    engine = guarded_query_engine(
        index, Guard(parse_policy(POLICY)), llm=RecordingLLM(), similarity_top_k=2, filters=BOTH
    )
    caplog.set_level(logging.DEBUG)
    response = await aquery_with_access(engine, "widgets?", {"tenant": ["a"]})
    assert [n.node.node_id for n in response.source_nodes] == ["a1"]
    assert CANARY not in caplog.text


def test_another_thread_logs_while_a_guarded_fetch_runs(
    index: VectorStoreIndex, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The silence is bound to the guarded request's context: a record another thread logs on
    the same logger during the guarded fetch is kept."""
    logger = logging.getLogger(RESULT_LOGGER)
    original = logger.debug
    marks: list[threading.Thread] = []

    def debug_and_log_elsewhere(message: object, *args: object) -> None:
        thread = threading.Thread(target=original, args=("other request says hello",))
        thread.start()
        thread.join()
        marks.append(thread)
        original(message, *args)

    engine = guarded_query_engine(
        index, Guard(parse_policy(POLICY)), llm=RecordingLLM(), similarity_top_k=2, filters=BOTH
    )
    caplog.set_level(logging.DEBUG)
    monkeypatch.setattr(logger, "debug", debug_and_log_elsewhere)
    query_with_access(engine, "widgets?", {"tenant": ["a"]})
    assert marks
    assert "other request says hello" in caplog.text
    assert CANARY not in caplog.text
