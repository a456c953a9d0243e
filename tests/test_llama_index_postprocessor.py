"""Tests for GuardPostprocessor: the right clause reaches the LLM, and the postprocessor
invariants hold (no mutation, async equals sync, scores kept, fail closed, events sent)."""

from __future__ import annotations

import asyncio
import copy
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

import pytest
from llama_index.core import Document
from llama_index.core.instrumentation import get_dispatcher  # type: ignore[attr-defined]
from llama_index.core.schema import MetadataMode, NodeWithScore, QueryBundle, TextNode
from llama_index_support import (
    MSA,
    MSA_CLAUSE,
    QUERY,
    REFUSAL,
    SOW,
    SOW_CLAUSE,
    DecisionRecorder,
    RecordingLLM,
    contracts_index,
    recording_events,
)

from rag_guard_integrations import AccessContext, Guard
from rag_guard_integrations.llama_index import (
    GuardedQueryEngine,
    GuardPostprocessor,
    aquery_with_access,
    guard_access,
    query_with_access,
)
from rag_guard_integrations.llama_index.events import listening

if TYPE_CHECKING:
    from collections.abc import Iterator

    from llama_index.core import VectorStoreIndex

    from rag_guard_integrations.embeddings import MiniLMEmbedder

TOP_K = 5


@pytest.fixture(scope="session")
def index(embedder: MiniLMEmbedder) -> VectorStoreIndex:
    return contracts_index(embedder)


@pytest.fixture(scope="session")
def guard() -> Guard:
    return Guard.from_policy("contracts")


@pytest.fixture(scope="session")
def retrieved(index: VectorStoreIndex) -> list[NodeWithScore]:
    """The top nodes for QUERY, fetched once (callers copy before handing them out)."""
    return index.as_retriever(similarity_top_k=10).retrieve(QUERY)


@pytest.fixture
def nodes(retrieved: list[NodeWithScore]) -> list[NodeWithScore]:
    return copy.deepcopy(retrieved)


@pytest.fixture
def recorder() -> Iterator[DecisionRecorder]:
    yield from recording_events()


def ids(nodes: list[NodeWithScore]) -> list[str]:
    return [n.node.node_id for n in nodes]


def engine_for(index: VectorStoreIndex, pp: GuardPostprocessor, llm: RecordingLLM) -> Any:
    retriever = index.as_retriever(similarity_top_k=TOP_K)
    return GuardedQueryEngine.from_args(retriever, llm=llm, node_postprocessors=[pp])


CASES = [
    pytest.param(MSA, MSA_CLAUSE, SOW_CLAUSE, id="msa"),
    pytest.param(SOW, SOW_CLAUSE, MSA_CLAUSE, id="sow"),
]


@pytest.mark.parametrize(("access", "present", "absent"), CASES)
def test_query_engine_sends_only_the_authorised_clause(
    index: VectorStoreIndex, guard: Guard, access: Any, present: str, absent: str
) -> None:
    """The caller's clause reaches the LLM context and the other contract's does not."""
    llm = RecordingLLM()
    engine = engine_for(index, GuardPostprocessor(guard=guard), llm)
    response = query_with_access(engine, QUERY, access)
    assert len(llm.prompts) == 1
    assert present in llm.prompts[0]
    assert absent not in llm.prompts[0]
    assert present in str(response)


@pytest.mark.parametrize(("access", "present", "absent"), CASES)
async def test_async_query_engine_sends_only_the_authorised_clause(
    index: VectorStoreIndex, guard: Guard, access: Any, present: str, absent: str
) -> None:
    """``aquery`` puts the same clause in the context as ``query``."""
    llm = RecordingLLM()
    engine = engine_for(index, GuardPostprocessor(guard=guard), llm)
    await aquery_with_access(engine, QUERY, access)
    assert len(llm.prompts) == 1
    assert present in llm.prompts[0]
    assert absent not in llm.prompts[0]


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_no_access_answers_with_the_refusal(
    index: VectorStoreIndex, guard: Guard, mode: str
) -> None:
    """Without access nothing passes: the refusal is the answer and the LLM is never called."""
    llm = RecordingLLM()
    engine = engine_for(index, GuardPostprocessor(guard=guard), llm)
    response = engine.query(QUERY) if mode == "sync" else asyncio.run(engine.aquery(QUERY))
    assert str(response) == REFUSAL
    assert response.source_nodes == []
    assert llm.prompts == []


def test_plain_query_engine_with_the_postprocessor(index: VectorStoreIndex, guard: Guard) -> None:
    """In ``index.as_query_engine`` the constructor default access decides what the LLM sees."""
    llm = RecordingLLM()
    pp = GuardPostprocessor(guard=guard, access=AccessContext(contract_type={"MSA"}))
    engine = index.as_query_engine(llm=llm, node_postprocessors=[pp], similarity_top_k=TOP_K)
    engine.query(QUERY)
    assert MSA_CLAUSE in llm.prompts[0]
    assert SOW_CLAUSE not in llm.prompts[0]


def test_guard_access_overrides_the_default(guard: Guard, nodes: list[NodeWithScore]) -> None:
    """A guard_access block wins over the constructor's access; outside it the default holds."""
    pp = GuardPostprocessor(guard=guard, access=MSA)
    with guard_access(SOW):
        inside = pp.postprocess_nodes(nodes, query_str=QUERY)
    outside = pp.postprocess_nodes(nodes, query_str=QUERY)
    assert ids(inside) == ["sow-termination-notice"]
    assert ids(outside) == ["msa-termination-notice"]


def test_input_nodes_are_not_mutated(guard: Guard, nodes: list[NodeWithScore]) -> None:
    """Nodes, metadata and scores are exactly as before; kept nodes are the same objects."""
    before = copy.deepcopy(nodes)
    kept = GuardPostprocessor(guard=guard, access=MSA).postprocess_nodes(nodes, query_str=QUERY)
    assert [n.model_dump() for n in nodes] == [n.model_dump() for n in before]
    assert kept
    assert all(any(k is n for n in nodes) for k in kept)


def rendered(node: NodeWithScore) -> tuple[float | None, str, str]:
    """A node's score and the text the LLM and the embedder would see."""
    return (
        node.score,
        node.node.get_content(MetadataMode.LLM),
        node.node.get_content(MetadataMode.EMBED),
    )


def test_scores_and_llm_text_are_preserved(guard: Guard, nodes: list[NodeWithScore]) -> None:
    """Kept nodes keep their score and add nothing to the LLM or embedding text."""
    before = {n.node.node_id: rendered(n) for n in nodes}
    pp = GuardPostprocessor(guard=guard, access={"contract_type": ["MSA", "SOW"]})
    kept = pp.postprocess_nodes(nodes, query_str=QUERY)
    assert len(kept) == 2
    assert all(rendered(n) == before[n.node.node_id] for n in kept)


@pytest.mark.parametrize("access", [MSA, SOW, {"contract_type": ["MSA", "SOW"]}, None])
async def test_async_equals_sync(guard: Guard, nodes: list[NodeWithScore], access: Any) -> None:
    """``apostprocess_nodes`` keeps exactly what ``postprocess_nodes`` keeps."""
    pp = GuardPostprocessor(guard=guard, access=access)
    bundle = QueryBundle(QUERY)
    sync = pp.postprocess_nodes(nodes, query_bundle=bundle)
    asynchronous = await pp.apostprocess_nodes(nodes, query_bundle=bundle)
    assert ids(asynchronous) == ids(sync)


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_empty_in_empty_out(guard: Guard, mode: str) -> None:
    """No nodes in, no nodes out."""
    pp = GuardPostprocessor(guard=guard, access=MSA)
    if mode == "sync":
        assert pp.postprocess_nodes([], query_str=QUERY) == []
    else:
        assert asyncio.run(pp.apostprocess_nodes([], query_str=QUERY)) == []


def test_missing_query_bundle_is_an_empty_query(guard: Guard, nodes: list[NodeWithScore]) -> None:
    """Without a query bundle the guard judges the empty query, as a direct check would."""
    pp = GuardPostprocessor(guard=guard, access={"contract_type": ["MSA", "SOW"]})
    kept = pp.postprocess_nodes(nodes)
    expected = guard.check("", nodes, access={"contract_type": ["MSA", "SOW"]})
    assert ids(kept) == [ids(nodes)[i] for i in expected.allowed_indices]


def test_nodes_without_access_metadata_are_denied(guard: Guard) -> None:
    """A node that does not carry the access attribute is denied (default deny)."""
    node = NodeWithScore(
        node=TextNode(
            text="Either party may terminate on 30 days' written notice.",
            metadata={"clause_id": "TERMINATION_NOTICE"},
        ),
        score=0.9,
    )
    assert (
        GuardPostprocessor(guard=guard, access=MSA).postprocess_nodes([node], query_str=QUERY) == []
    )


@pytest.mark.parametrize("method", ["check", "acheck"])
async def test_guard_errors_surface_and_nothing_passes(
    guard: Guard, nodes: list[NodeWithScore], monkeypatch: pytest.MonkeyPatch, method: str
) -> None:
    """When the guard raises, the error surfaces: no node is returned unchecked."""

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("guard exploded")

    async def abroken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("guard exploded")

    monkeypatch.setattr(guard, method, broken if method == "check" else abroken)
    pp = GuardPostprocessor(guard=guard, access=MSA)

    async def run() -> list[NodeWithScore]:
        if method == "check":
            return pp.postprocess_nodes(nodes, query_str=QUERY)
        return await pp.apostprocess_nodes(nodes, query_str=QUERY)

    with pytest.raises(RuntimeError, match="guard exploded"):
        await run()


def test_engine_does_not_call_the_llm_when_the_guard_fails(
    index: VectorStoreIndex, guard: Guard, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A failing guard stops the query before the LLM is called."""
    monkeypatch.setattr(guard, "check", lambda *a, **k: (_ for _ in ()).throw(RuntimeError("x")))
    llm = RecordingLLM()
    engine = engine_for(index, GuardPostprocessor(guard=guard, access=MSA), llm)
    with pytest.raises(RuntimeError):
        engine.query(QUERY)
    assert llm.prompts == []


def test_threads_keep_their_own_access(guard: Guard, nodes: list[NodeWithScore]) -> None:
    """One shared postprocessor serves concurrent threads with different access blocks."""
    pp = GuardPostprocessor(guard=guard)
    accesses = [MSA, SOW, None] * 6

    def run(access: Any) -> list[str]:
        with guard_access(access):
            return ids(pp.postprocess_nodes(nodes, query_str=QUERY))

    with ThreadPoolExecutor(max_workers=6) as pool:
        results = list(pool.map(run, accesses))
    expected = {id(MSA): ["msa-termination-notice"], id(SOW): ["sow-termination-notice"]}
    assert results == [expected.get(id(a), []) for a in accesses]


async def test_tasks_keep_their_own_access(guard: Guard, nodes: list[NodeWithScore]) -> None:
    """Concurrent asyncio tasks with different access blocks each get their own nodes."""
    pp = GuardPostprocessor(guard=guard)

    async def run(access: Any) -> list[str]:
        async with guard_access(access):
            await asyncio.sleep(0)
            return ids(await pp.apostprocess_nodes(nodes, query_str=QUERY))

    results = await asyncio.gather(*(run(a) for a in [MSA, SOW, None] * 4))
    assert results == [["msa-termination-notice"], ["sow-termination-notice"], []] * 4


def test_decision_event_reaches_handlers(
    guard: Guard, nodes: list[NodeWithScore], recorder: DecisionRecorder
) -> None:
    """Every check dispatches a GuardDecisionEvent with the summary and ids, never chunk text."""
    pp = GuardPostprocessor(guard=guard, access=AccessContext("ann", contract_type={"MSA"}))
    pp.postprocess_nodes(nodes, query_str=QUERY)
    assert len(recorder.events) == 1
    event = recorder.events[0]
    assert event.class_name() == "GuardDecisionEvent"
    assert event.source == "GuardPostprocessor"
    assert event.principal == "ann"
    assert event.summary["chunks"] == len(nodes)
    assert event.summary["allowed"] == 1
    assert event.summary["intents"] == ["TERMINATION_NOTICE"]
    assert event.allowed_node_ids == ["msa-termination-notice"]
    assert len(event.denied_node_ids) == len(nodes) - 1
    dumped = event.model_dump_json()
    assert all(n.node.get_content() not in dumped for n in nodes)


def test_class_name_and_serialisation_round_trip(guard: Guard) -> None:
    """The serialization id is fixed, the guard is stored as policy references, and from_dict
    rebuilds an equal component."""
    pp = GuardPostprocessor(guard=guard, access={"contract_type": ["MSA"]})
    assert GuardPostprocessor.class_name() == "GuardPostprocessor"
    data = pp.to_dict()
    assert data["class_name"] == "GuardPostprocessor"
    assert data["access"] == {"principal": None, "contract_type": ["MSA"]}
    assert data["guard"] == {"policy": ["contracts"], "name": "contracts"}
    rebuilt = GuardPostprocessor.from_dict(data)
    assert rebuilt.guard.policy == guard.policy
    assert rebuilt.access == pp.access
    assert GuardPostprocessor.from_json(pp.to_json()).access == pp.access


def test_document_nodes_are_checked_like_text_nodes(guard: Guard) -> None:
    """A Document (not a TextNode) is converted through Chunk.from_any and judged the same."""
    text = "Either party may terminate this Agreement on thirty (30) days' written notice."
    metadata = {"contract_type": "MSA", "clause_id": "TERMINATION_NOTICE"}
    nodes = [
        NodeWithScore(node=Document(text=text, metadata=metadata), score=0.7),
        NodeWithScore(node=Document(text=text, metadata={**metadata, "contract_type": "SOW"})),
    ]
    kept = GuardPostprocessor(guard=guard, access=MSA).postprocess_nodes(nodes, query_str=QUERY)
    assert len(kept) == 1
    assert kept[0] is nodes[0]


def test_events_are_built_only_for_listeners(recorder: DecisionRecorder) -> None:
    """With a handler registered the module is listening; LlamaIndex's null handler alone is not."""
    assert listening()
    root = get_dispatcher()
    root.event_handlers.remove(recorder)
    try:
        assert not listening()
    finally:
        root.add_event_handler(recorder)
