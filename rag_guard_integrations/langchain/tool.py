"""create_guarded_retriever_tool: a retriever tool for agents whose content is the allowed
documents or the policy's refusal, never an empty string the model would answer around."""

from __future__ import annotations

from collections.abc import Mapping
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

from langchain_core.documents import Document
from langchain_core.runnables import RunnableConfig  # noqa: TC002 - the tool reads its annotation
from langchain_core.tools import StructuredTool
from pydantic import BaseModel, Field

from rag_guard_integrations.core.access import AccessContext
from rag_guard_integrations.langchain.retriever import GuardedRetriever

if TYPE_CHECKING:
    from langchain_core.prompts import BasePromptTemplate
    from langchain_core.retrievers import BaseRetriever

    from rag_guard_integrations.engine.guard import Guard
    from rag_guard_integrations.langchain.fields import AccessInput
    from rag_guard_integrations.langchain.result import CheckedResult

# The access GuardMiddleware resolved for the tool call running in this thread or task.
REQUEST_ACCESS: ContextVar[AccessContext | None] = ContextVar("rag_guard_access", default=None)


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
    guard: Guard,
    *,
    name: str,
    description: str,
    access: AccessInput = None,
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
    where a redact rule fired) as ``page_content``, their metadata unchanged.

    Access per call, in order: what ``GuardMiddleware`` resolved (``runtime.context`` or
    ``configurable["access"]``), ``config["configurable"]["access"]`` (a LangGraph
    ``ToolNode`` passes the graph's config), then ``access``. The model never chooses access:
    the tool's only argument is ``query``.

    Example:
        >>> tool = create_guarded_retriever_tool(  # doctest: +SKIP
        ...     store.as_retriever(), Guard.from_policy("contracts"),
        ...     name="contracts", description="Search the contract clauses you may see.")
        >>> middleware = [GuardMiddleware(guard)]  # doctest: +SKIP
        >>> agent = create_agent(model, [tool], middleware=middleware)  # doctest: +SKIP
    """
    guarded = GuardedRetriever(
        retriever=retriever,
        guard=guard,
        access=access,
        k=k,
        fetch_k=fetch_k,
        document_prompt=document_prompt,
    )
    retrieve = guarded.with_result()

    def content(out: dict[str, Any]) -> tuple[str, CheckedDocuments]:
        documents, result = out["documents"], out["result"]
        if result.refusal is not None or not documents:
            text = result.refusal or guard.policy.no_context_refusal
        else:
            text = document_separator.join(d.page_content for d in documents)
        return text, CheckedDocuments(documents, result)

    def run(query: str, config: RunnableConfig) -> tuple[str, CheckedDocuments]:
        return content(retrieve.invoke(query, _with_request_access(config)))

    async def arun(query: str, config: RunnableConfig) -> tuple[str, CheckedDocuments]:
        return content(await retrieve.ainvoke(query, _with_request_access(config)))

    return StructuredTool.from_function(
        func=run,
        coroutine=arun,
        name=name,
        description=description,
        args_schema=_Query,
        response_format="content_and_artifact",
    )


def _with_request_access(config: RunnableConfig) -> RunnableConfig:
    access = REQUEST_ACCESS.get()
    if access is None:
        return config
    return {**config, "configurable": {**(config.get("configurable") or {}), "access": access}}


def access_of(value: Any) -> AccessContext | None:
    """Access from a ``runtime.context``: a mapping with key ``access`` or an object with an
    ``access`` attribute (a mapping or an AccessContext); None when it carries none."""
    found = value.get("access") if isinstance(value, Mapping) else getattr(value, "access", None)
    return AccessContext.coerce(found)
