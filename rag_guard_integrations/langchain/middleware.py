"""GuardMiddleware: per-request access for guarded tools inside ``langchain.agents.create_agent``,
and a fail-closed check on tool results that carry Documents no guard checked."""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from langchain.agents.middleware import AgentMiddleware
from langchain_core.documents import Document
from langchain_core.messages import ToolMessage
from typing_extensions import override

from rag_guard_integrations.core.access import AccessContext
from rag_guard_integrations.langchain.fields import refuse_unknown
from rag_guard_integrations.langchain.tool import REQUEST_ACCESS, CheckedDocuments, access_of

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from langgraph.prebuilt.tool_node import ToolCallRequest
    from langgraph.types import Command

    from rag_guard_integrations.engine.guard import Guard
    from rag_guard_integrations.langchain.fields import AccessInput

logger = logging.getLogger("rag_guard_integrations")


class GuardMiddleware(AgentMiddleware[Any, Any]):
    """Agent middleware that gives every guarded tool call the request's access.

    Access per request, in order: ``runtime.context`` (a mapping with key ``access``, or an
    object with an ``access`` attribute), ``config["configurable"]["access"]``, then
    ``access``. A tool result carrying Documents that did not come through a guard (for
    example ``create_retriever_tool`` over a plain retriever) is replaced by the policy's
    refusal before the model reads it, and logged (without its text). In a hand-built LangGraph
    graph, pass the hooks to the node: ``ToolNode(tools, wrap_tool_call=mw.wrap_tool_call,
    awrap_tool_call=mw.awrap_tool_call)``.

    Setup:
        ```bash
        pip install -U "rag-guard-integrations[agents,embeddings]"
        ```

    Key init args:
        guard: Guard
            The guard whose refusal answers withheld tool results.
        access: AccessContext | Mapping | None
            Default access for requests that bring none.

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

    def __init__(self, guard: Guard, *, access: AccessInput = None, **unknown: Any) -> None:
        refuse_unknown(type(self).__name__, unknown, ["guard", "access"])
        super().__init__()
        self.guard = guard
        self.access = AccessContext.coerce(access)

    @override
    def wrap_tool_call(
        self,
        request: ToolCallRequest,
        handler: Callable[[ToolCallRequest], ToolMessage | Command[Any]],
    ) -> ToolMessage | Command[Any]:
        token = REQUEST_ACCESS.set(self.request_access(request))
        try:
            return self._checked(request, handler(request))
        finally:
            REQUEST_ACCESS.reset(token)

    @override
    async def awrap_tool_call(
        self,
        request: ToolCallRequest,
        handler: Callable[[ToolCallRequest], Awaitable[ToolMessage | Command[Any]]],
    ) -> ToolMessage | Command[Any]:
        token = REQUEST_ACCESS.set(self.request_access(request))
        try:
            return self._checked(request, await handler(request))
        finally:
            REQUEST_ACCESS.reset(token)

    def request_access(self, request: ToolCallRequest) -> AccessContext | None:
        """The access of the request behind ``request`` (see the class docstring)."""
        runtime = request.runtime
        found = access_of(getattr(runtime, "context", None))
        if found is None:
            config = getattr(runtime, "config", None) or {}
            found = AccessContext.coerce((config.get("configurable") or {}).get("access"))
        return found if found is not None else self.access

    def _checked(
        self, request: ToolCallRequest, response: ToolMessage | Command[Any]
    ) -> ToolMessage | Command[Any]:
        if isinstance(response, ToolMessage):
            return self._withheld(request, response) if _unchecked(response.artifact) else response
        update = getattr(response, "update", None)
        if not isinstance(update, dict) or not isinstance(update.get("messages"), list):
            return response
        # A Command's state update can carry tool messages too (a tool that updates the graph).
        checked = [
            self._withheld(request, m)
            if isinstance(m, ToolMessage) and _unchecked(m.artifact)
            else m
            for m in update["messages"]
        ]
        return replace(response, update={**update, "messages": checked})

    def _withheld(self, request: ToolCallRequest, message: ToolMessage) -> ToolMessage:
        logger.warning(
            "rag_guard withheld the result of tool %r: it carries Documents no guard checked; "
            "build the tool with create_guarded_retriever_tool",
            request.tool_call.get("name"),
        )
        return ToolMessage(
            self.guard.policy.no_context_refusal,
            tool_call_id=message.tool_call_id,
            name=message.name,
            status="error",
        )


def _unchecked(artifact: object) -> bool:
    if isinstance(artifact, CheckedDocuments):
        return False
    if isinstance(artifact, Document):
        return True
    return isinstance(artifact, list | tuple) and any(isinstance(a, Document) for a in artifact)
