"""GuardedCheckpointer loads a bound thread only for a request that may use it: a refused
caller's run never starts, so no stream shows the thread and no input of theirs changes it."""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pytest
from langchain.agents import create_agent
from langchain_core.messages import HumanMessage, RemoveMessage
from langchain_support import QUERY, ListRetriever, contract_documents
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph.message import REMOVE_ALL_MESSAGES

from rag_guard_integrations import Guard
from rag_guard_integrations.core.errors import AccessError
from rag_guard_integrations.langchain import (
    GuardedCheckpointer,
    GuardMiddleware,
    create_guarded_retriever_tool,
)
from rag_guard_integrations.langchain.testing import ToolCallingChat, payload_text

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

GUARD = Guard.from_policy("contracts")
ALICE_ASKS = "Alice's own question about the MSA"


@dataclass
class Caller:
    """A runtime context that carries the caller's access."""

    access: dict[str, Any]


def guarded_agent(context: bool = False) -> tuple[Any, ToolCallingChat, InMemorySaver]:
    """An agent whose checkpointer is a GuardedCheckpointer over an InMemorySaver."""
    tool = create_guarded_retriever_tool(
        ListRetriever(documents=contract_documents()), GUARD, name="c", description="Clauses."
    )
    model, saver, middleware = ToolCallingChat(), InMemorySaver(), GuardMiddleware(GUARD)
    agent = create_agent(
        model,
        [tool],
        middleware=[middleware],
        checkpointer=GuardedCheckpointer(saver, middleware),
        context_schema=Caller if context else None,
    )
    return agent, model, saver


def access(principal: str | None, contract_type: str) -> dict[str, Any]:
    given: dict[str, Any] = {"contract_type": [contract_type]}
    if principal is not None:
        given["principal"] = principal
    return given


def on_thread(principal: str | None, contract_type: str, thread: str = "t") -> dict[str, Any]:
    return {"configurable": {"thread_id": thread, "access": access(principal, contract_type)}}


async def drain(events: AsyncIterator[Any], into: list[Any]) -> None:
    """Every event of ``events`` into ``into``, until the stream ends or raises."""
    async for event in events:
        into.append(event)  # noqa: PERF401 - what came before an error counts


def alices_thread(agent: Any) -> str:
    """Alice's first turn on thread ``t``; the MSA clause it put there."""
    out = agent.invoke({"messages": [("user", ALICE_ASKS)]}, on_thread("alice", "MSA"))
    [clause] = [m.content for m in out["messages"] if m.type == "tool"]
    return str(clause)


@pytest.mark.parametrize("mode", ["values", "updates", "debug", "checkpoints", "tasks", "messages"])
def test_a_refused_caller_streaming_the_state_sees_nothing_of_the_thread(mode: str) -> None:
    """Bob streams Alice's thread in every stream mode: AccessError before the first chunk,
    and the model is never called."""
    agent, model, _ = guarded_agent()
    alices_thread(agent)
    calls_before = len(model.received)
    chunks: list[Any] = []
    stream = agent.stream(
        {"messages": [("user", "Bob asks")]}, on_thread("bob", "SOW"), stream_mode=mode
    )
    with pytest.raises(AccessError, match="belongs to another principal than 'bob'"):
        chunks.extend(stream)  # keeps what came before the error
    assert chunks == []
    assert len(model.received) == calls_before


async def test_a_refused_caller_streaming_events_sees_nothing_of_the_thread() -> None:
    """``astream_events`` of a refused run carries the caller's own input only: no message of
    Alice's thread, neither her question nor her clause."""
    agent, _, _ = guarded_agent()
    clause = alices_thread(agent)
    events: list[Any] = []
    stream = agent.astream_events(
        {"messages": [("user", "Bob asks")]}, on_thread("bob", "SOW"), version="v2"
    )
    with pytest.raises(AccessError):
        await drain(stream, events)
    seen = payload_text(events)
    assert clause not in seen
    assert ALICE_ASKS not in seen


def test_a_narrower_access_is_refused_when_the_thread_loads() -> None:
    """Alice read an NDA clause under MSA and NDA; under MSA alone the thread does not load."""
    agent, _, _ = guarded_agent()
    wide = {
        "configurable": {
            "thread_id": "t",
            "access": {"principal": "alice", "contract_type": ["MSA", "NDA"]},
        }
    }
    agent.invoke({"messages": [("user", QUERY)]}, wide)
    chunks: list[Any] = []
    stream = agent.stream(
        {"messages": [("user", "And now?")]}, on_thread("alice", "MSA"), stream_mode="values"
    )
    with pytest.raises(AccessError, match="wider access than this request"):
        chunks.extend(stream)
    assert chunks == []


def test_a_refused_input_that_removes_messages_removes_nothing() -> None:
    """Bob's ``RemoveMessage(REMOVE_ALL_MESSAGES)`` is never written: Alice's thread keeps
    every message."""
    agent, _, saver = guarded_agent()
    alices_thread(agent)
    before = saver.get_tuple({"configurable": {"thread_id": "t"}})
    assert before is not None
    removal = {"messages": [RemoveMessage(id=REMOVE_ALL_MESSAGES)]}
    with pytest.raises(AccessError):
        agent.invoke(removal, on_thread("bob", "SOW"))
    state = agent.get_state(on_thread("alice", "MSA")).values
    assert [m.content for m in state["messages"]] == [
        m.content for m in before.checkpoint["channel_values"]["messages"]
    ]


async def test_access_in_the_runtime_context_is_read_as_the_middleware_reads_it() -> None:
    """With the access in ``context=``, Alice carries on and Bob is refused, sync and async."""
    agent, _, _ = guarded_agent(context=True)
    thread = {"configurable": {"thread_id": "t"}}
    agent.invoke({"messages": [("user", QUERY)]}, thread, context=Caller(access("alice", "MSA")))
    again = await agent.ainvoke(
        {"messages": [("user", "And again?")]}, thread, context=Caller(access("alice", "MSA"))
    )
    humans = [m.content for m in again["messages"] if isinstance(m, HumanMessage)]
    assert humans == [QUERY, "And again?"]
    with pytest.raises(AccessError, match="another principal than 'bob'"):
        await agent.ainvoke(
            {"messages": [("user", "Bob asks")]}, thread, context=Caller(access("bob", "SOW"))
        )


def test_reading_a_bound_thread_outside_a_run_needs_an_access_that_may_use_it() -> None:
    """``get_state`` and ``get_state_history`` with no access, or Bob's, are refused; with
    Alice's they read the thread; the wrapped saver reads anything."""
    agent, _, saver = guarded_agent()
    clause = alices_thread(agent)
    with pytest.raises(AccessError, match="names no principal"):
        agent.get_state({"configurable": {"thread_id": "t"}})
    with pytest.raises(AccessError, match="another principal"):
        list(agent.get_state_history(on_thread("bob", "SOW")))
    assert clause in payload_text(agent.get_state(on_thread("alice", "MSA")).values["messages"])
    assert len(list(agent.get_state_history(on_thread("alice", "MSA")))) > 1
    assert saver.get_tuple({"configurable": {"thread_id": "t"}}) is not None


def test_a_new_thread_loads_for_any_request_and_each_caller_keeps_their_own() -> None:
    """The wrapper refuses bound threads only: two callers on two new threads both answer."""
    agent, _, _ = guarded_agent()
    for principal, contract_type in (("alice", "MSA"), ("bob", "SOW")):
        config = on_thread(principal, contract_type, thread=principal)
        out = agent.invoke({"messages": [("user", QUERY)]}, config)
        assert [m.type for m in out["messages"]][-1] == "ai"


def test_an_agent_whose_checkpointer_is_not_guarded_is_told_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The middleware logs one WARNING naming the fix, however many runs follow."""
    tool = create_guarded_retriever_tool(
        ListRetriever(documents=contract_documents()), GUARD, name="c", description="Clauses."
    )
    agent = create_agent(
        ToolCallingChat(), [tool], middleware=[GuardMiddleware(GUARD)], checkpointer=InMemorySaver()
    )
    with caplog.at_level(logging.WARNING, logger="rag_guard_integrations"):
        for turn in ("first", "second"):
            agent.invoke({"messages": [("user", turn)]}, on_thread("alice", "MSA"))
    told = [r for r in caplog.records if "not a GuardedCheckpointer" in r.getMessage()]
    assert len(told) == 1


def test_an_earlier_checkpoint_of_a_bound_thread_is_refused_too() -> None:
    """The checkpoints written before the thread was bound hold Alice's first question but no
    binding: asked for by ``checkpoint_id`` (a run or ``get_state``), they are refused to
    Bob as well."""
    agent, model, saver = guarded_agent()
    alices_thread(agent)
    first = list(saver.list({"configurable": {"thread_id": "t"}}))[-1]
    assert ALICE_ASKS in payload_text(first.checkpoint["channel_values"])
    assert "rag_guard_principal" not in first.checkpoint["channel_values"]
    bob = on_thread("bob", "SOW")
    bob["configurable"]["checkpoint_id"] = first.config["configurable"]["checkpoint_id"]
    calls_before = len(model.received)
    chunks: list[Any] = []
    stream = agent.stream({"messages": [("user", "Bob asks")]}, bob, stream_mode="values")
    with pytest.raises(AccessError, match="another principal than 'bob'"):
        chunks.extend(stream)
    assert chunks == []
    assert len(model.received) == calls_before
    with pytest.raises(AccessError, match="another principal than 'bob'"):
        agent.get_state(bob)


async def test_a_checkpoint_id_the_thread_lacks_is_refused_too() -> None:
    """A made-up ``checkpoint_id`` finds nothing: it is judged by the thread's latest
    checkpoint, so Bob neither starts a run that takes over Alice's thread nor writes state
    into it, sync or async, and Alice carries on."""
    agent, _, _ = guarded_agent()
    alices_thread(agent)
    bob = on_thread("bob", "SOW")
    bob["configurable"]["checkpoint_id"] = str(uuid.uuid4())
    with pytest.raises(AccessError, match="another principal than 'bob'"):
        agent.invoke({"messages": [("user", "Bob asks")]}, bob)
    with pytest.raises(AccessError, match="another principal than 'bob'"):
        await agent.ainvoke({"messages": [("user", "Bob asks")]}, bob)
    with pytest.raises(AccessError, match="another principal than 'bob'"):
        agent.update_state(bob, {"messages": [("user", "Bob writes")]}, as_node="model")
    again = agent.invoke({"messages": [("user", "And again?")]}, on_thread("alice", "MSA"))
    said = payload_text(again["messages"])
    assert ALICE_ASKS in said
    assert "Bob" not in said
