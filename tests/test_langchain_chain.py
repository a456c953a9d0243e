"""build_rag_chain answers with the request's own refusal, and ``with_result`` hands a chain the
GuardResult in a form that shows handlers no chunk text."""

from __future__ import annotations

import json
from typing import Any

import pytest
from langchain_support import QUERY, contract_documents, contract_store

from rag_guard_integrations import Guard, parse_policy
from rag_guard_integrations.langchain import GuardedRetriever, build_rag_chain
from rag_guard_integrations.langchain.result import CheckedResult
from rag_guard_integrations.langchain.testing import EchoContextChat, RecordingHandler

DOMAIN = parse_policy(
    "extends: [contracts]\n"
    "domain: {blocklist: [bitcoin], min_similarity: -1.0, refusal: 'Only contract questions.'}"
)
MSA = {"configurable": {"access": {"contract_type": ["MSA"]}}}


@pytest.fixture(scope="module")
def retriever() -> GuardedRetriever:
    """A GuardedRetriever over the real store, with a domain gate in front of the clause guard."""
    return GuardedRetriever(retriever=contract_store().as_retriever(), guard=Guard(DOMAIN))


@pytest.mark.parametrize(
    ("policy", "query", "config", "expected"),
    [
        (DOMAIN, "What is the price of bitcoin?", MSA, "Only contract questions."),
        ("contracts", QUERY, {}, "No authorized matching clause found."),
        ("contracts", "Tell me something nice.", MSA, "No authorized matching clause found."),
    ],
)
async def test_the_chain_answers_with_the_results_own_refusal(
    policy: Any, query: str, config: dict[str, object], expected: str
) -> None:
    """A rejected query gets the domain refusal; nothing allowed gets the no-context refusal."""
    guard = Guard(policy) if not isinstance(policy, str) else Guard.from_policy(policy)
    retriever = GuardedRetriever(retriever=contract_store().as_retriever(), guard=guard)
    chain = build_rag_chain(retriever, EchoContextChat())
    assert chain.invoke(query, config=config) == expected
    assert await chain.ainvoke(query, config=config) == expected


def test_an_explicit_refusal_replaces_the_policys(retriever: GuardedRetriever) -> None:
    """``refusal=`` is the answer whenever nothing may pass."""
    chain = build_rag_chain(retriever, EchoContextChat(), refusal="Ask your admin.")
    assert chain.invoke(QUERY) == "Ask your admin."


async def test_with_result_returns_documents_and_the_decision(retriever: GuardedRetriever) -> None:
    """The runnable gives the allowed Documents and a CheckedResult whose full result is there."""
    out = await retriever.with_result().ainvoke(QUERY, config=MSA)
    assert [d.metadata["contract_type"] for d in out["documents"]] == ["MSA"]
    assert isinstance(out["result"], CheckedResult)
    assert out["result"].refusal is None
    assert len(out["result"].result.allowed) == 1
    refused = retriever.with_result().invoke("What is the price of bitcoin?", config=MSA)
    assert (refused["documents"], refused["result"].refusal) == ([], "Only contract questions.")


def test_the_result_shows_no_chunk_text(retriever: GuardedRetriever) -> None:
    """repr, to_dict and the payloads a handler receives carry no text of any chunk."""
    handler = RecordingHandler()
    out = retriever.with_result().invoke(QUERY, config={**MSA, "callbacks": [handler]})
    denied = [d.page_content for d in contract_documents() if d.metadata["contract_type"] != "MSA"]
    shown = [repr(out["result"]), json.dumps(out["result"].to_dict()), *handler.payloads]
    assert [text for text in denied if any(text in s for s in shown)] == []
    assert out["result"].to_dict()["allowed"] == 1


async def test_with_result_keeps_concurrent_requests_apart(retriever: GuardedRetriever) -> None:
    """``batch`` and ``abatch`` give each request its own documents and its own result."""
    types = ["MSA", "SOW", "NDA", "DPA", "CHANNEL"]
    configs = [{"configurable": {"access": {"contract_type": [t]}}} for t in types]
    runnable = retriever.with_result()
    for outs in (
        runnable.batch([QUERY] * len(types), config=configs),
        await runnable.abatch([QUERY] * len(types), config=configs),
    ):
        assert [[d.metadata["contract_type"] for d in o["documents"]] for o in outs] == [
            [t] for t in types
        ]
        assert [o["result"].result.allowed[0].metadata["contract_type"] for o in outs] == types
