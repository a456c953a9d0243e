"""An inner retriever's own log records of its candidates stay out of the logs while a LangChain
or Haystack guarded retriever fetches (LlamaIndex: tests/test_llama_index_logs.py), for that
request only: the same logger logs a plain retrieval afterwards."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from haystack import Document as HaystackDocument
from haystack import component
from langchain_core.callbacks import CallbackManagerForRetrieverRun  # noqa: TC002 - pydantic
from langchain_core.documents import Document  # noqa: TC002 - pydantic
from langchain_core.retrievers import BaseRetriever
from langchain_support import QUERY, contract_documents

from rag_guard_integrations import Guard
from rag_guard_integrations.haystack import GuardedRetriever as HaystackGuardedRetriever
from rag_guard_integrations.langchain import GuardedRetriever

pytestmark = pytest.mark.unit

MSA = {"contract_type": ["MSA"]}
logger = logging.getLogger(__name__)


def withheld_texts() -> list[str]:
    """The clauses an MSA caller asking QUERY does not get."""
    return [d.page_content for d in contract_documents() if d.metadata["contract_type"] != "MSA"]


class LoggingRetriever(BaseRetriever):
    """Returns every clause and logs them at DEBUG under this module's logger, as a store
    client logging its hits would."""

    documents: list[Document]

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun, **kwargs: Any
    ) -> list[Document]:
        logger.debug("store returned %s", [d.page_content for d in self.documents])
        return list(self.documents)


@component
class LoggingHaystackRetriever:
    """The same in Haystack: every clause, each logged at DEBUG."""

    @component.output_types(documents=list[HaystackDocument])
    def run(self, query: str, top_k: int = 10) -> dict[str, list[HaystackDocument]]:
        found = [
            HaystackDocument(content=d.page_content, meta=dict(d.metadata))
            for d in contract_documents()
        ]
        logger.debug("store returned %s", [d.content for d in found])
        return {"documents": found}


@pytest.mark.parametrize("mode", ["sync", "async"])
async def test_a_langchain_inner_retrievers_log_of_its_candidates_stays_silent(
    caplog: pytest.LogCaptureFixture, mode: str
) -> None:
    """Behind ``GuardedRetriever`` the retriever's DEBUG record of every clause is dropped;
    called plainly afterwards, the same logger logs them."""
    inner = LoggingRetriever(documents=contract_documents())
    guarded = GuardedRetriever(retriever=inner, guard=Guard.from_policy("contracts"), access=MSA)
    caplog.set_level(logging.DEBUG)
    kept = guarded.invoke(QUERY) if mode == "sync" else await guarded.ainvoke(QUERY)
    assert kept
    assert [text for text in withheld_texts() if text in caplog.text] == []
    inner.invoke(QUERY)
    assert all(text in caplog.text for text in withheld_texts())


def test_a_haystack_inner_retrievers_log_of_its_candidates_stays_silent(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The same behind Haystack's ``GuardedRetriever``."""
    inner = LoggingHaystackRetriever()
    guarded = HaystackGuardedRetriever(inner, "contracts", access=MSA)
    caplog.set_level(logging.DEBUG)
    assert guarded.run(QUERY)["documents"]
    assert [text for text in withheld_texts() if text in caplog.text] == []
    inner.run(QUERY)
    assert all(text in caplog.text for text in withheld_texts())


class _Kept(logging.Handler):
    """A handler that keeps the messages it is given."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


def test_a_handler_on_an_applications_package_logger_sees_no_fetch_record() -> None:
    """An application's handler on its package logger (``myapp``), fed by a store client's
    logger below it that is neither a framework's nor the retriever's module: it sees no
    record of the guarded fetch, and sees the plain call's."""
    client_log = logging.getLogger("myapp_rg_test.store_client")

    class ClientRetriever(BaseRetriever):
        documents: list[Document]

        def _get_relevant_documents(
            self, query: str, *, run_manager: CallbackManagerForRetrieverRun, **kwargs: Any
        ) -> list[Document]:
            client_log.debug("store returned %s", [d.page_content for d in self.documents])
            return list(self.documents)

    package = logging.getLogger("myapp_rg_test")
    kept = _Kept()
    package.addHandler(kept)
    package.setLevel(logging.DEBUG)
    try:
        inner = ClientRetriever(documents=contract_documents())
        guarded = GuardedRetriever(retriever=inner, guard="contracts", access=MSA)
        assert guarded.invoke(QUERY)
        assert kept.messages == []
        inner.invoke(QUERY)
        assert len(kept.messages) == 1
    finally:
        package.removeHandler(kept)
