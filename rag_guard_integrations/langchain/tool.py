"""create_guarded_retriever_tool: a retriever tool for agents whose content is the allowed
documents or the policy's refusal, never an empty string the model would answer around."""

from __future__ import annotations

import weakref
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from langchain_core.documents import Document
from langchain_core.runnables import RunnableConfig  # noqa: TC002 - the tool reads its annotation
from langchain_core.tools import BaseTool, StructuredTool
from pydantic import BaseModel, Field

from rag_guard_integrations.adapters.access import scoped_access
from rag_guard_integrations.core.access import NOT_GIVEN
from rag_guard_integrations.engine.guard import as_guard
from rag_guard_integrations.langchain.fields import as_retriever
from rag_guard_integrations.langchain.retriever import GuardedRetriever

if TYPE_CHECKING:
    from collections.abc import Callable

    from langchain_core.prompts import BasePromptTemplate
    from langchain_core.retrievers import BaseRetriever

    from rag_guard_integrations.engine.guard import Guard
    from rag_guard_integrations.langchain.fields import AccessInput
    from rag_guard_integrations.langchain.result import CheckedResult
    from rag_guard_integrations.policy.loader import PolicyRef

# The functions behind every tool this module made: GuardMiddleware runs those tools as they
# are, since their inner fetch is out of sight and their output passed a guard.
_GUARDED_FUNCTIONS: weakref.WeakSet[Callable[..., Any]] = weakref.WeakSet()


class CheckedDocuments(list[Document]):
    """The artifact of a guarded tool: the Documents a guard allowed, with its ``result``
    (a :class:`CheckedResult`).

    ``GuardMiddleware`` passes tool results whose Documents arrive in this type and withholds
    any other tool result carrying Documents.

    Example:
        >>> message = tool.invoke(tool_call, config=config)  # doctest: +SKIP
        >>> message.artifact.result.refusal  # doctest: +SKIP
        'No authorized matching clause found.'
    """

    def __init__(self, documents: list[Document], result: CheckedResult) -> None:
        super().__init__(documents)
        self.result = result


class _Query(BaseModel):
    query: str = Field(description="what to look up")


def create_guarded_retriever_tool(
    retriever: BaseRetriever,
    guard: Guard | PolicyRef | list[PolicyRef],
    *,
    name: str,
    description: str,
    access: AccessInput = None,
    pin_access: bool = False,
    k: int | None = None,
    fetch_k: int | None = None,
    document_prompt: BasePromptTemplate[str] | None = None,
    document_separator: str = "\n\n",
) -> StructuredTool:
    """A tool that retrieves through a :class:`GuardedRetriever` over ``retriever``.

    Content (what the model reads): the allowed documents formatted with ``document_prompt``
    (default ``{page_content}``), or the guard's refusal when nothing may pass (a rejected
    query gets the domain refusal). Artifact: the allowed Documents as :class:`CheckedDocuments`.

    The guard judges each document as ``document_prompt`` renders it, so a metadata value the
    prompt shows (``{page_content} [{source}]``) is checked like the text: the model reads only
    what the guard judged. With a prompt, the artifact's Documents hold that rendering (masked
    where a redact rule fired) as ``page_content``; a rendered metadata value a mask changed is
    ``"[REDACTED]"`` in their metadata, the rest unchanged.

    Access per call, in order: what ``GuardMiddleware`` resolved (``runtime.context`` or
    ``configurable["access"]``), ``config["configurable"]["access"]`` (a LangGraph
    ``ToolNode`` passes the graph's config), then ``access``; None is no access. With
    ``pin_access=True``, ``access`` is also the ceiling: a per-call access only narrows it.
    The model never chooses access: the tool's only argument is ``query``. ``guard`` takes a
    Guard or policy references (``"contracts"``).

    Example:
        >>> tool = create_guarded_retriever_tool(  # doctest: +SKIP
        ...     store.as_retriever(), Guard.from_policy("contracts"),
        ...     name="contracts", description="Search the contract clauses you may see.")
        >>> middleware = [GuardMiddleware(guard)]  # doctest: +SKIP
        >>> agent = create_agent(model, [tool], middleware=middleware)  # doctest: +SKIP
    """
    owner = "create_guarded_retriever_tool"
    guarded = GuardedRetriever(
        retriever=as_retriever(retriever, owner),
        guard=as_guard(guard, owner),
        access=access,
        pin_access=pin_access,
        k=k,
        fetch_k=fetch_k,
        document_prompt=document_prompt,
    )
    retrieve = guarded.with_result()
    refusal = guarded.guard.policy.no_context_refusal

    def content(out: dict[str, Any]) -> tuple[str, CheckedDocuments]:
        documents, result = out["documents"], out["result"]
        if result.refusal is not None or not documents:
            text = result.refusal or refusal
        else:
            text = document_separator.join(d.page_content for d in documents)
        return text, CheckedDocuments(documents, result)

    def run(query: str, config: RunnableConfig) -> tuple[str, CheckedDocuments]:
        return content(retrieve.invoke(query, with_request_access(config)))

    async def arun(query: str, config: RunnableConfig) -> tuple[str, CheckedDocuments]:
        return content(await retrieve.ainvoke(query, with_request_access(config)))

    _GUARDED_FUNCTIONS.update((run, arun))
    return StructuredTool.from_function(
        func=run,
        coroutine=arun,
        name=name,
        description=description,
        args_schema=_Query,
        response_format="content_and_artifact",
    )


def is_guarded_tool(tool: BaseTool | None) -> bool:
    """Whether ``tool`` was made by :func:`create_guarded_retriever_tool` (a copy counts)."""
    func = getattr(tool, "func", None)
    return isinstance(tool, BaseTool) and func is not None and func in _GUARDED_FUNCTIONS


def with_request_access(config: RunnableConfig) -> RunnableConfig:
    """``config`` with the access of this thread or task (the one GuardMiddleware resolved for
    this tool call, or a ``guard_access`` block's), if any, as ``configurable["access"]``, so
    every guard the tool reaches runs with it."""
    access = scoped_access()
    if access is NOT_GIVEN:
        return config
    return {**config, "configurable": {**(config.get("configurable") or {}), "access": access}}


def access_of(value: Any) -> object:
    """The access a ``runtime.context`` brings: key ``access`` of a mapping or the ``access``
    attribute of an object (None there is no access); :data:`NOT_GIVEN` when it has neither."""
    if isinstance(value, Mapping):
        return value.get("access", NOT_GIVEN)
    return getattr(value, "access", NOT_GIVEN) if value is not None else NOT_GIVEN
