"""Tests that a GuardedRetriever over a composite retriever (fusion, router, and a recursive one
following an IndexNode to its sub-retriever) keeps every node its sub-retrievers fetched out of
instrumentation events, spans and callbacks, in this request only, sync and async."""

from __future__ import annotations

import asyncio
import logging
import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pytest
from llama_index.core import VectorStoreIndex
from llama_index.core.base.base_retriever import BaseRetriever
from llama_index.core.base.base_selector import BaseSelector, SelectorResult, SingleSelection
from llama_index.core.callbacks import CallbackManager
from llama_index.core.indices.vector_store.retrievers import VectorIndexRetriever
from llama_index.core.query_engine import RetrieverQueryEngine
from llama_index.core.retrievers import QueryFusionRetriever, RecursiveRetriever, RouterRetriever
from llama_index.core.schema import IndexNode, NodeWithScore
from llama_index.core.tools import RetrieverTool
from llama_index_support import MSA, MSA_CLAUSE, QUERY, SOW_CLAUSE, contracts_index

from rag_guard_integrations import Guard, RetrievalError, parse_policy
from rag_guard_integrations.core.errors import AdapterConfigError, ArgumentError
from rag_guard_integrations.llama_index import (
    GuardedRetriever,
    MiniLMEmbedding,
    guard_access,
    guarded_chat_engine,
    quiet,
)
from rag_guard_integrations.llama_index.testing import (
    CallbackRecorder,
    InstrumentationRecorder,
    RecordingLLM,
)

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Sequence

    from llama_index.core.schema import QueryBundle
    from llama_index.core.tools.types import ToolMetadata

    from rag_guard_integrations.embeddings import MiniLMEmbedder


class FirstChoice(BaseSelector):
    """Picks the first retriever, as an LLM selector with one good choice would."""

    def _get_prompts(self) -> dict[str, Any]:
        return {}

    def _update_prompts(self, prompts: Any) -> None:
        """No prompts to update."""

    def _select(self, choices: Sequence[ToolMetadata], query: QueryBundle) -> SelectorResult:
        return SelectorResult(selections=[SingleSelection(index=0, reason="first")])

    async def _aselect(self, choices: Sequence[ToolMetadata], query: QueryBundle) -> SelectorResult:
        return self._select(choices, query)


@pytest.fixture(scope="module")
def index(embedder: MiniLMEmbedder) -> VectorStoreIndex:
    return contracts_index(embedder)


@pytest.fixture(scope="module")
def embed(embedder: MiniLMEmbedder) -> MiniLMEmbedding:
    return MiniLMEmbedding(embedder)


@pytest.fixture(scope="module")
def guard() -> Guard:
    return Guard.from_policy("contracts")


@pytest.fixture
def seen() -> Iterator[InstrumentationRecorder]:
    with InstrumentationRecorder() as recorder:
        yield recorder


def fusion(sub: BaseRetriever, embed: MiniLMEmbedding) -> BaseRetriever:
    return QueryFusionRetriever([sub], llm=RecordingLLM(), num_queries=1, similarity_top_k=8)


def router(sub: BaseRetriever, embed: MiniLMEmbedding) -> BaseRetriever:
    tool = RetrieverTool.from_defaults(sub, description="contract clauses")
    return RouterRetriever(selector=FirstChoice(), retriever_tools=[tool], llm=RecordingLLM())


def recursive(sub: BaseRetriever, embed: MiniLMEmbedding) -> BaseRetriever:
    link = IndexNode(id_="link", text="Contract clauses", index_id="clauses")
    root = VectorStoreIndex([link], embed_model=embed).as_retriever(similarity_top_k=1)
    return RecursiveRetriever("root", retriever_dict={"root": root, "clauses": sub})


COMPOSITES = {"fusion": fusion, "router": router, "recursive": recursive}


# The start of the SOW clause, as the candidate log shortens it.
SOW_LOGGED = "terminate this Statement of Work for convenience"


@dataclass
class Composites:
    """Builds each composite over a sub-retriever that fetches SOW clauses an MSA caller may
    not see, and that reports to ``own`` through a callback manager of its own."""

    index: VectorStoreIndex
    embed: MiniLMEmbedding
    own: CallbackRecorder = field(default_factory=CallbackRecorder)

    def build(self, name: str) -> BaseRetriever:
        manager = CallbackManager([self.own])
        sub = VectorIndexRetriever(self.index, similarity_top_k=8, callback_manager=manager)
        return COMPOSITES[name](sub, self.embed)

    def reported(self, seen: InstrumentationRecorder) -> str:
        """Everything every handler, the sub-retriever's own included, was shown."""
        return "\n".join([*seen.texts, *self.own.texts])


@pytest.fixture
def composites(index: VectorStoreIndex, embed: MiniLMEmbedding) -> Composites:
    return Composites(index, embed)


@pytest.mark.parametrize("name", sorted(COMPOSITES))
def test_the_sub_retrievers_fetch_the_withheld_clause_when_unguarded(
    composites: Composites, name: str
) -> None:
    """Each composite, unguarded, returns the SOW clause (so the tests below can fail)."""
    nodes = composites.build(name).retrieve(QUERY)
    assert any(SOW_CLAUSE in n.node.get_content() for n in nodes)


@pytest.mark.parametrize("name", sorted(COMPOSITES))
def test_withheld_nodes_of_sub_retrievers_reach_no_handler(
    composites: Composites, guard: Guard, seen: InstrumentationRecorder, name: str
) -> None:
    """Events, span arguments and results, global and per-object callbacks carry the kept MSA
    clause (reported by the GuardedRetriever itself) and nothing of the withheld SOW clause."""
    guarded = GuardedRetriever(composites.build(name), guard)
    with guard_access(MSA):
        kept = guarded.retrieve(QUERY)
    assert any(MSA_CLAUSE in n.node.get_content() for n in kept)
    text = composites.reported(seen)
    assert MSA_CLAUSE in text
    assert "RetrievalEndEvent" in text
    assert SOW_CLAUSE not in text


@pytest.mark.parametrize("name", sorted(COMPOSITES))
async def test_async_retrieval_keeps_withheld_nodes_from_every_handler(
    composites: Composites, guard: Guard, seen: InstrumentationRecorder, name: str
) -> None:
    """``aretrieve`` over each composite is as quiet about the SOW clause as ``retrieve``."""
    guarded = GuardedRetriever(composites.build(name), guard)
    async with guard_access(MSA):
        kept = await guarded.aretrieve(QUERY)
    assert any(MSA_CLAUSE in n.node.get_content() for n in kept)
    text = composites.reported(seen)
    assert MSA_CLAUSE in text
    assert SOW_CLAUSE not in text


@pytest.mark.parametrize("asynchronous", [False, True])
async def test_chat_over_a_fusion_retriever_reports_only_kept_nodes(
    composites: Composites, guard: Guard, seen: InstrumentationRecorder, asynchronous: bool
) -> None:
    """``guarded_chat_engine(fusion, ...)``: neither the prompt nor any handler sees the SOW
    clause, and the prompt has the MSA clause."""
    llm = RecordingLLM()
    chat = guarded_chat_engine(composites.build("fusion"), guard, "context", llm=llm)
    with guard_access({"principal": "alice", **MSA}):
        if asynchronous:
            await chat.achat(QUERY)
        else:
            chat.chat(QUERY)
    assert any(MSA_CLAUSE in p for p in llm.prompts)
    assert all(SOW_CLAUSE not in p for p in llm.prompts)
    assert SOW_CLAUSE not in composites.reported(seen)


class HandsOff(BaseRetriever):
    """Runs ``other`` while its own fetch is under way: in a plain thread (no copied context)
    when sync, in a task started outside the fetch when async; then returns ``inner``'s nodes."""

    def __init__(self, inner: BaseRetriever, other: Callable[[], Any]) -> None:
        super().__init__()
        self._inner, self._other = inner, other
        self.inside = asyncio.Event()
        self.done = asyncio.Event()

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        thread = threading.Thread(target=self._other)
        thread.start()
        thread.join()
        return self._inner.retrieve(query_bundle)

    async def _aretrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        self.inside.set()
        await self.done.wait()
        return await self._inner.aretrieve(query_bundle)


def test_another_thread_keeps_its_instrumentation_during_a_guarded_fetch(
    index: VectorStoreIndex, guard: Guard, seen: InstrumentationRecorder
) -> None:
    """A plain retrieval in another thread, while the guarded fetch runs, is still reported."""
    plain = index.as_retriever(similarity_top_k=8)
    guarded = GuardedRetriever(HandsOff(plain, lambda: plain.retrieve(QUERY)), guard)
    with guard_access(MSA):
        guarded.retrieve(QUERY)
    assert SOW_CLAUSE in "\n".join(seen.texts)


async def test_a_concurrent_task_keeps_its_instrumentation_during_a_guarded_fetch(
    index: VectorStoreIndex, guard: Guard, seen: InstrumentationRecorder
) -> None:
    """A plain ``aretrieve`` in another task, while the guarded fetch waits, is still reported;
    the guarded fetch itself reports nothing of the SOW clause."""
    plain = index.as_retriever(similarity_top_k=8)
    hands_off = HandsOff(plain, lambda: None)
    guarded = GuardedRetriever(hands_off, guard)

    async def other() -> list[NodeWithScore]:
        await hands_off.inside.wait()
        nodes = await plain.aretrieve(QUERY)
        hands_off.done.set()
        return nodes

    async def guarded_call() -> list[NodeWithScore]:
        async with guard_access(MSA):
            return await guarded.aretrieve(QUERY)

    other_nodes, _ = await asyncio.gather(other(), guarded_call())
    assert any(SOW_CLAUSE in n.node.get_content() for n in other_nodes)
    assert SOW_CLAUSE in "\n".join(seen.texts)


def test_a_recursive_retriever_running_a_query_engine_is_refused(
    index: VectorStoreIndex, embed: MiniLMEmbedding, guard: Guard
) -> None:
    """A query engine inside the fetch would send unchecked clauses to its LLM: the request is
    refused before that LLM is called."""
    llm = RecordingLLM()
    engine = RetrieverQueryEngine.from_args(index.as_retriever(similarity_top_k=8), llm=llm)
    link = IndexNode(id_="link", text="Contract clauses", index_id="clauses")
    root = VectorStoreIndex([link], embed_model=embed).as_retriever(similarity_top_k=1)
    inner = RecursiveRetriever(
        "root", retriever_dict={"root": root}, query_engine_dict={"clauses": engine}
    )
    with guard_access(MSA), pytest.raises(AdapterConfigError, match="query engine"):
        GuardedRetriever(inner, guard).retrieve(QUERY)
    assert llm.prompts == []


@pytest.mark.parametrize("name", sorted(COMPOSITES))
def test_the_sub_retrievers_debug_log_is_silent_for_a_guarded_fetch(
    composites: Composites, guard: Guard, caplog: pytest.LogCaptureFixture, name: str
) -> None:
    """The sub-retriever's DEBUG candidate list holds the SOW clause unguarded, and not while
    a GuardedRetriever fetches through the composite."""
    caplog.set_level(logging.DEBUG)
    with guard_access(MSA):
        GuardedRetriever(composites.build(name), guard).retrieve(QUERY)
    assert SOW_LOGGED not in caplog.text
    composites.build(name).retrieve(QUERY)
    assert SOW_LOGGED in caplog.text


def test_a_llama_index_without_a_gate_point_refuses_the_fetch(
    composites: Composites, guard: Guard, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where the installed llama-index lacks a method every report goes through, the guarded
    fetch is refused rather than run unsilenced."""
    monkeypatch.setattr(quiet, "_INSTALLED", [])
    monkeypatch.setattr(quiet, "_DISPATCHER_METHODS", ("event", "span_leave"))
    with guard_access(MSA), pytest.raises(AdapterConfigError, match=r"Dispatcher\.span_leave"):
        GuardedRetriever(composites.build("fusion"), guard).retrieve(QUERY)


def test_k_caps_what_a_composite_returns(composites: Composites) -> None:
    """Over a composite that fetches eight candidates, ``k`` bounds the allowed nodes returned
    (without it, the composite's own ``similarity_top_k`` does), the best first."""
    access_only = Guard(
        parse_policy("version: 1\nname: msa\naccess: {attributes: [contract_type]}")
    )
    with guard_access(MSA):
        every = GuardedRetriever(composites.build("fusion"), access_only).retrieve(QUERY)
        capped = GuardedRetriever(composites.build("fusion"), access_only, k=1).retrieve(QUERY)
    assert len(every) > 1
    assert [n.node.node_id for n in capped] == [every[0].node.node_id]


@pytest.mark.parametrize("k", [0, -1, True, 1.5])
def test_a_k_that_is_no_positive_int_is_refused(
    composites: Composites, guard: Guard, k: Any
) -> None:
    """``k`` must be a positive int; the error names it."""
    with pytest.raises(ArgumentError, match=r"^k must be a positive int"):
        GuardedRetriever(composites.build("fusion"), guard, k=k)


class Failing(BaseRetriever):
    """A retriever whose error quotes the node it choked on, as some store errors do."""

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        raise ValueError(f"cannot decode node: {SOW_CLAUSE}")


async def test_an_inner_retrievers_error_reaches_no_handler_with_its_text(
    guard: Guard, seen: InstrumentationRecorder
) -> None:
    """The inner retriever's exception becomes a RetrievalError naming only its type, sync and
    async: no span or event (the GuardedRetriever's own dropped span included) and not the
    caller see the node text its message quoted, and nothing is returned."""
    guarded = GuardedRetriever(Failing(), guard)
    with guard_access(MSA), pytest.raises(RetrievalError) as raised:
        guarded.retrieve(QUERY)
    async with guard_access(MSA):
        with pytest.raises(RetrievalError) as araised:
            await guarded.aretrieve(QUERY)
    for error in (raised.value, araised.value):
        assert "raised ValueError" in str(error)
        assert error.__context__ is None
        assert error.__cause__ is None
    text = "\n".join(seen.texts)
    assert "RetrievalError" in text
    assert SOW_CLAUSE not in text


class Chatty(BaseRetriever):
    """A retriever that logs each node it found through the application's own logger."""

    def __init__(self, inner: BaseRetriever) -> None:
        super().__init__()
        self.inner = inner

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        nodes = self.inner.retrieve(query_bundle)
        for node in nodes:
            logging.getLogger("app.search.hits").info("hit: %s", node.node.get_content())
        return nodes


def test_an_application_logger_inside_the_fetch_is_silent(
    composites: Composites, guard: Guard, caplog: pytest.LogCaptureFixture
) -> None:
    """Records of a logger the package knows nothing of, propagating to the root, are dropped
    while the fetch runs, and heard again after it."""
    chatty = Chatty(composites.build("fusion"))
    with caplog.at_level(logging.INFO), guard_access(MSA):
        kept = GuardedRetriever(chatty, guard).retrieve(QUERY)
    assert kept
    assert SOW_CLAUSE not in caplog.text
    with caplog.at_level(logging.INFO):
        chatty.retrieve(QUERY)
    assert SOW_CLAUSE in caplog.text
