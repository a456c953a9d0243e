"""Tests that postprocessors a guarded engine runs after the guard report nothing of what they
add before the guard judged it: a ``PrevNextNodePostprocessor``'s neighbours reach no prompt,
instrumentation event or span, callback or log record unless the guard then kept them."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import pytest
from llama_index.core import VectorStoreIndex
from llama_index.core.postprocessor import PrevNextNodePostprocessor
from llama_index.core.postprocessor.types import BaseNodePostprocessor
from llama_index.core.schema import NodeRelationship, NodeWithScore, RelatedNodeInfo, TextNode
from llama_index_support import QUERY, DecisionRecorder, RecordingLLM, recording_events
from pydantic import Field

from rag_guard_integrations import Guard, RetrievalError
from rag_guard_integrations.llama_index import (
    GuardedQueryEngine,
    GuardPostprocessor,
    MiniLMEmbedding,
    aquery_with_access,
    guard_access,
    guarded_chat_engine,
    guarded_query_engine,
    query_with_access,
)
from rag_guard_integrations.llama_index.testing import InstrumentationRecorder

if TYPE_CHECKING:
    from collections.abc import Iterator

    from llama_index.core.schema import QueryBundle

    from rag_guard_integrations.embeddings import MiniLMEmbedder

logger = logging.getLogger(__name__)
MSA = {"principal": "alice", "contract_type": ["MSA"]}
KEPT = "Either party may terminate this Agreement on thirty (30) days' written notice."
NEIGHBOURS = {
    "sow-termination": (
        "The Customer may terminate this SOW on 45 days' written notice. Ref NEIGHBOUR-SOW-7731.",
        {"contract_type": "SOW", "clause_id": "TERMINATION_NOTICE"},
    ),
    "msa-law": (
        "This Agreement is governed by the laws of Delaware. Ref NEIGHBOUR-LAW-5519.",
        {"contract_type": "MSA", "clause_id": "GOVERNING_LAW"},
    ),
}
MARKERS = ("NEIGHBOUR-SOW-7731", "NEIGHBOUR-LAW-5519")


def chained_nodes() -> list[TextNode]:
    """SOW termination -> MSA termination -> MSA governing law, linked as previous/next."""
    first, last = (TextNode(id_=i, text=t, metadata=m) for i, (t, m) in NEIGHBOURS.items())
    middle = TextNode(
        id_="msa-termination",
        text=KEPT,
        metadata={"contract_type": "MSA", "clause_id": "TERMINATION_NOTICE"},
    )
    for before, after in ((first, middle), (middle, last)):
        before.relationships[NodeRelationship.NEXT] = RelatedNodeInfo(node_id=after.node_id)
        after.relationships[NodeRelationship.PREVIOUS] = RelatedNodeInfo(node_id=before.node_id)
    return [first, middle, last]


class LoggingPrevNext(PrevNextNodePostprocessor):
    """PrevNext that also logs the neighbours' text at DEBUG, as a custom postprocessor might."""

    def _postprocess_nodes(
        self, nodes: list[NodeWithScore], query_bundle: QueryBundle | None = None
    ) -> list[NodeWithScore]:
        found = super()._postprocess_nodes(nodes, query_bundle)
        logger.debug("neighbours: %s", [n.node.get_content() for n in found])
        return found


class Seen(BaseNodePostprocessor):
    """Keeps the text of every node it is handed (a stand-in for an LLM reranker)."""

    texts: list[str] = Field(default_factory=list)

    def _postprocess_nodes(
        self, nodes: list[NodeWithScore], query_bundle: QueryBundle | None = None
    ) -> list[NodeWithScore]:
        self.texts.extend(n.node.get_content() for n in nodes)
        return nodes


@pytest.fixture(scope="module")
def index(embedder: MiniLMEmbedder) -> VectorStoreIndex:
    return VectorStoreIndex(chained_nodes(), embed_model=MiniLMEmbedding(embedder))


@pytest.fixture(scope="module")
def guard() -> Guard:
    return Guard.from_policy("contracts")


@pytest.fixture
def decisions() -> Iterator[DecisionRecorder]:
    yield from recording_events()


def prev_next(index: VectorStoreIndex) -> LoggingPrevNext:
    return LoggingPrevNext(docstore=index.docstore, mode="both")


def engines(index: VectorStoreIndex, guard: Guard, llm: RecordingLLM) -> dict[str, Any]:
    """Both ways to put PrevNext after the guard in a query engine."""
    return {
        "guarded_query_engine": guarded_query_engine(
            index, guard, llm=llm, similarity_top_k=1, node_postprocessors=[prev_next(index)]
        ),
        "postprocessor": GuardedQueryEngine.from_args(
            index.as_retriever(similarity_top_k=1),
            llm=llm,
            node_postprocessors=[GuardPostprocessor(guard=guard), prev_next(index)],
        ),
    }


def leaked(texts: list[str]) -> list[str]:
    return [marker for marker in MARKERS if any(marker in text for text in texts)]


@pytest.mark.parametrize("path", ["guarded_query_engine", "postprocessor"])
@pytest.mark.parametrize("mode", ["sync", "async"])
async def test_neighbours_the_guard_withholds_leave_by_no_channel(
    index: VectorStoreIndex,
    guard: Guard,
    *,
    decisions: DecisionRecorder,
    caplog: pytest.LogCaptureFixture,
    path: str,
    mode: str,
) -> None:
    """PrevNext adds both neighbours after the guard; the second check withholds them, and
    neither reaches the LLM, an instrumentation event or span, a callback or a DEBUG record,
    while the kept clause does reach the LLM."""
    llm = RecordingLLM()
    engine = engines(index, guard, llm)[path]
    caplog.set_level(logging.DEBUG)
    with InstrumentationRecorder() as seen:
        if mode == "sync":
            response = query_with_access(engine, QUERY, MSA)
        else:
            response = await aquery_with_access(engine, QUERY, MSA)
    assert [n.node.node_id for n in response.source_nodes] == ["msa-termination"]
    assert any(KEPT in prompt for prompt in llm.prompts)
    assert leaked(llm.prompts) == []
    assert leaked(seen.texts) == []
    assert leaked([record.getMessage() for record in caplog.records]) == []
    second = decisions.events[-1]
    assert sorted(second.denied_node_ids) == sorted(NEIGHBOURS)


def test_a_postprocessor_after_prev_next_sees_only_judged_nodes(
    index: VectorStoreIndex, guard: Guard
) -> None:
    """The guard judges each post-guard postprocessor's output before the next one runs, so a
    reranker placed after PrevNext never sees a neighbour the guard withholds."""
    seen = Seen()
    engine = guarded_query_engine(
        index,
        guard,
        llm=RecordingLLM(),
        similarity_top_k=1,
        node_postprocessors=[prev_next(index), seen],
    )
    query_with_access(engine, QUERY, MSA)
    assert seen.texts == [KEPT]


def test_a_neighbour_the_caller_may_see_is_kept_and_reported(
    index: VectorStoreIndex, guard: Guard, decisions: DecisionRecorder
) -> None:
    """For a caller who may see SOW too, the SOW neighbour passes the second check and is
    reported and sent like any kept node: only the unjudged output is silenced."""
    llm = RecordingLLM()
    engine = engines(index, guard, llm)["guarded_query_engine"]
    with InstrumentationRecorder() as seen:
        query_with_access(engine, QUERY, {"contract_type": ["MSA", "SOW"]})
    assert leaked(llm.prompts) == ["NEIGHBOUR-SOW-7731"]
    assert "NEIGHBOUR-LAW-5519" not in "\n".join(seen.texts)
    assert "sow-termination" in decisions.events[-1].allowed_node_ids


def test_chat_post_guard_postprocessors_are_silenced_too(
    index: VectorStoreIndex, guard: Guard
) -> None:
    """A chat engine's ``node_postprocessors`` run the same way: no neighbour in the prompt or
    in instrumentation."""
    llm = RecordingLLM()
    chat = guarded_chat_engine(
        index,
        guard,
        "context",
        llm=llm,
        similarity_top_k=1,
        node_postprocessors=[prev_next(index)],
    )
    with InstrumentationRecorder() as seen, guard_access(MSA):
        chat.chat(QUERY)
    assert any(KEPT in prompt for prompt in llm.prompts)
    assert leaked(llm.prompts) == []
    assert leaked(seen.texts) == []


async def _aquery_sync(engine: Any, query: str, access: Any) -> Any:
    """The sync ``query_with_access``, awaitable beside its async twin."""
    return query_with_access(engine, query, access)


class Failing(PrevNextNodePostprocessor):
    """PrevNext whose failure quotes the neighbours it fetched, as a parser error might."""

    def _postprocess_nodes(
        self, nodes: list[NodeWithScore], query_bundle: QueryBundle | None = None
    ) -> list[NodeWithScore]:
        found = super()._postprocess_nodes(nodes, query_bundle)
        raise ValueError(f"cannot order {[n.node.get_content() for n in found]}")


@pytest.mark.parametrize("mode", ["sync", "async"])
async def test_a_failing_post_guard_postprocessor_quotes_nothing(
    index: VectorStoreIndex, guard: Guard, mode: str
) -> None:
    """A postprocessor that raises with the neighbours' text in its message fails the query
    with a ``RetrievalError`` naming only the postprocessor and the exception's type; no
    handler sees the text either."""
    engine = guarded_query_engine(
        index,
        guard,
        llm=RecordingLLM(),
        similarity_top_k=1,
        node_postprocessors=[Failing(docstore=index.docstore, mode="both")],
    )
    with InstrumentationRecorder() as seen, pytest.raises(RetrievalError) as raised:
        await (aquery_with_access if mode == "async" else _aquery_sync)(engine, QUERY, MSA)
    message = str(raised.value)
    assert message.startswith("GuardedQueryEngine: the postprocessor Failing raised ValueError")
    assert leaked([message]) == []
    assert raised.value.__context__ is None
    assert leaked(seen.texts) == []
