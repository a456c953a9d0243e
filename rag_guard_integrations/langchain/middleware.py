"""GuardMiddleware: per-request access for guarded tools inside ``langchain.agents.create_agent``,
and a fail-closed check on tool results that carry Documents no guard checked."""

from __future__ import annotations

import inspect
import logging
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from langchain.agents.middleware import AgentMiddleware
from langchain_core.documents import Document
from langchain_core.messages import ToolMessage
from langchain_core.prompts import BasePromptTemplate
from langchain_core.retrievers import BaseRetriever
from langchain_core.tools import RetrieverInput
from typing_extensions import override

from rag_guard_integrations.core.access import AccessContext
from rag_guard_integrations.langchain.fields import refuse_unknown
from rag_guard_integrations.langchain.retriever import GuardedRetriever
from rag_guard_integrations.langchain.tool import REQUEST_ACCESS, CheckedDocuments, access_of

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from langchain_core.tools import BaseTool
    from langgraph.prebuilt.tool_node import ToolCallRequest
    from langgraph.types import Command

    from rag_guard_integrations.engine.guard import Guard
    from rag_guard_integrations.langchain.fields import AccessInput

logger = logging.getLogger("rag_guard_integrations")


class GuardMiddleware(AgentMiddleware[Any, Any]):
    """Agent middleware that gives every guarded tool call the request's access.

    Access per request, in order: ``runtime.context`` (a mapping with key ``access``, or an
    object with an ``access`` attribute), ``config["configurable"]["access"]``, then
    ``access``. The policy's refusal replaces, before the model reads it, the result of a
    tool that carries Documents which did not come through a guard, and of a retriever tool
    (``create_retriever_tool``, any ``response_format``) whose retriever is not a
    ``GuardedRetriever`` or whose ``document_prompt`` shows metadata; each is logged (without
    its text). A tool that reaches a retriever some other way (an attribute, a module it
    imports) and returns a plain string cannot be told apart from any other tool: build
    retrieval tools with ``create_guarded_retriever_tool``. In a hand-built LangGraph
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
        if unguarded_retriever_tool(request.tool):
            return self._withheld(request)
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
        if unguarded_retriever_tool(request.tool):
            return self._withheld(request)
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

    def _withheld(
        self, request: ToolCallRequest, message: ToolMessage | None = None
    ) -> ToolMessage:
        """The refusal in place of ``message`` (None: of the retriever tool not run at all)."""
        call = request.tool_call
        logger.warning(
            "rag_guard withheld the result of tool %r: %s; build the tool with "
            "create_guarded_retriever_tool",
            call.get("name"),
            "it carries Documents no guard checked"
            if message is not None
            else "its retriever's output reaches the model unjudged",
        )
        return ToolMessage(
            self.guard.policy.no_context_refusal,
            tool_call_id=call["id"] if message is None else message.tool_call_id,
            name=call["name"] if message is None else message.name,
            status="error",
        )


def _unchecked(artifact: object) -> bool:
    if isinstance(artifact, CheckedDocuments):
        return False
    if isinstance(artifact, Document):
        return True
    return isinstance(artifact, list | tuple) and any(isinstance(a, Document) for a in artifact)


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
