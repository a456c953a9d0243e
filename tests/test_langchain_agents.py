"""Guarded retrieval inside agents: ``create_guarded_retriever_tool`` and ``GuardMiddleware``
with ``langchain.agents.create_agent`` and a LangGraph ``ToolNode``, per-user access."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any

import pytest
from langchain.agents import create_agent
from langchain_core.documents import Document
from langchain_core.messages import ToolMessage
from langchain_core.prompts import PromptTemplate
from langchain_core.tools import InjectedToolCallId, create_retriever_tool, tool
from langchain_support import (
    CONTRACT_TYPES,
    QUERY,
    ListRetriever,
    contract_documents,
    contract_store,
)
from langgraph.types import Command

from rag_guard_integrations import Guard, parse_policy
from rag_guard_integrations.core.errors import ArgumentError
from rag_guard_integrations.langchain import (
    CheckedDocuments,
    GuardedRetriever,
    GuardMiddleware,
    create_guarded_retriever_tool,
)
from rag_guard_integrations.langchain.testing import RecordingHandler, ToolCallingChat

if TYPE_CHECKING:
    from langchain_core.tools import BaseTool
    from langgraph.graph.state import CompiledStateGraph

REFUSAL = "No authorized matching clause found."
QUESTION = {"messages": [("user", QUERY)]}


@dataclass
class Caller:
    """An agent's runtime context."""

    access: dict[str, list[str]]


@pytest.fixture(scope="module")
def guard() -> Guard:
    """The built-in contracts clause guard."""
    return Guard.from_policy("contracts")


def guarded_tool(guard: Guard) -> BaseTool:
    """The guarded retriever tool over the real contract store."""
    return create_guarded_retriever_tool(
        contract_store().as_retriever(), guard, name="contracts", description="Contract clauses."
    )


def agent_with(guard: Guard, tool: BaseTool | None = None) -> tuple[Any, ToolCallingChat]:
    """``create_agent`` with the stand-in model, the tool and ``GuardMiddleware``."""
    model = ToolCallingChat()
    agent = create_agent(
        model,
        [tool or guarded_tool(guard)],
        middleware=[GuardMiddleware(guard)],
        context_schema=Caller,
    )
    return agent, model


def tool_result(out: dict[str, Any]) -> ToolMessage:
    """The one tool message of an agent run."""
    [message] = [m for m in out["messages"] if isinstance(m, ToolMessage)]
    return message


def clause_of(contract_type: str) -> str:
    """The termination-notice clause text of ``contract_type``."""
    [text] = [
        d.page_content
        for d in contract_documents()
        if d.metadata["contract_type"] == contract_type
        and d.metadata["clause_id"] == "TERMINATION_NOTICE"
    ]
    return text


@pytest.mark.parametrize(
    "context", [Caller(access={"contract_type": ["MSA"]}), {"access": {"contract_type": ["MSA"]}}]
)
def test_access_comes_from_the_runtime_context(guard: Guard, context: Any) -> None:
    """An object with ``access`` or a mapping with key ``access`` gives the tool its access."""
    agent, model = agent_with(guard)
    out = agent.invoke(QUESTION, context=context)
    message = tool_result(out)
    assert message.content == clause_of("MSA")
    assert isinstance(message.artifact, CheckedDocuments)
    assert [d.metadata["contract_type"] for d in message.artifact] == ["MSA"]
    assert out["messages"][-1].content == clause_of("MSA")
    assert model.received[-1][-1].content == clause_of("MSA")


async def test_access_comes_from_configurable_async(guard: Guard) -> None:
    """``configurable["access"]`` reaches the tool through the async hooks."""
    agent, _ = agent_with(guard)
    config = {"configurable": {"access": {"contract_type": ["SOW"]}}}
    out = await agent.ainvoke(QUESTION, config=config)
    assert tool_result(out).content == clause_of("SOW")


def test_runtime_context_wins_over_configurable(guard: Guard) -> None:
    """When both are given, the runtime context decides."""
    agent, _ = agent_with(guard)
    config = {"configurable": {"access": {"contract_type": ["SOW"]}}}
    out = agent.invoke(QUESTION, config=config, context=Caller(access={"contract_type": ["NDA"]}))
    assert tool_result(out).content == clause_of("NDA")


@pytest.mark.parametrize("use_async", [False, True])
async def test_a_user_with_no_access_gets_the_refusal_as_tool_content(
    guard: Guard, use_async: bool
) -> None:
    """No access: the model reads the refusal (not an empty string) and answers with it."""
    agent, model = agent_with(guard)
    context = Caller(access={})
    out = (
        await agent.ainvoke(QUESTION, context=context)
        if use_async
        else agent.invoke(QUESTION, context=context)
    )
    message = tool_result(out)
    assert message.content == REFUSAL
    assert list(message.artifact) == []
    assert out["messages"][-1].content == REFUSAL
    texts = [str(m.content) for call in model.received for m in call]
    assert not any(clause_of(t) in text for t in CONTRACT_TYPES for text in texts)


def test_a_rejected_query_gets_the_domain_refusal() -> None:
    """A query the domain guard rejects gives the model the domain refusal."""
    guard = Guard(
        parse_policy(
            "extends: [contracts]\n"
            "domain: {blocklist: [bitcoin], refusal: 'Only contract questions, please.'}"
        )
    )
    agent, _ = agent_with(guard)
    out = agent.invoke(
        {"messages": [("user", "What is the price of bitcoin?")]},
        context=Caller(access={"contract_type": list(CONTRACT_TYPES)}),
    )
    assert tool_result(out).content == "Only contract questions, please."


def batch_configs() -> list[dict[str, Any]]:
    """One configurable access per contract type."""
    return [{"configurable": {"access": {"contract_type": [t]}}} for t in CONTRACT_TYPES]


def test_concurrent_users_stay_apart_in_batch(guard: Guard) -> None:
    """``batch`` with one access per input: each user's tool result is their own clause."""
    agent, _ = agent_with(guard)
    outs = agent.batch([QUESTION] * len(CONTRACT_TYPES), config=batch_configs())
    assert [tool_result(o).content for o in outs] == [clause_of(t) for t in CONTRACT_TYPES]


async def test_concurrent_users_stay_apart_in_abatch(guard: Guard) -> None:
    """``abatch`` likewise, several rounds so the tasks interleave."""
    agent, _ = agent_with(guard)
    for _ in range(3):
        outs = await agent.abatch([QUESTION] * len(CONTRACT_TYPES), config=batch_configs())
        assert [tool_result(o).content for o in outs] == [clause_of(t) for t in CONTRACT_TYPES]


@pytest.mark.parametrize("response_format", ["content", "content_and_artifact"])
@pytest.mark.parametrize("use_async", [False, True])
async def test_a_plain_retriever_tool_is_withheld(
    guard: Guard, response_format: Any, use_async: bool
) -> None:
    """A plain retriever tool's Documents never reach the model or a handler: refusal instead."""
    plain = create_retriever_tool(
        contract_store().as_retriever(),
        "contracts",
        "Contract clauses.",
        response_format=response_format,
    )
    agent, model = agent_with(guard, plain)
    handler = RecordingHandler()
    config: Any = {"callbacks": [handler]}
    context = Caller(access={"contract_type": ["MSA"]})
    if use_async:
        out = await agent.ainvoke(QUESTION, config=config, context=context)
    else:
        out = agent.invoke(QUESTION, config=config, context=context)
    message = tool_result(out)
    assert (message.content, message.status, message.artifact) == (REFUSAL, "error", None)
    texts = [str(m.content) for call in model.received for m in call]
    assert not any(clause_of(t) in text for t in CONTRACT_TYPES for text in texts)
    seen = "\n".join(handler.payloads)
    assert not any(clause_of(t) in seen for t in CONTRACT_TYPES)
    assert not any(p.startswith("on_retriever_start") for p in handler.payloads)


def test_agent_callbacks_carry_no_denied_clause(guard: Guard) -> None:
    """A handler on the agent sees the MSA clause and no other contract's clause."""
    agent, _ = agent_with(guard)
    handler = RecordingHandler()
    agent.invoke(
        QUESTION,
        context=Caller(access={"contract_type": ["MSA"]}),
        config={"callbacks": [handler]},
    )
    seen = "\n".join(handler.payloads)
    assert clause_of("MSA") in seen
    assert [t for t in CONTRACT_TYPES if t != "MSA" and clause_of(t) in seen] == []


def toolnode_graph(
    guard: Guard, node_wraps: dict[str, Any] | None = None
) -> CompiledStateGraph[Any, Any, Any, Any]:
    """A model node and a ToolNode with the guarded tool, in a LangGraph StateGraph."""
    from langgraph.graph import END, START, MessagesState, StateGraph
    from langgraph.prebuilt import ToolNode, tools_condition

    tool = guarded_tool(guard)
    model = ToolCallingChat().bind_tools([tool])
    builder = StateGraph(MessagesState, context_schema=Caller)
    builder.add_node("model", lambda state: {"messages": [model.invoke(state["messages"])]})
    builder.add_node("tools", ToolNode([tool], **(node_wraps or {})))
    builder.add_edge(START, "model")
    builder.add_conditional_edges("model", tools_condition, {"tools": "tools", END: END})
    builder.add_edge("tools", "model")
    return builder.compile()


@pytest.mark.parametrize(("types", "expected"), [(["CHANNEL"], "CHANNEL"), ([], None)])
def test_the_guarded_tool_works_in_a_toolnode_graph(
    guard: Guard, types: list[str], expected: str | None
) -> None:
    """In a LangGraph ToolNode the tool takes access from configurable; none gives the refusal."""
    out = toolnode_graph(guard).invoke(
        QUESTION, config={"configurable": {"access": {"contract_type": types}}}
    )
    assert tool_result(out).content == (clause_of(expected) if expected else REFUSAL)


async def test_a_toolnode_takes_runtime_context_through_the_middleware_hooks(guard: Guard) -> None:
    """GuardMiddleware's hooks as a ToolNode's wrappers give the tool the graph's context."""
    middleware = GuardMiddleware(guard)
    wraps = {
        "wrap_tool_call": middleware.wrap_tool_call,
        "awrap_tool_call": middleware.awrap_tool_call,
    }
    graph = toolnode_graph(guard, wraps)
    context = Caller(access={"contract_type": ["DPA"]})
    assert tool_result(graph.invoke(QUESTION, context=context)).content == clause_of("DPA")
    out = await graph.ainvoke(QUESTION, context=context)
    assert tool_result(out).content == clause_of("DPA")


def test_the_model_cannot_choose_access(guard: Guard) -> None:
    """The tool's only argument is the query."""
    assert list(guarded_tool(guard).args) == ["query"]


def test_middleware_refuses_unknown_arguments(guard: Guard) -> None:
    """A misspelt argument is a one-line error naming the fix."""
    with pytest.raises(ArgumentError, match="did you mean 'access'"):
        GuardMiddleware(guard, acess={"contract_type": ["MSA"]})


def test_a_command_carrying_unchecked_documents_is_withheld(guard: Guard) -> None:
    """A tool that answers with a Command whose tool message holds Documents is refused too."""

    @tool
    def contracts(query: str, tool_call_id: Annotated[str, InjectedToolCallId]) -> Command[Any]:
        """Contract clauses."""
        docs = contract_store().as_retriever().invoke(query)
        text = "\n\n".join(d.page_content for d in docs)
        message = ToolMessage(text, artifact=docs, tool_call_id=tool_call_id)
        return Command(update={"messages": [message]})

    agent, model = agent_with(guard, contracts)
    out = agent.invoke(QUESTION, context=Caller(access={"contract_type": ["MSA"]}))
    assert (tool_result(out).content, tool_result(out).status) == (REFUSAL, "error")
    texts = [str(m.content) for call in model.received for m in call]
    assert not any(clause_of(t) in text for t in CONTRACT_TYPES for text in texts)


@pytest.mark.parametrize("use_async", [False, True])
async def test_a_document_prompt_shows_the_model_only_what_the_guard_judged(
    use_async: bool,
) -> None:
    """Metadata a ``document_prompt`` renders is judged as text: a password there stays out."""
    documents = [
        Document("Public note about widgets.", metadata={"note": "password: hunter2x99"}, id="p1"),
        Document("Public note about gadgets.", metadata={"note": "reviewed"}, id="p2"),
    ]
    tool = create_guarded_retriever_tool(
        ListRetriever(documents=documents),
        Guard.from_policy("default"),
        name="notes",
        description="Notes.",
        document_prompt=PromptTemplate.from_template("{page_content} [{note}]"),
    )
    call = {"type": "tool_call", "id": "1", "name": "notes", "args": {"query": "widgets"}}
    message = await tool.ainvoke(call) if use_async else tool.invoke(call)
    assert message.content == "Public note about gadgets. [reviewed]"
    assert [d.id for d in message.artifact] == ["p2"]


def test_a_retriever_tool_over_a_guarded_retriever_reaches_the_model(guard: Guard) -> None:
    """``create_retriever_tool`` over a GuardedRetriever, content only, passes the allowed text."""
    guarded = GuardedRetriever(retriever=contract_store().as_retriever(), guard=guard)
    agent, _ = agent_with(guard, create_retriever_tool(guarded, "contracts", "Contract clauses."))
    config: Any = {"configurable": {"access": {"contract_type": ["MSA"]}}}
    assert tool_result(agent.invoke(QUESTION, config=config)).content == clause_of("MSA")
