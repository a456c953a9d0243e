"""Shared pieces of the LlamaIndex adapter tests: the contracts index, an LLM that records what
it is sent, and an event handler that records guard decisions."""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any

from llama_index.core import VectorStoreIndex
from llama_index.core.instrumentation import get_dispatcher  # type: ignore[attr-defined]
from llama_index.core.instrumentation.event_handlers import BaseEventHandler
from llama_index.core.postprocessor import MetadataReplacementPostProcessor
from llama_index.core.schema import TextNode
from pydantic import Field

from rag_guard_integrations.data import load_corpus
from rag_guard_integrations.llama_index import (
    GuardDecisionEvent,
    GuardedQueryEngine,
    GuardPostprocessor,
    MiniLMEmbedding,
    testing,
)

if TYPE_CHECKING:
    from collections.abc import Iterator

    from llama_index.core.base.base_retriever import BaseRetriever
    from llama_index.core.instrumentation.events import BaseEvent

    from rag_guard_integrations import Guard
    from rag_guard_integrations.embeddings import MiniLMEmbedder

QUERY = "What is the termination notice period?"
MSA_CLAUSE = "thirty (30) days' written notice"
SOW_CLAUSE = "45 days' written notice"
REFUSAL = "No authorized matching clause found."
MSA = {"contract_type": ["MSA"]}
SOW = {"contract_type": ["SOW"]}
REDACT_POLICY = """
version: 1
name: pii
labels: {contact_details: {}}
classifiers: {builtin: {email: contact_details}}
rules:
  - name: no_contacts
    action: redact
    trigger: {all_present: [contact_details]}
"""
"""A policy that masks email addresses instead of withholding their chunks."""


class RecordingLLM(testing.RecordingLLM):
    """The package's recording stand-in, answering with the prompt itself."""

    echo: bool = True


class DecisionRecorder(BaseEventHandler):
    """Collects every GuardDecisionEvent the instrumentation dispatches."""

    events: list[GuardDecisionEvent] = Field(default_factory=list)

    @classmethod
    def class_name(cls) -> str:
        return "DecisionRecorder"

    def handle(self, event: BaseEvent, **kwargs: Any) -> None:
        if isinstance(event, GuardDecisionEvent):
            self.events.append(event)


def window_engine(retriever: BaseRetriever, llm: Any, guard: Guard) -> GuardedQueryEngine:
    """The README's sentence-window engine: the guard, then the window swapped in."""
    return GuardedQueryEngine.from_args(
        retriever,
        llm=llm,
        node_postprocessors=[
            GuardPostprocessor(guard=guard),
            MetadataReplacementPostProcessor(target_metadata_key="window"),
        ],
    )


def contracts_nodes() -> list[TextNode]:
    """The bundled contract clauses as TextNodes (ids and metadata as stored)."""
    return [
        TextNode(id_=chunk.id, text=chunk.text, metadata=dict(chunk.metadata))
        for chunk in load_corpus("contracts")
    ]


@lru_cache(maxsize=1)
def contracts_index(embedder: MiniLMEmbedder) -> VectorStoreIndex:
    """A VectorStoreIndex over the contract clauses, embedded with MiniLM (built once)."""
    return VectorStoreIndex(contracts_nodes(), embed_model=MiniLMEmbedding(embedder))


def recording_events() -> Iterator[DecisionRecorder]:
    """Register a DecisionRecorder on the root dispatcher for the duration of a fixture."""
    recorder = DecisionRecorder()
    root = get_dispatcher()
    root.add_event_handler(recorder)
    try:
        yield recorder
    finally:
        root.event_handlers.remove(recorder)
