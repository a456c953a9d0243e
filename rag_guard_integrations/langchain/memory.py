"""A checkpointed agent thread belongs to one principal and one access: those of the first
request on it, kept in the agent state (never shown to the model), so that a thread id shared
by two callers cannot put one caller's messages and tool results into the other's model input
or answer, and a thread started under wider access cannot show a later, narrower request what
only the wider access allowed (a revoked contract type, a role taken away), nor, with an
access source, what the source no longer grants (its guarded tool results are judged again
by the source at each request).

A request from another principal, one naming none, or one whose access does not cover the
access the thread has held is refused (a wider access is taken on: what the thread holds was
allowed to less): its own input is removed
from the thread (LangGraph writes a run's input before any hook runs), the run jumps to its end
without calling the model, and the end raises :class:`AccessError`, so the caller receives no
state. The thread's earlier checkpoints still hold that input, for time travel only.
:class:`~rag_guard_integrations.langchain.checkpointer.GuardedCheckpointer` applies the same
rule (:func:`refusal`) when the thread loads, so the run does not start at all.
"""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING, Annotated, Any

from langchain.agents.middleware.types import AgentState, PrivateStateAttr
from langchain_core.documents import Document
from langchain_core.messages import HumanMessage, RemoveMessage, ToolMessage
from langgraph.config import get_config
from typing_extensions import NotRequired

from rag_guard_integrations.adapters.recheck import withdrawn
from rag_guard_integrations.core.access import AccessContext
from rag_guard_integrations.core.chunk import Chunk
from rag_guard_integrations.core.errors import AccessError

if TYPE_CHECKING:
    from collections.abc import Sequence

    from rag_guard_integrations.engine.guard import Guard

logger = logging.getLogger("rag_guard_integrations")
CHECKPOINTER = "__pregel_checkpointer"  # where LangGraph keeps a run's checkpointer...
RUNTIME = "__pregel_runtime"  # ...and its runtime (whose context carries the access)


class GuardState(AgentState[Any]):
    """The agent state plus, for a checkpointed thread, who it belongs to and the widest access
    it has been used with (:meth:`AccessContext.to_dict` as JSON), its last message when that
    principal's latest run ended, and why the current run is refused."""

    rag_guard_principal: NotRequired[Annotated[str | None, PrivateStateAttr]]
    rag_guard_access: NotRequired[Annotated[str | None, PrivateStateAttr]]
    rag_guard_last: NotRequired[Annotated[str | None, PrivateStateAttr]]
    rag_guard_refused: NotRequired[Annotated[str | None, PrivateStateAttr]]


def before_run(state: Any, access: AccessContext | None, guard: Guard) -> dict[str, Any] | None:
    """The state update at the start of a run with ``access``: the thread bound to its
    principal and access, or, when it may not use the thread, its input removed and the run
    sent to its end."""
    thread = _checkpointed_thread()
    if thread is None:
        return None
    why = refusal(thread, access, state.get("rag_guard_principal"), state.get("rag_guard_access"))
    if why is None and state.get("rag_guard_principal") is not None:
        why = withdrawn_since(guard, thread, access, state.get("messages") or ())
    if why is None and access is not None:  # refusal() lets no request without access in
        return {
            "rag_guard_principal": access.principal,
            "rag_guard_access": json.dumps(access.to_dict(), sort_keys=True),
            "rag_guard_refused": None,
        }
    logger.warning("rag_guard refused the request: %s", why)
    removed = [RemoveMessage(id=m.id) for m in _this_runs_input(state) if m.id]
    return {"messages": removed, "rag_guard_refused": why, "jump_to": "end"}


def refusal(
    thread: str, access: AccessContext | None, owner: str | None, held: str | None
) -> str | None:
    """Why a request with ``access`` may not use ``thread``, bound to ``owner`` with the widest
    access ``held`` (both None for a thread no request has bound yet), or None when it may."""
    principal = None if access is None else access.principal
    if access is None or principal is None:
        return (
            f"thread {thread!r} keeps memory and the request names no principal; give the "
            "access a principal (e.g. {'principal': 'alice', ...}) so the thread is theirs alone"
        )
    if owner not in (None, principal):
        return (
            f"thread {thread!r} belongs to another principal than {principal!r}; give each "
            "caller their own thread_id"
        )
    if held is not None and not covers(access, _held(held)):
        return (
            f"thread {thread!r} holds what a wider access than this request's allowed; start "
            "a new thread_id when a caller's access narrows"
        )
    return None


def withdrawn_since(
    guard: Guard, thread: str, access: AccessContext | None, messages: Sequence[Any]
) -> str | None:
    """Why ``thread`` may not be used with ``access`` although its binding allows it: the
    guard's access source (or ACL age bound) now denies a chunk a guarded tool showed on it
    (a grant taken away since), or None."""
    count = withdrawn(guard, shown_chunks(messages), access)
    if not count:
        return None
    return (
        f"thread {thread!r} holds {count} chunk(s) this request's access no longer allows "
        "(the access source denies them now); start a new thread_id"
    )


def shown_chunks(messages: Sequence[Any]) -> list[Chunk]:
    """The Documents guarded tools returned on a thread (the artifacts of its tool messages,
    as loaded: Documents, or their stored dicts), as chunks."""
    shown: list[Chunk] = []
    for message in messages:
        artifact = getattr(message, "artifact", None) if isinstance(message, ToolMessage) else None
        for item in artifact if isinstance(artifact, list) else ():
            stored = isinstance(item, dict) and item.get("type") == "Document"
            if stored or isinstance(item, Document):
                shown.append(Chunk.from_any(item))
    return shown


def after_run(state: Any) -> dict[str, Any] | None:
    """At the end of a run: raise for a refused one, else note the thread's last message."""
    if state.get("rag_guard_refused"):
        raise AccessError(state["rag_guard_refused"])
    messages = state.get("messages") or []
    if _checkpointed_thread() is None or not messages:
        return None
    return {"rag_guard_last": messages[-1].id}


def covers(access: AccessContext, held: AccessContext) -> bool:
    """Whether ``access`` allows at least what ``held`` allowed: it names every attribute
    ``held`` names (an attribute a context does not name is denied), each with every value
    ``held`` allowed.

    Example:
        >>> wide = AccessContext("alice", contract_type={"MSA", "NDA"})
        >>> covers(wide, AccessContext("alice", contract_type={"MSA"}))
        True
        >>> covers(AccessContext("alice", contract_type={"MSA"}), wide)
        False
        >>> covers(AccessContext("alice"), wide)  # names no contract type: sees none
        False
    """
    grants = access.allowlists
    return all(
        name in grants and values <= grants[name] for name, values in held.allowlists.items()
    )


def _held(held: str) -> AccessContext:
    access = AccessContext.coerce(json.loads(held))
    assert access is not None  # written by before_run from an AccessContext
    return access


def _checkpointed_thread() -> str | None:
    configurable = get_config().get("configurable") or {}
    thread = configurable.get("thread_id")
    return None if configurable.get(CHECKPOINTER) is None or thread is None else str(thread)


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
