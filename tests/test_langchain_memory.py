"""A checkpointed agent thread is one principal's: GuardMiddleware binds it to the first
principal that used it and refuses any other request, before the model reads the thread."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.messages import HumanMessage, ToolMessage
from langchain_support import QUERY, ListRetriever, contract_documents
from langgraph.checkpoint.memory import InMemorySaver

from rag_guard_integrations import Guard
from rag_guard_integrations.core.errors import AccessError
from rag_guard_integrations.langchain import GuardMiddleware, create_guarded_retriever_tool
from rag_guard_integrations.langchain.testing import ToolCallingChat, payload_text

GUARD = Guard.from_policy("contracts")
QUESTION = {"messages": [("user", QUERY)]}


def memory_agent(checkpointer: Any = None) -> tuple[Any, ToolCallingChat]:
    """An agent with the guarded tool over every clause, GuardMiddleware and a checkpointer."""
    tool = create_guarded_retriever_tool(
        ListRetriever(documents=contract_documents()), GUARD, name="c", description="Clauses."
    )
    model = ToolCallingChat()
    saver = InMemorySaver() if checkpointer is None else checkpointer
    agent = create_agent(model, [tool], middleware=[GuardMiddleware(GUARD)], checkpointer=saver)
    return agent, model


def as_user(thread: str, principal: str | None, contract_type: str) -> dict[str, Any]:
    """The config of ``principal`` asking on ``thread``."""
    access: dict[str, Any] = {"contract_type": [contract_type]}
    if principal is not None:
        access["principal"] = principal
    return {"configurable": {"thread_id": thread, "access": access}}


def clause_of(contract_type: str) -> str:
    """The termination-notice clause text of ``contract_type``."""
    [text] = [
        d.page_content
        for d in contract_documents()
        if d.metadata["contract_type"] == contract_type
        and d.metadata["clause_id"] == "TERMINATION_NOTICE"
    ]
    return text


@pytest.mark.parametrize("use_async", [False, True])
async def test_a_shared_thread_id_never_puts_one_callers_clause_in_anothers_model_input(
    use_async: bool, caplog: pytest.LogCaptureFixture
) -> None:
    """Bob asking on Alice's thread is refused with a warning; his model call never happens,
    his question leaves no trace in her thread, and she carries on."""
    agent, model = memory_agent()

    async def ask(config: dict[str, Any], text: str = QUERY) -> dict[str, Any]:
        question = {"messages": [("user", text)]}
        return (
            await agent.ainvoke(question, config) if use_async else agent.invoke(question, config)
        )

    alice = await ask(as_user("shared", "alice", "MSA"))
    assert [m.content for m in alice["messages"] if isinstance(m, ToolMessage)] == [
        clause_of("MSA")
    ]
    calls_before = len(model.received)
    refused = pytest.raises(AccessError, match="belongs to another principal than 'bob'")
    with caplog.at_level(logging.WARNING, logger="rag_guard_integrations"), refused:
        await ask(as_user("shared", "bob", "SOW"), "Bob's private question")
    assert len(model.received) == calls_before
    assert any("refused the request" in r.getMessage() for r in caplog.records)
    state = agent.get_state({"configurable": {"thread_id": "shared"}}).values
    assert "Bob's private question" not in payload_text(state["messages"])
    again = await ask(as_user("shared", "alice", "MSA"), "And the renewal term?")
    humans = [m.content for m in again["messages"] if isinstance(m, HumanMessage)]
    assert humans == [QUERY, "And the renewal term?"]
    assert "Bob's private question" not in payload_text(model.received)


def test_a_checkpointed_thread_without_a_principal_is_refused() -> None:
    """No principal, no memory: the request is refused before the model is called."""
    agent, model = memory_agent()
    with pytest.raises(AccessError, match="names no principal"):
        agent.invoke(QUESTION, as_user("anonymous", None, "MSA"))
    assert model.received == []


def test_each_caller_keeps_their_own_thread() -> None:
    """Two principals on two threads each see their own clause."""
    agent, _ = memory_agent()
    for principal, contract_type in (("alice", "MSA"), ("bob", "SOW")):
        out = agent.invoke(QUESTION, as_user(principal, principal, contract_type))
        tools = [m.content for m in out["messages"] if isinstance(m, ToolMessage)]
        assert tools == [clause_of(contract_type)]


def test_without_a_checkpointer_no_principal_is_needed() -> None:
    """An agent with no memory answers an anonymous caller as before."""
    tool = create_guarded_retriever_tool(
        ListRetriever(documents=contract_documents()), GUARD, name="c", description="Clauses."
    )
    agent = create_agent(ToolCallingChat(), [tool], middleware=[GuardMiddleware(GUARD)])
    out = agent.invoke(QUESTION, as_user("any", None, "NDA"))
    assert out["messages"][-1].content == clause_of("NDA")
    assert "rag_guard_principal" not in out


def test_a_thread_is_refused_to_its_principal_once_their_access_narrows() -> None:
    """Alice read an NDA clause on the thread; with NDA taken away her next request is refused
    before the model reads the thread, so the clause cannot reach her model input again."""
    agent, model = memory_agent()
    wide = {
        "configurable": {
            "thread_id": "t",
            "access": {"principal": "alice", "contract_type": ["MSA", "NDA"]},
        }
    }
    first = agent.invoke({"messages": [("user", QUERY)]}, wide)
    assert clause_of("NDA") in payload_text(first["messages"])
    calls_before = len(model.received)
    with pytest.raises(AccessError, match="wider access than this request"):
        agent.invoke({"messages": [("user", "And now?")]}, as_user("t", "alice", "MSA"))
    assert len(model.received) == calls_before


def test_a_thread_carries_on_when_its_principals_access_widens() -> None:
    """What the thread holds was allowed to less: a wider access is taken on (the model reads
    the thread again), and narrowing back to the first access is refused then."""
    agent, model = memory_agent()
    agent.invoke(QUESTION, as_user("t", "alice", "MSA"))
    calls_before = len(model.received)
    wide = {
        "configurable": {
            "thread_id": "t",
            "access": {"principal": "alice", "contract_type": ["MSA", "SOW"]},
        }
    }
    out = agent.invoke({"messages": [("user", "And the SOW?")]}, wide)
    assert len(model.received) > calls_before
    assert "And the SOW?" in payload_text(out["messages"])
    with pytest.raises(AccessError, match="wider access than this request"):
        agent.invoke({"messages": [("user", "Back to MSA")]}, as_user("t", "alice", "MSA"))


def test_a_thread_is_refused_to_a_request_that_leaves_out_an_attribute_it_was_granted() -> None:
    """An access that names no contract type sees none: on a thread that read an MSA clause it
    is narrower, so it is refused, not handed the thread."""
    agent, model = memory_agent()
    agent.invoke(QUESTION, as_user("t", "alice", "MSA"))
    calls_before = len(model.received)
    bare = {"configurable": {"thread_id": "t", "access": {"principal": "alice"}}}
    with pytest.raises(AccessError, match="wider access than this request"):
        agent.invoke({"messages": [("user", "And now?")]}, bare)
    assert len(model.received) == calls_before
