"""A checkpointed agent thread belongs to one principal and one access: those of the first
request on it, kept in the agent state (never shown to the model), so that a thread id shared
by two callers cannot put one caller's messages and tool results into the other's model input
or answer, and a thread started under wider access cannot show a later, narrower request what
only the wider access allowed (a revoked contract type, a role taken away).

A request from another principal, one naming none, or one whose access does not cover the
access the thread has held is refused (a wider access is taken on: what the thread holds was
allowed to less): its own input is removed from the thread (LangGraph writes a run's input
before any hook runs), the run jumps to its end without calling the model, and the end raises
:class:`AccessError`, so the caller receives no state. The thread's earlier checkpoints still
hold that input, for time travel only.

Inside the model node the binding is checked again (a run that skipped the agent's start by
``Command(goto=...)`` is judged too). With an access source, the thread also keeps notes of
the chunks its tool calls' guards let through (ids and resource ids), and before every model
call the source judges them again: when it no longer grants one (a grant taken away since),
the call raises :class:`AccessError` and the model does not read the thread again, whatever
the messages still show of it (an answer quoting it, a summary).

:class:`~rag_guard_integrations.langchain.checkpointer.GuardedCheckpointer` applies the same
rules (:func:`refusal`, :func:`withdrawn_since`) when the thread loads, so the run does not
start at all.
"""

from __future__ import annotations

import json
import logging
import operator
from typing import TYPE_CHECKING, Annotated, Any

from langchain.agents.middleware.types import AgentState, PrivateStateAttr
from langchain_core.messages import HumanMessage, RemoveMessage
from langgraph.config import get_config
from typing_extensions import NotRequired

from rag_guard_integrations.adapters.recheck import withdrawn
from rag_guard_integrations.core.access import AccessContext
from rag_guard_integrations.core.errors import AccessError

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from rag_guard_integrations.authz.source import AccessSource

logger = logging.getLogger("rag_guard_integrations")
CHECKPOINTER = "__pregel_checkpointer"  # where LangGraph keeps a run's checkpointer...
RUNTIME = "__pregel_runtime"  # ...and its runtime (whose context carries the access)
SHOWN = "rag_guard_shown"  # the state key of the thread's notes of what it was shown
TASK = "__pregel_task_id"  # where LangGraph keeps the id of the task a node runs in
PRINCIPAL, HELD = "rag_guard_principal", "rag_guard_access"  # the state keys of the binding


class GuardState(AgentState[Any]):
    """The agent state plus, for a checkpointed thread, who it belongs to and the widest access
    it has been used with (:meth:`AccessContext.to_dict` as JSON), its last message when that
    principal's latest run ended, why the current run is refused, and notes of the chunks its
    guarded tool calls let through (no text), to judge again with the access source."""

    rag_guard_principal: NotRequired[Annotated[str | None, PrivateStateAttr]]
    rag_guard_access: NotRequired[Annotated[str | None, PrivateStateAttr]]
    rag_guard_last: NotRequired[Annotated[str | None, PrivateStateAttr]]
    rag_guard_refused: NotRequired[Annotated[str | None, PrivateStateAttr]]
    # What its guarded tool calls let through, as notes (adapters.recheck): kept for good.
    rag_guard_shown: NotRequired[Annotated[list[dict[str, Any]], PrivateStateAttr, operator.add]]


def before_run(state: Any, access: AccessContext | None) -> dict[str, Any] | None:
    """The state update at the start of a run with ``access``: the thread bound to its
    principal and access, or, when it may not use the thread, its input removed and the run
    sent to its end."""
    thread = _checkpointed_thread()
    if thread is None:
        return None
    why = refusal(thread, access, state.get(PRINCIPAL), state.get(HELD))
    if why is None and access is not None:  # refusal() lets no request without access in
        return {
            PRINCIPAL: access.principal,
            HELD: json.dumps(access.to_dict(), sort_keys=True),
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
    source: AccessSource | None,
    thread: str,
    access: AccessContext | None,
    notes: Sequence[Mapping[str, Any]],
) -> str | None:
    """Why ``thread`` may not be used with ``access`` although its binding allows it: the
    access ``source`` denies now a chunk the thread's ``notes`` say it was shown (a grant
    taken away since), or cannot judge it (fail closed); None when every one holds."""
    found = withdrawn(source, notes, access) if source is not None and notes else None
    return found.reason(f"thread {thread!r}") if found else None


def before_model_call(
    state: Any, access: AccessContext | None, source: AccessSource | None
) -> None:
    """Inside the model node, whichever way the run reached it (a new input, a resume, a
    ``Command(goto=...)`` that skipped the agent's start): raise :class:`AccessError` when
    the request may not use the checkpointed thread (:func:`refusal`, once the thread is
    bound) or the thread holds what the access source no longer grants
    (:func:`withdrawn_since`), so the model never reads it."""
    thread, bound = _checkpointed_thread(), bound_to(state)
    if thread is None or bound is None:
        return
    why = refusal(thread, access, *bound) or withdrawn_since(
        source, thread, access, notes_of(state)
    )
    if why is not None:
        logger.warning("rag_guard refused the request: %s", why)
        raise AccessError(why)


def notes_of(state: Any) -> list[Mapping[str, Any]]:
    """The thread's notes of what it was shown (:data:`GuardState.rag_guard_shown`)."""
    return list(state.get(SHOWN) or ())


def bound_to(values: Mapping[str, Any]) -> tuple[str | None, str | None] | None:
    """The principal a thread's state (or a checkpoint's channel values) is bound to and the
    widest access it has held, or None when it holds neither (no request has bound it)."""
    owner, held = values.get(PRINCIPAL), values.get(HELD)
    return None if owner is None and held is None else (owner, held)


def keeps_binding(before: Mapping[str, Any], after: Mapping[str, Any]) -> bool:
    """Whether a thread's state ``after`` a write keeps the binding it had ``before``: the
    same principal once one is bound, and a held access that covers the one held before
    (it may widen, never narrow or go)."""
    owner, held = before.get(PRINCIPAL), before.get(HELD)
    if owner is not None and after.get(PRINCIPAL) != owner:
        return False
    if held is None:
        return True
    now = after.get(HELD)
    return now is not None and covers(_held(now), _held(held))


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
