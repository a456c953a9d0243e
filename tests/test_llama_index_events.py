"""Tests that LlamaIndex instrumentation and callbacks show the guard's decision (an event inside
a ``rag_guard_check`` span, no chunk text) and never a node the guard withheld."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from llama_index.core import VectorStoreIndex
from llama_index.core.schema import TextNode
from llama_index_support import MSA_CLAUSE, QUERY, SOW_CLAUSE, contracts_nodes

from rag_guard_integrations import Guard
from rag_guard_integrations.llama_index import (
    GuardDecisionEvent,
    GuardedQueryEngine,
    GuardPostprocessor,
    MiniLMEmbedding,
    aquery_with_access,
    guarded_query_engine,
    query_with_access,
)
from rag_guard_integrations.llama_index.testing import InstrumentationRecorder, RecordingLLM

if TYPE_CHECKING:
    from collections.abc import Iterator

    from rag_guard_integrations.embeddings import MiniLMEmbedder

MSA = {"principal": "alice", "contract_type": ["MSA"]}
SECRET = "password=Hunter2Hunter2"
LEAKY = TextNode(
    id_="msa-leaky",
    text=f"Either party may terminate on thirty (30) days' written notice. Login {SECRET}.",
    metadata={"contract_type": "MSA", "clause_id": "TERMINATION_NOTICE"},
)


@pytest.fixture(scope="module")
def index(embedder: MiniLMEmbedder) -> VectorStoreIndex:
    """The contract clauses plus an MSA termination clause carrying a credential: pushdown
    fetches it for an MSA caller and the content check withholds it."""
    return VectorStoreIndex([*contracts_nodes(), LEAKY], embed_model=MiniLMEmbedding(embedder))


@pytest.fixture
def seen() -> Iterator[InstrumentationRecorder]:
    with InstrumentationRecorder() as recorder:
        yield recorder


def engines(index: VectorStoreIndex) -> dict[str, GuardedQueryEngine]:
    guard = Guard.from_policy("contracts", "default")
    return {
        "guarded_query_engine": guarded_query_engine(index, guard, llm=RecordingLLM()),
        "postprocessor": GuardedQueryEngine.from_args(
            index.as_retriever(),
            llm=RecordingLLM(),
            node_postprocessors=[GuardPostprocessor(guard=guard)],
        ),
    }


@pytest.mark.parametrize("path", ["guarded_query_engine", "postprocessor"])
def test_no_withheld_text_reaches_instrumentation_or_callbacks(
    index: VectorStoreIndex, seen: InstrumentationRecorder, path: str
) -> None:
    """Events, span arguments and results, and callback payloads carry the MSA clause the MSA
    caller may see, and nothing of the fetched clause the guard withheld."""
    query_with_access(engines(index)[path], QUERY, MSA)
    text = "\n".join(seen.texts)
    assert MSA_CLAUSE in text
    assert SECRET not in text
    assert SOW_CLAUSE not in text


@pytest.mark.parametrize("path", ["guarded_query_engine", "postprocessor"])
async def test_async_queries_keep_withheld_text_out_of_instrumentation(
    index: VectorStoreIndex, seen: InstrumentationRecorder, path: str
) -> None:
    """The async path is as quiet about withheld nodes as the sync one."""
    await aquery_with_access(engines(index)[path], QUERY, MSA)
    text = "\n".join(seen.texts)
    assert MSA_CLAUSE in text
    assert SECRET not in text
    assert SOW_CLAUSE not in text


def test_the_decision_is_an_event_inside_its_own_span(
    index: VectorStoreIndex, seen: InstrumentationRecorder
) -> None:
    """A ``rag_guard_check`` span carries the decision event: ids, stages and rules per node,
    the principal, and no chunk text or reason."""
    query_with_access(engines(index)["guarded_query_engine"], QUERY, MSA)
    spans = [t for t in seen.texts if t.startswith("rag_guard_check-")]
    events = [t for t in seen.texts if t.startswith("GuardDecisionEvent(")]
    assert spans
    assert events
    assert all(MSA_CLAUSE not in t and SECRET not in t for t in spans + events)


def test_decision_rows_name_every_node(
    index: VectorStoreIndex, seen: InstrumentationRecorder
) -> None:
    """The event's rows cover every fetched node with its stage; the withheld carry theirs."""
    from llama_index.core.instrumentation import get_dispatcher  # type: ignore[attr-defined]
    from llama_index.core.instrumentation.event_handlers import BaseEventHandler

    caught: list[GuardDecisionEvent] = []

    class Catch(BaseEventHandler):
        def handle(self, event: object, **kwargs: object) -> None:
            if isinstance(event, GuardDecisionEvent):
                caught.append(event)

    handler = Catch()
    get_dispatcher().add_event_handler(handler)
    try:
        query_with_access(engines(index)["guarded_query_engine"], QUERY, MSA)
    finally:
        get_dispatcher().event_handlers.remove(handler)
    event = caught[-1]
    assert event.principal == "alice"
    rows = {row["id"]: row for row in event.decisions}
    assert set(rows) == set(event.allowed_node_ids) | set(event.denied_node_ids)
    assert all(rows[i]["allowed"] for i in event.allowed_node_ids)
    assert all(rows[i]["stage"] != "passed" for i in event.denied_node_ids)
    assert rows["msa-leaky"]["allowed"] is False
    assert event.audit["principal"] == "alice"
    assert "Hunter2" not in repr(event.audit)
