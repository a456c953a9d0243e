"""GuardMiddleware judges every tool it cannot vouch for by what the tool really did: Documents
anywhere in its raw return value, artifact or Command update, and retriever runs inside it; a
withheld result reaches no model, handler or trace, and shadow mode only records."""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING, Annotated, Any

import pytest
from langchain.agents import create_agent
from langchain_core.documents import Document
from langchain_core.messages import ToolMessage
from langchain_core.tools import InjectedToolCallId, create_retriever_tool, tool
from langchain_support import QUERY, ListRetriever, contract_documents
from langgraph.types import Command

from rag_guard_integrations import Guard, RetrievalError, parse_policy
from rag_guard_integrations.langchain import GuardedRetriever, GuardMiddleware
from rag_guard_integrations.langchain.testing import (
    RecordingHandler,
    RecordingTracer,
    ToolCallingChat,
)

if TYPE_CHECKING:
    from langchain_core.tools import BaseTool

MSA = {"configurable": {"access": {"contract_type": ["MSA"]}}}
REFUSAL = "No authorized matching clause found."
CONTRACTS = Guard.from_policy("contracts")
SHADOW = Guard(parse_policy("extends: [contracts]\nloosen: [mode]\nmode: shadow"))
# Module-level, as an app keeps its retriever: no closure of a tool shows it.
EVERY_CLAUSE = ListRetriever(documents=contract_documents())


def clause_texts() -> list[str]:
    """The text of every contract clause."""
    return [d.page_content for d in contract_documents()]


@tool
def document_list(query: str) -> list[Document]:
    """Contract clauses (a list of Documents LangChain stringifies into the content)."""
    return EVERY_CLAUSE.invoke(query)


@tool(response_format="content_and_artifact")
def document_mapping(query: str) -> tuple[str, dict[str, Any]]:
    """Contract clauses as an artifact mapping contract types to Documents in tuples."""
    found: dict[str, list[tuple[Document]]] = {}
    for document in EVERY_CLAUSE.invoke(query):
        found.setdefault(document.metadata["contract_type"], []).append((document,))
    return "clauses by contract type", {"nested": {"by_type": found}}


@tool
def joined_text(query: str) -> str:
    """Contract clauses joined into one string (the retriever run inside gives it away)."""
    return "\n\n".join(d.page_content for d in EVERY_CLAUSE.invoke(query))


@tool
def state_update(query: str, tool_call_id: Annotated[str, InjectedToolCallId]) -> Command[Any]:
    """A Command whose state update carries Documents outside its messages."""
    stored = tuple(Document(text) for text in clause_texts())
    message = ToolMessage("stored the clauses", tool_call_id=tool_call_id)
    return Command(update={"messages": [message], "notes": {"kept": [stored]}})


@tool
def word_count(query: str) -> str:
    """An ordinary tool: how many words the question has."""
    return f"{len(query.split())} words"


def run_agent(guard: Guard, tools: list[BaseTool], **config: Any) -> tuple[dict[str, Any], Any]:
    """One agent run with a handler and a tracer; the output and what the app observed."""
    model = ToolCallingChat()
    agent = create_agent(model, tools, middleware=[GuardMiddleware(guard)])
    handler, tracer = RecordingHandler(), RecordingTracer()
    out = agent.invoke(
        {"messages": [("user", QUERY)]}, config={**MSA, **config, "callbacks": [handler, tracer]}
    )
    observed = "\n".join([*handler.payloads, *tracer.texts()])
    return out, (model, observed, handler)


def tool_messages(out: dict[str, Any]) -> list[ToolMessage]:
    """The tool messages of an agent run."""
    return [m for m in out["messages"] if isinstance(m, ToolMessage)]


@pytest.mark.parametrize("unchecked", [document_list, document_mapping, joined_text, state_update])
def test_a_tool_result_carrying_unchecked_documents_is_withheld_from_every_channel(
    unchecked: BaseTool, caplog: pytest.LogCaptureFixture
) -> None:
    """The refusal replaces the whole result; no clause reaches the model, a handler or a
    trace; the withholding is logged and audited without text."""
    with caplog.at_level(logging.INFO, logger="rag_guard_integrations"):
        out, (model, observed, _) = run_agent(CONTRACTS, [unchecked])
    [message] = tool_messages(out)
    assert (message.content, message.status, message.artifact) == (REFUSAL, "error", None)
    assert "notes" not in out
    texts = [str(m.content) for call in model.received for m in call]
    assert not any(clause in text for clause in clause_texts() for text in texts)
    assert not any(clause in observed for clause in clause_texts())
    assert f"on_tool_end {REFUSAL}" in observed or REFUSAL in observed
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert any(f"withheld the result of tool {unchecked.name!r}" in w for w in warnings)
    [audit] = [r for r in caplog.records if r.name == "rag_guard_integrations.audit"]
    record = json.loads(audit.getMessage())
    assert record["refused"] is True
    assert {c["stage"] for c in record["chunks"]} <= {"tool_result"}
    assert not any(clause in audit.getMessage() for clause in clause_texts())


async def test_the_async_hooks_judge_the_same_way() -> None:
    """``ainvoke`` withholds a plain Document tool too."""
    model = ToolCallingChat()
    agent = create_agent(model, [document_list], middleware=[GuardMiddleware(CONTRACTS)])
    handler = RecordingHandler()
    events = [
        payload
        async for payload in agent.astream_events(
            {"messages": [("user", QUERY)]}, {**MSA, "callbacks": [handler]}, version="v2"
        )
    ]
    seen = "\n".join([*handler.payloads, repr(events)])
    assert not any(clause in seen for clause in clause_texts())
    assert model.received[-1][-1].content == REFUSAL


def test_a_tool_returning_a_guarded_retrievers_documents_passes() -> None:
    """Documents a GuardedRetriever returned inside the tool came through a guard: they pass."""
    guarded = GuardedRetriever(retriever=EVERY_CLAUSE, guard=CONTRACTS)

    @tool
    def checked_clauses(query: str) -> list[Document]:
        """Contract clauses the caller may see."""
        return guarded.invoke(query)

    out, _ = run_agent(CONTRACTS, [checked_clauses])
    [message] = tool_messages(out)
    assert message.status == "success"
    assert "MSA" in str(message.content)
    assert not any(
        d.page_content in str(message.content)
        for d in contract_documents()
        if d.metadata["contract_type"] != "MSA"
    )


def test_an_ordinary_tool_runs_and_is_reported() -> None:
    """A tool that touches no Documents returns its result, and its call reaches handlers."""
    out, (_, observed, handler) = run_agent(CONTRACTS, [word_count])
    [message] = tool_messages(out)
    assert message.content == "6 words"
    assert any(p.startswith("on_tool_end") and "6 words" in p for p in handler.payloads)
    assert "word_count" in observed


def test_a_failing_tool_that_fetched_quotes_nothing() -> None:
    """An error raised after the tool fetched is reported by its type only."""

    @tool
    def broken(query: str) -> str:
        """Contract clauses, then a failure quoting one."""
        first = EVERY_CLAUSE.invoke(query)[0]
        raise ValueError(f"cannot format {first.page_content}")

    model = ToolCallingChat()
    agent = create_agent(model, [broken], middleware=[GuardMiddleware(CONTRACTS)])
    handler, tracer = RecordingHandler(), RecordingTracer()
    with pytest.raises(RetrievalError, match="raised ValueError") as raised:
        agent.invoke(
            {"messages": [("user", QUERY)]}, config={**MSA, "callbacks": [handler, tracer]}
        )
    assert raised.value.__context__ is None
    everything = "\n".join([str(raised.value), *handler.payloads, *tracer.texts()])
    assert "RetrievalError" in everything
    assert not any(clause in everything for clause in clause_texts())


@pytest.mark.parametrize("use_async", [False, True])
async def test_shadow_mode_withholds_nothing_and_records_the_would_be_decision(
    use_async: bool, caplog: pytest.LogCaptureFixture
) -> None:
    """Under ``mode: shadow`` an unguarded retriever tool and a Document tool run as they
    would without the middleware; each would-be refusal is logged and audited, unenforced."""
    plain = create_retriever_tool(EVERY_CLAUSE, "plain_retriever", "Contract clauses.")
    model = ToolCallingChat()
    agent = create_agent(model, [plain, document_list], middleware=[GuardMiddleware(SHADOW)])
    question = {"messages": [("user", QUERY)]}
    with caplog.at_level(logging.INFO, logger="rag_guard_integrations"):
        out = await agent.ainvoke(question, MSA) if use_async else agent.invoke(question, MSA)
    assert [m.status for m in tool_messages(out)] == ["success", "success"]
    assert all(REFUSAL not in str(m.content) for m in tool_messages(out))
    sent = "\n".join(str(m.content) for m in model.received[-1])
    assert all(clause in sent for clause in clause_texts()[:3])
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert sum("would withhold (shadow mode, not enforced)" in w for w in warnings) == 2
    audits = [
        json.loads(r.getMessage())
        for r in caplog.records
        if r.name == "rag_guard_integrations.audit"
    ]
    assert [(a["mode"], a["refused"]) for a in audits] == [("shadow", False)] * 2
    denied = [c for a in audits for c in a["chunks"]]
    assert denied
    assert all(
        (c["decision"], c["enforced"], c["stage"]) == ("deny", False, "tool_result") for c in denied
    )


def test_an_unguarded_retriever_tool_is_still_refused_before_it_runs() -> None:
    """Enforcing, a ``create_retriever_tool`` tool over a plain retriever never runs."""
    inner = ListRetriever(documents=contract_documents())
    plain = create_retriever_tool(inner, "plain_retriever", "Contract clauses.")
    out, _ = run_agent(CONTRACTS, [plain])
    assert [m.content for m in tool_messages(out)] == [REFUSAL]
    assert inner.calls == []


@tool
def dumped_documents(query: str) -> list[dict[str, Any]]:
    """Contract clauses as plain mappings, shaped like Documents, built without a retriever."""
    return [{"page_content": text, "metadata": {}} for text in clause_texts()]


def test_document_shaped_mappings_count_as_documents() -> None:
    """A mapping with a ``page_content`` string is a Document by another name: withheld."""
    out, (model, observed, _) = run_agent(CONTRACTS, [dumped_documents])
    assert [m.content for m in tool_messages(out)] == [REFUSAL]
    assert not any(clause in observed for clause in clause_texts())
    assert model.received[-1][-1].content == REFUSAL


def test_a_custom_tool_reaching_a_guard_gets_the_middlewares_access() -> None:
    """A pinned middleware's access reaches the GuardedRetriever inside an ordinary tool, so
    a wider ``configurable["access"]`` cannot widen it there either."""
    guarded = GuardedRetriever(retriever=EVERY_CLAUSE, guard=CONTRACTS)

    @tool
    def notice_clauses(query: str) -> str:
        """The notice clauses the caller may see, as text."""
        return "\n\n".join(d.page_content for d in guarded.invoke(query))

    model = ToolCallingChat()
    middleware = GuardMiddleware(CONTRACTS, access={"contract_type": ["MSA"]}, pin_access=True)
    agent = create_agent(model, [notice_clauses], middleware=[middleware])
    every_type = {"contract_type": ["MSA", "SOW", "NDA", "DPA", "CHANNEL"]}
    out = agent.invoke({"messages": [("user", QUERY)]}, {"configurable": {"access": every_type}})
    [message] = tool_messages(out)
    msa = [d.page_content for d in contract_documents() if d.metadata["contract_type"] == "MSA"]
    assert message.content in msa
