"""GuardMiddleware: per-request access for guarded tools inside ``langchain.agents.create_agent``,
a fail-closed judgement of every other tool's result, and memory bound to one principal and
the access it was used with."""

from __future__ import annotations

import inspect
import logging
from functools import partial
from typing import TYPE_CHECKING, Any

from langchain.agents.middleware import AgentMiddleware, hook_config
from langchain_core.messages import ToolMessage
from langchain_core.prompts import BasePromptTemplate
from langchain_core.retrievers import BaseRetriever
from langchain_core.tools import RetrieverInput
from langgraph.types import Command
from typing_extensions import override

from rag_guard_integrations.adapters.access import require_pinned_principal, resolved_access
from rag_guard_integrations.adapters.drive import Call, arun, run
from rag_guard_integrations.adapters.listen import Heard, listening
from rag_guard_integrations.adapters.recheck import fresh, heard_notes, noting_source
from rag_guard_integrations.core.access import NOT_GIVEN, AccessContext, resolve_access
from rag_guard_integrations.engine.guard import as_guard
from rag_guard_integrations.langchain.check import publish_withheld
from rag_guard_integrations.langchain.checkpointer import GuardedCheckpointer
from rag_guard_integrations.langchain.fields import given_access, refuse_unknown
from rag_guard_integrations.langchain.memory import (
    CHECKPOINTER,
    RUNTIME,
    SHOWN,
    TASK,
    GuardState,
    after_run,
    before_model_call,
    before_run,
)
from rag_guard_integrations.langchain.retriever import GuardedRetriever
from rag_guard_integrations.langchain.tool import access_of, is_guarded_tool
from rag_guard_integrations.langchain.vetting import ScreenedTool, Screening

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from langchain.agents.middleware import ModelRequest, ModelResponse
    from langchain_core.messages import AIMessage
    from langchain_core.tools import BaseTool
    from langgraph.prebuilt.tool_node import ToolCallRequest
    from langgraph.runtime import Runtime

    from rag_guard_integrations.adapters.drive import Flow
    from rag_guard_integrations.engine.guard import Guard
    from rag_guard_integrations.langchain.fields import AccessInput
    from rag_guard_integrations.policy.loader import PolicyRef

logger = logging.getLogger("rag_guard_integrations")
UNGUARDED_RETRIEVER = "its retriever's output reaches the model unjudged"
UNCHECKED_RESULT = "it carries Documents or retriever runs no guard checked"
FOREIGN_SOURCE = (
    "its guard checks access with another source than this middleware's guard, so a thread "
    "that holds it could not be judged again; build both with the same access source"
)


class GuardMiddleware(AgentMiddleware[GuardState, Any]):
    """Agent middleware that gives every guarded tool call the request's access, judges every
    other tool's result, and keeps one thread's memory to one principal, refused to a request
    whose access is narrower than the thread's (:mod:`~rag_guard_integrations.langchain.memory`).

    Access per request: ``runtime.context`` (a mapping with key ``access``, or an object with
    an ``access`` attribute), else ``config["configurable"]["access"]``, else ``access``; None
    in either place is no access. With ``pin_access=True``, ``access`` is also the ceiling: a
    per-request access only narrows it.

    A tool made by ``create_guarded_retriever_tool`` runs as it is. Any other tool runs out of
    sight of every callback handler, ``astream_events`` consumer and tracer (its call is
    reported with the result the middleware let through), and its result is judged: a Document
    no guard returned anywhere in what the tool returned (its raw return value, before
    LangChain makes it message content; an artifact, however nested; a ``Command`` update), or
    a retriever run inside the tool that no guard made, replaces the whole result with the
    policy's refusal. A ``create_retriever_tool`` tool (any ``response_format``) whose
    retriever is not a ``GuardedRetriever``, or whose ``document_prompt`` shows metadata, is
    refused before it runs. Each withheld result is logged as a WARNING and recorded as an
    audit record v2 (stage ``tool_result``, no text). What stays out of reach: a tool that
    reads a store directly (``store.similarity_search``) and returns a string it built itself
    looks like any other tool; build retrieval tools with ``create_guarded_retriever_tool``.
    Under a ``mode: shadow`` policy nothing is withheld and nothing runs out of sight: the
    would-be decisions are logged and recorded, marked unenforced.

    Memory: with a checkpointer, a thread belongs to the principal of its first request (kept
    in the agent state, never shown to the model); a request from another principal, or one
    without a principal, is refused with an ``AccessError`` (logged as a WARNING) before the
    model reads the thread, and its input is taken out of the thread again; the model node
    checks the binding again. With an access source, the thread keeps notes (ids, no text) of
    what its tool calls' guards let through, judged again before each model call: a grant
    taken away since refuses the call. ``guard`` must carry the tools' access source (a tool
    result judged with another is withheld); put this middleware first in the list. Wrap the
    checkpointer in :class:`GuardedCheckpointer` so such a request is refused when the thread
    loads, before anything of it streams, and the notes cannot be rewritten.

    In a hand-built LangGraph graph, pass the hooks to the node: ``ToolNode(tools,
    wrap_tool_call=mw.wrap_tool_call, awrap_tool_call=mw.awrap_tool_call)``.

    Setup:
        ```bash
        pip install -U "rag-guard-integrations[agents,embeddings]"
        ```

    Key init args:
        guard: Guard | str
            The guard whose refusal answers withheld tool results (or policy references).
        access: AccessContext | Mapping | None
            Default access for requests that bring none.
        pin_access: bool
            ``access`` is also the most a request may see (default False).

    Instantiate:
        ```python
        from dataclasses import dataclass
        from langchain.agents import create_agent
        from rag_guard_integrations.langchain import GuardMiddleware, create_guarded_retriever_tool

        @dataclass
        class Caller:
            access: dict[str, list[str]]

        tool = create_guarded_retriever_tool(
            store.as_retriever(), guard, name="contracts", description="Contract clauses."
        )
        agent = create_agent(model, [tool], middleware=[GuardMiddleware(guard)],
                             context_schema=Caller)
        ```

    Usage:
        ```python
        question = {"messages": [("user", "What is the termination notice period?")]}
        agent.invoke(question, context=Caller(access={"contract_type": ["MSA"]}))
        agent.invoke(question, config={"configurable": {"access": {"contract_type": ["SOW"]}}})
        ```
    """

    state_schema = GuardState

    def __init__(
        self,
        guard: Guard | PolicyRef | list[PolicyRef],
        *,
        access: AccessInput = None,
        pin_access: bool = False,
        **unknown: Any,
    ) -> None:
        refuse_unknown(type(self).__name__, unknown, ["guard", "access", "pin_access"])
        super().__init__()
        self.guard = as_guard(guard, type(self).__name__)
        self.access = AccessContext.coerce(access)
        require_pinned_principal(type(self).__name__, self.access, pin_access, self.guard)
        self.pin_access = pin_access
        self.shadow = self.guard.policy.mode == "shadow"
        self._told_unguarded = False
        self.source = noting_source(self.guard)
        """The access source that judges a thread's notes again (None: nothing is noted)."""

    @override
    @hook_config(can_jump_to=["end"])
    def before_agent(self, state: GuardState, runtime: Runtime[Any]) -> dict[str, Any] | None:
        return self._bind(state, runtime)

    @override
    @hook_config(can_jump_to=["end"])
    async def abefore_agent(
        self, state: GuardState, runtime: Runtime[Any]
    ) -> dict[str, Any] | None:
        return self._bind(state, runtime)

    @override
    def wrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], ModelResponse[Any]],
    ) -> ModelResponse[Any] | AIMessage:
        self._before_model_call(request)
        return handler(request)

    @override
    async def awrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], Awaitable[ModelResponse[Any]]],
    ) -> ModelResponse[Any] | AIMessage:
        self._before_model_call(request)
        return await handler(request)

    @override
    def after_agent(self, state: GuardState, runtime: Runtime[Any]) -> dict[str, Any] | None:
        return after_run(state)

    @override
    async def aafter_agent(self, state: GuardState, runtime: Runtime[Any]) -> dict[str, Any] | None:
        return after_run(state)

    @override
    def wrap_tool_call(
        self,
        request: ToolCallRequest,
        handler: Callable[[ToolCallRequest], ToolMessage | Command[Any]],
    ) -> ToolMessage | Command[Any]:
        return run(self._tool_call(request, handler))

    @override
    async def awrap_tool_call(
        self,
        request: ToolCallRequest,
        handler: Callable[[ToolCallRequest], Awaitable[ToolMessage | Command[Any]]],
    ) -> ToolMessage | Command[Any]:
        return await arun(self._tool_call(request, handler))

    def _tool_call(
        self, request: ToolCallRequest, handler: Callable[[ToolCallRequest], Any]
    ) -> Flow[ToolMessage | Command[Any]]:
        """One tool call, for both drivers: an unguarded retriever tool withheld, else the tool
        run screened under the access this request resolved to."""
        if unguarded_retriever_tool(request.tool):
            refusal = self._withhold(request, Screening(None, [], 1), UNGUARDED_RETRIEVER)
            if refusal is not None:
                return refusal
            message: ToolMessage | Command[Any] = yield Call(partial(handler, request))
            return message
        with resolved_access(self.request_access(request)), listening() as reports:
            try:
                message = yield Call(partial(handler, self._screened(request)))
            except BaseException:  # an interrupt or an error after its guards let chunks on
                self._hold_for_the_saver(reports)
                raise
        return self._noted(request, message, reports)

    def _hold_for_the_saver(self, reports: list[Heard]) -> None:
        """A tool call that ends in an interrupt or an error returns no result to note: its
        notes go to the :class:`GuardedCheckpointer`, which writes them beside the call's
        interrupt or error, where a load of the thread finds them."""
        notes = self._notes(reports)
        if not notes:
            return
        from langgraph.config import get_config  # noqa: PLC0415 - only inside a graph run

        configurable = get_config().get("configurable") or {}
        saver, task = configurable.get(CHECKPOINTER), configurable.get(TASK)
        if isinstance(saver, GuardedCheckpointer) and task:
            saver.hold(str(task), notes)

    def _notes(self, reports: list[Heard]) -> list[dict[str, Any]]:
        """The notes of what the guards with the middleware's own access source let through
        (none when it notes nothing: no source, or shadow mode)."""
        if self.source is None:
            return []
        return heard_notes(
            r for r in reports if r.guard is not None and r.guard.access_source is self.source
        )

    def _noted(
        self,
        request: ToolCallRequest,
        message: ToolMessage | Command[Any],
        reports: list[Heard],
    ) -> ToolMessage | Command[Any]:
        """The tool call's result, with notes of what its guards let through added to the
        thread's state (for the access source to judge them again before each model call).
        A result from a guard whose access source is not the middleware's is withheld: the
        middleware could not judge it again."""
        sources = (noting_source(r.guard) for r in reports if r.guard is not None)
        if any(s is not None and s is not self.guard.access_source for s in sources):
            refusal = self._withhold(request, Screening(None, [], 0), FOREIGN_SOURCE)
            if refusal is not None:
                return refusal
        held = (getattr(request, "state", None) or {}).get(SHOWN) or ()
        notes = fresh(self._notes(reports), held)
        if not notes:
            return message
        if isinstance(message, ToolMessage):
            return Command(update={"messages": [message], SHOWN: notes})
        if isinstance(message.update, dict):
            return Command(
                graph=message.graph,
                update={**message.update, SHOWN: [*message.update.get(SHOWN, ()), *notes]},
                resume=message.resume,
                goto=message.goto,
            )
        return message

    def request_access(self, request: ToolCallRequest) -> object:
        """The access of the request behind ``request`` (see the class docstring), or
        :data:`NOT_GIVEN` when it brings none and the middleware has no default."""
        runtime = request.runtime
        return self._resolved(
            getattr(runtime, "context", None), getattr(runtime, "config", None) or {}
        )

    def _resolved(self, context: object, config: Any) -> object:
        given = access_of(context)
        if given is NOT_GIVEN:
            given = given_access(config, {})
        if given is NOT_GIVEN and self.access is None and not self.pin_access:
            return NOT_GIVEN
        return resolve_access(given, default=self.access, pinned=self.pin_access)

    def run_access(self, config: Any) -> AccessContext | None:
        """The access of the run whose config is ``config`` (see the class docstring), or None
        when it brings none."""
        return self._access_in(config, (config.get("configurable") or {}).get(RUNTIME))

    def _access_in(self, config: Any, runtime: object) -> AccessContext | None:
        resolved = self._resolved(getattr(runtime, "context", None), config)
        return resolved if isinstance(resolved, AccessContext) else None

    def _before_model_call(self, request: ModelRequest[Any]) -> None:
        """Inside the model node: the thread's binding and notes judged again
        (memory.before_model_call)."""
        from langgraph.config import get_config  # noqa: PLC0415 - only inside a graph run

        access = self._access_in(get_config(), request.runtime)
        before_model_call(request.state, access, self.source)

    def _bind(self, state: GuardState, runtime: Runtime[Any]) -> dict[str, Any] | None:
        """The run's start: its thread bound, or the run refused (memory.before_run)."""
        from langgraph.config import get_config  # noqa: PLC0415 - only inside a graph run

        config = get_config()
        checkpointer = (config.get("configurable") or {}).get(CHECKPOINTER)
        unguarded = checkpointer is not None and not isinstance(checkpointer, GuardedCheckpointer)
        if unguarded and not self._told_unguarded:
            self._told_unguarded = True
            logger.warning(
                "rag_guard: the agent's checkpointer is not a GuardedCheckpointer, so a "
                "request refused a thread is refused only after LangGraph has loaded it "
                "(a state stream shows it); pass GuardedCheckpointer(saver, middleware)"
            )
        return before_run(state, self._access_in(config, runtime))

    def _screened(self, request: ToolCallRequest) -> ToolCallRequest:
        tool = request.tool
        if tool is None or is_guarded_tool(tool):
            return request
        call = request.tool_call

        def decide(screening: Screening) -> Any:
            if screening.clean:
                return screening.output
            refusal = self._withhold(request, screening, UNCHECKED_RESULT)
            return refusal if refusal is not None else screening.output

        screened = ScreenedTool.of(tool, dict(call["args"]), hidden=not self.shadow, decide=decide)
        return request.override(tool=screened)

    def _withhold(
        self, request: ToolCallRequest, screening: Screening, why: str
    ) -> ToolMessage | None:
        """The refusal in place of the result of ``request``, logged and audited (no text);
        in shadow mode the same record, marked unenforced, and None (nothing changes)."""
        call = request.tool_call
        logger.warning(
            "rag_guard %s the result of tool %r: %s; build the tool with "
            "create_guarded_retriever_tool",
            "would withhold (shadow mode, not enforced)" if self.shadow else "withheld",
            call.get("name"),
            why,
        )
        access = self.request_access(request)
        publish_withheld(
            self.guard,
            f"{call.get('name')}: {call.get('args')}",
            screening.unchecked,
            access if isinstance(access, AccessContext) else None,
            why,
            enforced=not self.shadow,
        )
        if self.shadow:
            return None
        return ToolMessage(
            self.guard.policy.no_context_refusal,
            tool_call_id=call["id"],
            name=call["name"],
            status="error",
        )


def unguarded_retriever_tool(tool: BaseTool | None) -> bool:
    """Whether ``tool`` is a retriever tool whose output no guard judged as the model reads it.

    That is a tool whose function closes over a retriever other than a ``GuardedRetriever``,
    or over a ``GuardedRetriever`` with a prompt that shows metadata, or a
    ``create_retriever_tool`` tool (``args_schema`` is ``RetrieverInput``) whose retriever
    cannot be found (fail closed).
    """
    if tool is None:
        return False
    held = [
        value
        for function in (getattr(tool, "func", None), getattr(tool, "coroutine", None))
        if inspect.isfunction(function)
        for value in inspect.getclosurevars(function).nonlocals.values()
    ]
    retrievers = [value for value in held if isinstance(value, BaseRetriever)]
    if any(not isinstance(retriever, GuardedRetriever) for retriever in retrievers):
        return True
    shows_metadata = any(
        isinstance(value, BasePromptTemplate) and set(value.input_variables) - {"page_content"}
        for value in held
    )
    if retrievers and shows_metadata:
        return True
    return not retrievers and getattr(tool, "args_schema", None) is RetrieverInput
