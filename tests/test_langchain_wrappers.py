"""A GuardedRetriever inside LangChain's wrapping retrievers (``MultiQueryRetriever``,
``ContextualCompressionRetriever``): the request's access reaches it or nothing passes."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
from langchain_classic.retrievers import ContextualCompressionRetriever, MultiQueryRetriever
from langchain_classic.retrievers.document_compressors import (
    DocumentCompressorPipeline,
    LLMChainExtractor,
)
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.runnables import RunnablePassthrough
from langchain_support import QUERY, ListRetriever, contract_documents

from rag_guard_integrations import Guard, parse_policy
from rag_guard_integrations.langchain import GuardedRetriever
from rag_guard_integrations.langchain.testing import RecordingHandler

if TYPE_CHECKING:
    from langchain_core.retrievers import BaseRetriever
    from langchain_core.runnables import RunnableConfig

ACCESS_ONLY = Guard(parse_policy("access: {attributes: [contract_type]}"))
SOW: RunnableConfig = {"configurable": {"access": {"contract_type": ["SOW"]}}}


def guarded(**params: Any) -> GuardedRetriever:
    """A GuardedRetriever over the whole contract corpus, checked by access alone."""
    return GuardedRetriever(
        retriever=ListRetriever(documents=contract_documents()), guard=ACCESS_ONLY, **params
    )


def wrapped(kind: str, retriever: GuardedRetriever) -> BaseRetriever:
    """``retriever`` inside a MultiQueryRetriever (a stand-in chat model) or a compression one."""
    if kind == "multi_query":
        llm = FakeListChatModel(responses=["notice period\ntermination notice"] * 4)
        return MultiQueryRetriever.from_llm(retriever=retriever, llm=llm)
    return ContextualCompressionRetriever(
        base_compressor=DocumentCompressorPipeline(transformers=[]), base_retriever=retriever
    )


async def fetched(runnable: Any, use_async: bool) -> set[str]:
    """The contract types ``runnable`` returns for QUERY under the SOW caller's config."""
    docs = await runnable.ainvoke(QUERY, config=SOW) if use_async else runnable.invoke(QUERY, SOW)
    return {d.metadata["contract_type"] for d in docs}


@pytest.mark.parametrize("kind", ["multi_query", "compression"])
@pytest.mark.parametrize("use_async", [False, True])
async def test_a_wrapper_inside_a_chain_passes_the_request_access(
    kind: str, use_async: bool
) -> None:
    """Run inside a chain, the wrapper's guarded retriever gets the request's own access."""
    chain = RunnablePassthrough() | wrapped(kind, guarded())
    assert await fetched(chain, use_async) == {"SOW"}


@pytest.mark.parametrize("kind", ["multi_query", "compression"])
@pytest.mark.parametrize("use_async", [False, True])
async def test_a_wrapper_invoked_alone_without_a_default_passes_nothing(
    kind: str, use_async: bool
) -> None:
    """Invoked on its own the wrapper passes no access on: with no default, nothing passes."""
    assert await fetched(wrapped(kind, guarded()), use_async) == set()


@pytest.mark.parametrize("kind", ["multi_query", "compression"])
@pytest.mark.parametrize("use_async", [False, True])
async def test_inside_a_chain_the_request_access_overrides_the_default(
    kind: str, use_async: bool
) -> None:
    """``access=`` is the default for requests that bring none: the SOW caller gets SOW."""
    chain = RunnablePassthrough() | wrapped(kind, guarded(access={"contract_type": ["MSA"]}))
    assert await fetched(chain, use_async) == {"SOW"}


@pytest.mark.parametrize("use_async", [False, True])
async def test_guarding_before_an_llm_compressor_keeps_denied_text_from_its_model(
    use_async: bool,
) -> None:
    """Guard first, compress after: a handler on the compressor's own model sees only SOW text."""
    documents = contract_documents()
    handler = RecordingHandler()
    llm = FakeListChatModel(responses=["NO_OUTPUT"] * len(documents), callbacks=[handler])
    compressed = ContextualCompressionRetriever(
        base_compressor=LLMChainExtractor.from_llm(llm), base_retriever=guarded()
    )
    await fetched(RunnablePassthrough() | compressed, use_async)
    seen = "\n".join(handler.payloads)
    assert any(d.page_content in seen for d in documents if d.metadata["contract_type"] == "SOW")
    assert not any(
        d.page_content in seen for d in documents if d.metadata["contract_type"] != "SOW"
    )
