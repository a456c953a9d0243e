"""Real LangChain parts the adapter tests share: the contract store, a retriever that ignores
filters, an echoing chat model and an event recorder (built once per process)."""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Any

from langchain_core.callbacks import BaseCallbackHandler, CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from langchain_core.vectorstores import InMemoryVectorStore
from pydantic import Field

from rag_guard_integrations.data import load_corpus
from rag_guard_integrations.langchain import MiniLMEmbeddings

if TYPE_CHECKING:
    from uuid import UUID


QUERY = "What is the termination notice period?"
CONTRACT_TYPES = ("MSA", "SOW", "CHANNEL", "NDA", "DPA")


def contract_documents() -> list[Document]:
    """Fresh Documents for the bundled contract corpus (ids and metadata as stored)."""
    return [Document(c.text, metadata=dict(c.metadata), id=c.id) for c in load_corpus("contracts")]


@cache
def contract_store() -> InMemoryVectorStore:
    """An InMemoryVectorStore over the contract corpus, embedded with the real MiniLM model."""
    return InMemoryVectorStore.from_documents(contract_documents(), MiniLMEmbeddings())


class ListRetriever(BaseRetriever):
    """Returns its documents for every query, ignoring ``k`` and any filter; records kwargs."""

    documents: list[Document]
    calls: list[dict[str, Any]] = Field(default_factory=list)

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun, **kwargs: Any
    ) -> list[Document]:
        self.calls.append(kwargs)
        return list(self.documents)


class FailingRetriever(BaseRetriever):
    """Raises on every call, as a store that is down would."""

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun, **kwargs: Any
    ) -> list[Document]:
        raise ConnectionError("vector store unreachable")


class Recorder(BaseCallbackHandler):
    """Collects custom events and retriever runs (run id, parent id, output documents)."""

    def __init__(self) -> None:
        self.events: list[tuple[str, Any]] = []
        self.retriever_starts: list[tuple[UUID, UUID | None]] = []
        self.retriever_ends: list[tuple[UUID | None, list[Document]]] = []

    def on_custom_event(self, name: str, data: Any, **kwargs: Any) -> None:
        self.events.append((name, data))

    def on_retriever_start(
        self,
        serialized: Any,
        query: str,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        **kwargs: Any,
    ) -> None:
        self.retriever_starts.append((run_id, parent_run_id))

    def on_retriever_end(
        self, documents: Any, *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any
    ) -> None:
        self.retriever_ends.append((parent_run_id, list(documents)))

    def inner_fetches(self) -> list[list[Document]]:
        """What each child retriever run returned (the candidates the guard saw)."""
        return [docs for parent, docs in self.retriever_ends if parent is not None]
