"""A checkpointed agent thread belongs to one principal: the first to use it, kept in the agent
state (never shown to the model), so that a thread id shared by two callers cannot put one
caller's messages and tool results into the other's model input or answer.

A request from another principal, or one naming none, is refused: its own input is removed
from the thread (LangGraph writes a run's input before any hook runs), the run jumps to its end
without calling the model, and the end raises :class:`AccessError`, so the caller receives no
state. The thread's earlier checkpoints still hold that input, for time travel only.
"""

from __future__ import annotations

import logging
from typing import Annotated, Any

from langchain.agents.middleware.types import AgentState, PrivateStateAttr
from langchain_core.messages import HumanMessage, RemoveMessage
from langgraph.config import get_config
from typing_extensions import NotRequired

from rag_guard_integrations.core.errors import AccessError

logger = logging.getLogger("rag_guard_integrations")
_CHECKPOINTER = "__pregel_checkpointer"  # where LangGraph keeps a run's checkpointer


class GuardState(AgentState[Any]):
    """The agent state plus, for a checkpointed thread, who it belongs to, its last message
    when that principal's latest run ended, and why the current run is refused."""

    rag_guard_principal: NotRequired[Annotated[str | None, PrivateStateAttr]]
    rag_guard_last: NotRequired[Annotated[str | None, PrivateStateAttr]]
    rag_guard_refused: NotRequired[Annotated[str | None, PrivateStateAttr]]


def before_run(state: Any, principal: str | None) -> dict[str, Any] | None:
    """The state update at the start of a run of ``principal``: the thread bound to it, or,
    when it may not use the thread, its input removed and the run sent to its end."""
    thread = _checkpointed_thread()
    if thread is None:
        return None
    owner = state.get("rag_guard_principal")
    if principal is None:
        why = (
            f"thread {thread!r} keeps memory and the request names no principal; give the "
            "access a principal (e.g. {'principal': 'alice', ...}) so the thread is theirs alone"
        )
    elif owner not in (None, principal):
        why = (
            f"thread {thread!r} belongs to another principal than {principal!r}; give each "
            "caller their own thread_id"
        )
    else:
        return {"rag_guard_principal": principal, "rag_guard_refused": None}
    logger.warning("rag_guard refused the request: %s", why)
    removed = [RemoveMessage(id=m.id) for m in _this_runs_input(state) if m.id]
    return {"messages": removed, "rag_guard_refused": why, "jump_to": "end"}


def after_run(state: Any) -> dict[str, Any] | None:
    """At the end of a run: raise for a refused one, else note the thread's last message."""
    if state.get("rag_guard_refused"):
        raise AccessError(state["rag_guard_refused"])
    messages = state.get("messages") or []
    if _checkpointed_thread() is None or not messages:
        return None
    return {"rag_guard_last": messages[-1].id}


def _checkpointed_thread() -> str | None:
    configurable = get_config().get("configurable") or {}
    thread = configurable.get("thread_id")
    return None if configurable.get(_CHECKPOINTER) is None or thread is None else str(thread)


def _this_runs_input(state: Any) -> list[Any]:
    """The messages after the thread's last message of the owner's latest run (with none
    noted, the trailing human messages)."""
    messages = list(state.get("messages") or [])
    last = state.get("rag_guard_last")
    ids = [m.id for m in messages]
    if last in ids:
        return messages[ids.index(last) + 1 :]
    trailing: list[Any] = []
    for message in reversed(messages):
        if not isinstance(message, HumanMessage):
            break
        trailing.insert(0, message)
    return trailing
