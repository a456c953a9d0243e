"""Tests for the guarded query engines: the authorised clause reaches the LLM, and a rejected
query or an empty context is answered with the refusal without any LLM call."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

import pytest
from llama_index.core.base.response.schema import AsyncStreamingResponse, StreamingResponse
from llama_index.core.postprocessor.types import BaseNodePostprocessor
from llama_index.core.schema import NodeWithScore, QueryBundle
from llama_index_support import (
    MSA,
    MSA_CLAUSE,
    QUERY,
    REFUSAL,
    SOW,
    SOW_CLAUSE,
    RecordingLLM,
    contracts_index,
)
from pydantic import Field

from rag_guard_integrations import Guard
from rag_guard_integrations.llama_index import (
    GuardedQueryEngine,
    GuardedRetriever,
    GuardPostprocessor,
    aquery_with_access,
    guarded_query_engine,
    query_with_access,
)

if TYPE_CHECKING:
    from pathlib import Path

    from llama_index.core import VectorStoreIndex

    from rag_guard_integrations.embeddings import MiniLMEmbedder

DOMAIN = """
version: 1
domain:
  blocklist: [bitcoin, pizza]
  min_similarity: 0.3
  refusal: Only questions about these contracts can be answered.
"""
DOMAIN_REFUSAL = "Only questions about these contracts can be answered."


@pytest.fixture(scope="session")
def index(embedder: MiniLMEmbedder) -> VectorStoreIndex:
    return contracts_index(embedder)


@pytest.fixture(scope="session")
def guard() -> Guard:
    return Guard.from_policy("contracts")


@pytest.fixture(scope="session")
def domain_guard(tmp_path_factory: pytest.TempPathFactory, embedder: MiniLMEmbedder) -> Guard:
    """The contracts policy merged with a domain section that rejects off-topic queries."""
    path: Path = tmp_path_factory.mktemp("policies") / "domain.yaml"
    path.write_text(DOMAIN, encoding="utf-8")
    return Guard.from_policy("contracts", path, embedder=embedder)


CASES = [
    pytest.param((MSA, MSA_CLAUSE, SOW_CLAUSE), id="msa"),
    pytest.param((SOW, SOW_CLAUSE, MSA_CLAUSE), id="sow"),
]


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("mode", ["sync", "async"])
def test_authorised_clause_reaches_the_llm(
    index: VectorStoreIndex, guard: Guard, case: tuple[Any, str, str], mode: str
) -> None:
    """Only the caller's clause is in the one prompt the LLM receives."""
    access, present, absent = case
    llm = RecordingLLM()
    engine = guarded_query_engine(index, guard, llm=llm, similarity_top_k=2)
    if mode == "sync":
        response = query_with_access(engine, QUERY, access)
    else:
        response = asyncio.run(aquery_with_access(engine, QUERY, access))
    assert len(llm.prompts) == 1
    assert present in llm.prompts[0]
    assert absent not in llm.prompts[0]
    assert all(
        access["contract_type"] == [n.metadata["contract_type"]] for n in response.source_nodes
    )


@pytest.mark.parametrize(
    "access", [None, {"contract_type": ["LEASE"]}], ids=["no-access", "unknown-type"]
)
@pytest.mark.parametrize("mode", ["sync", "async"])
def test_nothing_authorised_is_refused_without_the_llm(
    index: VectorStoreIndex, guard: Guard, access: Any, mode: str
) -> None:
    """When no node passes, the refusal is the answer and the LLM is never called."""
    llm = RecordingLLM()
    engine = guarded_query_engine(index, guard, llm=llm)
    if mode == "sync":
        response = query_with_access(engine, QUERY, access)
    else:
        response = asyncio.run(aquery_with_access(engine, QUERY, access))
    assert str(response) == REFUSAL
    assert response.source_nodes == []
    assert llm.prompts == []


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_rejected_query_is_refused_without_the_llm(
    index: VectorStoreIndex, domain_guard: Guard, mode: str
) -> None:
    """A query the domain guard rejects gets the policy's refusal, even with full access."""
    llm = RecordingLLM()
    engine = guarded_query_engine(
        index, domain_guard, access={"contract_type": ["MSA", "SOW"]}, llm=llm
    )
    query = "What is the price of bitcoin today?"
    response = engine.query(query) if mode == "sync" else asyncio.run(engine.aquery(query))
    assert str(response) == DOMAIN_REFUSAL
    assert llm.prompts == []
    assert MSA_CLAUSE in str(engine.query(QUERY))


def test_guarded_retrieve_exposes_the_audit(index: VectorStoreIndex, domain_guard: Guard) -> None:
    """The engine's guarded_retrieve returns the GuardResult that explains a refusal."""
    engine = guarded_query_engine(index, domain_guard, access=MSA, llm=RecordingLLM())
    checked = engine.guarded_retrieve(QueryBundle("best pizza in town"))
    assert checked.nodes == []
    assert checked.result.query.allowed is False
    assert checked.result.query.tier == "blocklist"
    assert checked.refusal == DOMAIN_REFUSAL


def test_engine_with_a_postprocessor_guard(index: VectorStoreIndex, guard: Guard) -> None:
    """A GuardPostprocessor works as the engine's guard, with the same refusal."""
    llm = RecordingLLM()
    engine = GuardedQueryEngine.from_args(
        index.as_retriever(similarity_top_k=5),
        llm=llm,
        node_postprocessors=[GuardPostprocessor(guard=guard)],
    )
    assert SOW_CLAUSE in str(query_with_access(engine, QUERY, SOW))
    assert str(engine.query(QUERY)) == REFUSAL
    assert len(llm.prompts) == 1


class SeenPostprocessor(BaseNodePostprocessor):
    """Records the node ids every call receives and passes them on."""

    seen: list[list[str]] = Field(default_factory=list)

    def _postprocess_nodes(
        self, nodes: list[NodeWithScore], query_bundle: QueryBundle | None = None
    ) -> list[NodeWithScore]:
        self.seen.append([n.node.node_id for n in nodes])
        return nodes


def test_guard_runs_before_other_postprocessors(index: VectorStoreIndex, guard: Guard) -> None:
    """Later postprocessors only see allowed nodes, and none run for a refusal."""
    seen = SeenPostprocessor(seen=[])
    engine = GuardedQueryEngine.from_args(
        index.as_retriever(similarity_top_k=5),
        llm=RecordingLLM(),
        node_postprocessors=[seen, GuardPostprocessor(guard=guard)],
    )
    query_with_access(engine, QUERY, MSA)
    engine.query(QUERY)
    assert seen.seen == [["msa-termination-notice"]]


def test_a_guard_postprocessor_beside_a_guarded_retriever_narrows_the_context(
    index: VectorStoreIndex, guard: Guard
) -> None:
    """Both guards apply: the retriever's wider access lets the SOW clause through, the
    postprocessor's narrower one keeps it from the LLM."""
    llm = RecordingLLM()
    both = {"contract_type": ["MSA", "SOW"]}
    wide = GuardedRetriever(index.as_retriever(similarity_top_k=5), guard, both)
    assert {n.node.metadata["contract_type"] for n in wide.retrieve(QUERY)} == {"MSA", "SOW"}
    engine = GuardedQueryEngine.from_args(
        wide, llm=llm, node_postprocessors=[GuardPostprocessor(guard=guard, access=MSA)]
    )
    sources = engine.query(QUERY).source_nodes
    assert [n.node.metadata["contract_type"] for n in sources] == ["MSA"]
    assert all(SOW_CLAUSE not in p for p in llm.prompts)


def test_guarded_query_engine_refuses_a_retriever(index: VectorStoreIndex, guard: Guard) -> None:
    """A retriever where an index belongs is a one-line error pointing to GuardedQueryEngine."""
    with pytest.raises(
        ValueError, match="needs a LlamaIndex index, got the retriever GuardedRetriever"
    ):
        guarded_query_engine(GuardedRetriever(index.as_retriever(), guard), guard)  # type: ignore[arg-type]


def test_engine_needs_a_guard(index: VectorStoreIndex) -> None:
    """An engine with neither a GuardedRetriever nor a GuardPostprocessor is refused."""
    with pytest.raises(ValueError, match="needs a guard"):
        GuardedQueryEngine.from_args(index.as_retriever(), llm=RecordingLLM())


def test_with_retriever_stays_guarded(index: VectorStoreIndex, guard: Guard) -> None:
    """Swapping the retriever keeps the guard and the refusal."""
    llm = RecordingLLM()
    engine = guarded_query_engine(index, guard, llm=llm)
    swapped = engine.with_retriever(GuardedRetriever(index.as_retriever(), guard))
    assert isinstance(swapped, GuardedQueryEngine)
    assert str(swapped.query(QUERY)) == REFUSAL
    assert llm.prompts == []


def test_streaming_refusal_streams(index: VectorStoreIndex, guard: Guard) -> None:
    """With ``streaming=True`` a refusal comes back in the streaming shape."""
    llm = RecordingLLM()
    engine = guarded_query_engine(index, guard, llm=llm, streaming=True)
    response = engine.query(QUERY)
    assert isinstance(response, StreamingResponse)
    assert "".join(response.response_gen) == REFUSAL

    async def stream() -> str:
        answer = await engine.aquery(QUERY)
        assert isinstance(answer, AsyncStreamingResponse)
        return "".join([token async for token in answer.async_response_gen()])

    assert asyncio.run(stream()) == REFUSAL
    assert llm.prompts == []


def test_threads_get_their_own_answers(index: VectorStoreIndex, guard: Guard) -> None:
    """Concurrent queries in threads with different access never see each other's clause."""
    engine = guarded_query_engine(index, guard, llm=RecordingLLM(), similarity_top_k=1)
    accesses = [MSA, SOW, None] * 3
    with ThreadPoolExecutor(max_workers=3) as pool:
        answers = list(pool.map(lambda a: str(query_with_access(engine, QUERY, a)), accesses))
    for access, answer in zip(accesses, answers, strict=True):
        if access is None:
            assert answer == REFUSAL
        else:
            mine, other = (MSA_CLAUSE, SOW_CLAUSE) if access is MSA else (SOW_CLAUSE, MSA_CLAUSE)
            assert mine in answer
            assert other not in answer


async def test_tasks_get_their_own_answers(index: VectorStoreIndex, guard: Guard) -> None:
    """Concurrent ``aquery`` tasks with different access never see each other's clause."""
    engine = guarded_query_engine(index, guard, llm=RecordingLLM(), similarity_top_k=1)
    accesses = [MSA, SOW, None] * 3
    answers = await asyncio.gather(*(aquery_with_access(engine, QUERY, a) for a in accesses))
    for access, answer in zip(accesses, answers, strict=True):
        text = str(answer)
        if access is None:
            assert text == REFUSAL
        else:
            mine, other = (MSA_CLAUSE, SOW_CLAUSE) if access is MSA else (SOW_CLAUSE, MSA_CLAUSE)
            assert mine in text
            assert other not in text


def test_guard_failure_stops_before_the_llm(
    index: VectorStoreIndex, guard: Guard, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A guard that raises surfaces its error and the LLM is never called."""

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("guard exploded")

    monkeypatch.setattr(guard, "check", broken)
    llm = RecordingLLM()
    engine = guarded_query_engine(index, guard, access=MSA, llm=llm)
    with pytest.raises(RuntimeError, match="guard exploded"):
        engine.query(QUERY)
    assert llm.prompts == []
