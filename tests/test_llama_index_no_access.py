"""Tests for explicit "no access": a request that says its caller has no access (None, ``{}``,
``NO_ACCESS``) gets nothing and the refusal, whatever access the component was built with."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
from llama_index_support import QUERY, REFUSAL, contracts_index

from rag_guard_integrations import AccessContext, Guard
from rag_guard_integrations.llama_index import (
    NO_ACCESS,
    GuardedQueryEngine,
    GuardedRetriever,
    GuardPostprocessor,
    aquery_with_access,
    guard_access,
    guarded_chat_engine,
    guarded_query_engine,
    query_with_access,
)
from rag_guard_integrations.llama_index.testing import RecordingLLM

if TYPE_CHECKING:
    from llama_index.core import VectorStoreIndex

    from rag_guard_integrations.embeddings import MiniLMEmbedder

BROAD = {"contract_type": ["MSA", "SOW", "NDA", "DPA", "CHANNEL"]}
NOBODY: list[Any] = [
    NO_ACCESS,
    {},
    None,
    {"principal": "anonymous"},
    AccessContext(principal="x"),
]


@pytest.fixture(scope="module")
def index(embedder: MiniLMEmbedder) -> VectorStoreIndex:
    return contracts_index(embedder)


@pytest.fixture(scope="module")
def guard() -> Guard:
    return Guard.from_policy("contracts")


def broad_engines(index: VectorStoreIndex, guard: Guard, llm: RecordingLLM) -> list[Any]:
    """Every guarded engine kind, each built with access to every contract type."""
    return [
        guarded_query_engine(index, guard, BROAD, llm=llm),
        GuardedQueryEngine.from_args(
            index.as_retriever(),
            llm=llm,
            node_postprocessors=[GuardPostprocessor(guard=guard, access=BROAD)],
        ),
    ]


@pytest.mark.parametrize(
    "nobody", NOBODY, ids=["NO_ACCESS", "empty", "None", "principal", "context"]
)
def test_no_access_overrides_a_broad_default(
    index: VectorStoreIndex, guard: Guard, nobody: Any
) -> None:
    """Each engine answers an explicit no-access request with the refusal, without an LLM call."""
    llm = RecordingLLM()
    for engine in broad_engines(index, guard, llm):
        response = query_with_access(engine, QUERY, nobody)
        assert str(response) == REFUSAL
        assert response.source_nodes == []
    assert llm.prompts == []


async def test_async_no_access_overrides_a_broad_default(
    index: VectorStoreIndex, guard: Guard
) -> None:
    """The async engines refuse an explicit no-access request in the same way."""
    llm = RecordingLLM()
    for engine in broad_engines(index, guard, llm):
        assert str(await aquery_with_access(engine, QUERY, NO_ACCESS)) == REFUSAL
    assert llm.prompts == []


def test_a_request_with_no_block_uses_the_default(index: VectorStoreIndex, guard: Guard) -> None:
    """Only a request with no ``guard_access`` block at all gets the component's default."""
    llm = RecordingLLM(echo=True)
    for engine in broad_engines(index, guard, llm):
        assert str(engine.query(QUERY)) != REFUSAL
    assert llm.prompts


def test_no_access_retrieves_nothing(index: VectorStoreIndex, guard: Guard) -> None:
    """A GuardedRetriever with a broad default returns nothing under ``guard_access({})``."""
    retriever = GuardedRetriever(index.as_retriever(), guard, access=BROAD)
    assert retriever.retrieve(QUERY)
    with guard_access({}):
        checked = retriever.guarded_retrieve(QUERY)
    assert checked.nodes == []
    assert checked.refusal == REFUSAL


async def test_no_access_chat_gets_the_refusal(index: VectorStoreIndex, guard: Guard) -> None:
    """A chat engine with a broad default refuses an explicit no-access caller, sync and async."""
    llm = RecordingLLM()
    chat = guarded_chat_engine(index, guard, "context", llm=llm, access=BROAD)
    with guard_access(NO_ACCESS):
        assert chat.chat(QUERY).response == REFUSAL
    async with guard_access({}):
        assert (await chat.achat(QUERY)).response == REFUSAL
    assert llm.prompts == []
