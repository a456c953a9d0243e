"""build_rag_chain and answer_or_refuse answer with the request's own refusal without calling the
model, and ``with_result`` hands a chain the decision in a form that holds no chunk text."""

from __future__ import annotations

import json
from typing import Any

import pytest
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_support import QUERY, contract_documents, contract_store

from rag_guard_integrations import Guard, parse_policy
from rag_guard_integrations.langchain import (
    CheckedResult,
    GuardCompressor,
    GuardedRetriever,
    answer_or_refuse,
    build_rag_chain,
)
from rag_guard_integrations.langchain.testing import (
    EchoContextChat,
    RecordingHandler,
    ToolCallingChat,
)

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
    """The runnable gives the allowed Documents and a CheckedResult with the decision's counts,
    refusal and audit record."""
    out = await retriever.with_result().ainvoke(QUERY, config=MSA)
    assert [d.metadata["contract_type"] for d in out["documents"]] == ["MSA"]
    assert isinstance(out["result"], CheckedResult)
    assert (out["result"].refusal, out["result"].query_allowed) == (None, True)
    assert out["result"].summary["allowed"] == 1
    decisions = [c["decision"] for c in out["result"].audit["chunks"]]
    assert decisions.count("allow") == 1
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
        assert [o["result"].audit["access"]["contract_type"] for o in outs] == [[t] for t in types]


USER_PROMPT = ChatPromptTemplate.from_messages(
    [("system", "Use this context only.\n\nContext:\n{context}"), ("human", "{question}")]
)


@pytest.mark.parametrize("use_async", [False, True])
async def test_answer_or_refuse_skips_the_users_model_when_nothing_may_pass(
    retriever: GuardedRetriever, use_async: bool
) -> None:
    """A user's own prompt and model behind ``answer_or_refuse``: a caller who may see nothing,
    and a rejected query, get the refusal and the model is never called; an MSA caller's
    model reads the MSA clause as context."""
    model = ToolCallingChat()
    answer_step = USER_PROMPT | model | StrOutputParser()
    contracts = GuardedRetriever(
        retriever=contract_store().as_retriever(), guard=Guard.from_policy("contracts")
    )

    async def ask(over: GuardedRetriever, query: str, config: dict[str, Any]) -> str:
        rag = answer_or_refuse(over, answer_step)
        return str(await rag.ainvoke(query, config) if use_async else rag.invoke(query, config))

    nobody = {"configurable": {"access": None}}
    assert await ask(contracts, QUERY, nobody) == "No authorized matching clause found."
    assert await ask(retriever, "What is the price of bitcoin?", MSA) == "Only contract questions."
    assert model.received == []
    answer = await ask(contracts, QUERY, MSA)
    [msa] = [
        d.page_content
        for d in contract_documents()
        if d.metadata["contract_type"] == "MSA" and d.metadata["clause_id"] == "TERMINATION_NOTICE"
    ]
    assert answer == msa
    assert len(model.received) == 1


def test_answer_or_refuse_takes_a_refusal_and_a_formatter(retriever: GuardedRetriever) -> None:
    """``refusal=`` replaces the policy's text; ``format=`` writes the context."""
    model = ToolCallingChat()
    rag = answer_or_refuse(
        retriever,
        USER_PROMPT | model | StrOutputParser(),
        refusal="Ask your admin.",
        format=lambda docs: " | ".join(d.metadata["contract_type"] for d in docs),
    )
    assert rag.invoke(QUERY) == "Ask your admin."
    assert rag.invoke(QUERY, MSA) == "MSA"


def test_answer_or_refuse_over_a_compression_retriever_uses_the_policys_refusal() -> None:
    """Over a retriever that is not a GuardedRetriever, the guard found behind it refuses."""
    from langchain_classic.retrievers import ContextualCompressionRetriever

    model = ToolCallingChat()
    compressed = ContextualCompressionRetriever(
        base_compressor=GuardCompressor(guard=Guard.from_policy("contracts")),
        base_retriever=contract_store().as_retriever(),
    )
    rag = answer_or_refuse(compressed, USER_PROMPT | model | StrOutputParser())
    assert rag.invoke(QUERY) == "No authorized matching clause found."
    assert model.received == []
