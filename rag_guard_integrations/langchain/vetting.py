"""Running a tool that GuardMiddleware cannot vouch for, and judging what it did.

The tool runs as a :class:`ScreenedTool` in the graph's place. Its raw return value (before
LangChain turns it into message content), the message or ``Command`` it ends with, every output
of the runs inside it and every retriever run it started are collected; a Document no guard
returned, wherever it sits, or a retriever run no guard made, is unchecked content. Enforcing,
the tool runs out of sight of every handler and tracer (the screened run itself is reported
with what the middleware let through); in shadow mode it runs as it would without the
middleware and is only judged.
"""

from __future__ import annotations

import functools
from contextlib import nullcontext
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from langchain_core.callbacks import BaseCallbackHandler, BaseCallbackManager
from langchain_core.runnables import ensure_config
from langchain_core.runnables.config import (
    get_async_callback_manager_for_config,
    get_callback_manager_for_config,
)
from langchain_core.tools import BaseTool
from langgraph.errors import GraphBubbleUp

from rag_guard_integrations.adapters import drive
from rag_guard_integrations.adapters.listen import listening
from rag_guard_integrations.core.errors import RagGuardError, RetrievalError
from rag_guard_integrations.langchain.quiet import unobserved
from rag_guard_integrations.langchain.tool import with_request_access
from rag_guard_integrations.langchain.walk import documents_in

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable
    from uuid import UUID

    from langchain_core.runnables import RunnableConfig

    from rag_guard_integrations.adapters.drive import Flow
    from rag_guard_integrations.adapters.listen import Heard


@dataclass(frozen=True)
class Screening:
    """What one tool call left: its ``output``, the Documents in it or in the runs inside it
    that no guard returned (``unchecked``), and the retriever runs no guard made."""

    output: Any
    unchecked: list[Any]
    retrievers: int

    @property
    def clean(self) -> bool:
        """True when nothing unchecked was found."""
        return not self.unchecked and not self.retrievers


class _Spotter(BaseCallbackHandler):
    """Keeps the retriever runs and every output of the runs inside a tool."""

    run_inline = True

    def __init__(self) -> None:
        self.retrievers: set[UUID] = set()
        self.outputs: list[Any] = []

    def on_retriever_start(self, serialized: Any, query: str, *, run_id: UUID, **kw: Any) -> None:
        self.retrievers.add(run_id)

    def on_retriever_end(self, documents: Any, **kwargs: Any) -> None:
        self.outputs.append(documents)

    def on_chain_end(self, outputs: Any, **kwargs: Any) -> None:
        self.outputs.append(outputs)

    def on_tool_end(self, output: Any, **kwargs: Any) -> None:
        self.outputs.append(output)


class ScreenedTool(BaseTool):
    """``inner`` in the graph's place: run by :func:`screen` with the request's access as
    ``configurable["access"]`` (every guard it reaches runs with what the middleware
    resolved), its call reported (when ``hidden``) with what ``decide`` makes of the
    screening."""

    inner: BaseTool
    hidden: bool
    decide: Any  # Callable[[Screening], Any]: the middleware's verdict
    reported: dict[str, Any]

    @classmethod
    def of(
        cls, inner: BaseTool, call_args: dict[str, Any], *, hidden: bool, decide: Callable[..., Any]
    ) -> ScreenedTool:
        """``inner`` screened; ``call_args`` (the model's arguments) are what the run reports."""
        return cls(
            name=inner.name,
            description=inner.description,
            args_schema=inner.args_schema,
            inner=inner,
            hidden=hidden,
            decide=decide,
            reported=call_args,
        )

    def _run(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("a ScreenedTool runs through invoke")

    def invoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        return drive.run(self._screened(input, config))

    async def ainvoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        return await drive.arun(self._screened(input, config))

    def _screened(self, input: Any, config: RunnableConfig | None) -> Flow[Any]:
        config = with_request_access(ensure_config(config))
        if not self.hidden:
            return self.decide((yield from screening(self.inner, input, config, hidden=False)))
        serialized = {"name": self.name, "description": self.description}

        def start(from_config: Callable[[RunnableConfig], Any]) -> Any:
            # The tool run, in the kind (sync or async) of the manager ``from_config`` makes.
            manager = from_config(config)
            return manager.on_tool_start(serialized, str(self.reported), inputs=self.reported)

        tool_run = yield drive.Call(
            functools.partial(start, get_callback_manager_for_config),
            functools.partial(start, get_async_callback_manager_for_config),
        )
        try:
            output = self.decide((yield from screening(self.inner, input, config, hidden=True)))
        except GeneratorExit:
            raise
        except BaseException as error:
            yield drive.Call(functools.partial(tool_run.on_tool_error, error))
            raise
        yield drive.Call(functools.partial(tool_run.on_tool_end, output, name=self.name))
        return output


def screening(
    tool: BaseTool, input: Any, config: RunnableConfig, *, hidden: bool
) -> Flow[Screening]:
    """The flow that runs ``tool`` on ``input`` (out of sight when ``hidden``) and judges what
    it did; run it with the kit's ``run`` or ``arun``."""
    spotter = _Spotter()
    raw: list[Any] = []
    runnable = _recording(tool, raw, hidden=hidden)
    config = _config(config, spotter, hidden=hidden)
    failed = None
    with listening() as reports, unobserved() if hidden else nullcontext():
        try:
            output = yield drive.Call(
                functools.partial(runnable.invoke, input, config),
                functools.partial(runnable.ainvoke, input, config),
            )
        except (GraphBubbleUp, RagGuardError):
            raise
        except Exception as error:
            if not _judged(None, raw, spotter, reports).clean:
                failed = type(error).__name__  # its message may quote what it fetched
            else:
                raise
    if failed is not None:
        raise RetrievalError(f"tool {tool.name!r}", failed)
    return _judged(output, raw, spotter, reports)


def _judged(output: Any, raw: list[Any], spotter: _Spotter, reports: list[Heard]) -> Screening:
    vetted = {id(document) for report in reports for document in report.items}
    unchecked = [d for d in documents_in([raw, output, spotter.outputs]) if id(d) not in vetted]
    retrievers = spotter.retrievers - {report.tag for report in reports}
    return Screening(output, unchecked, len(retrievers))


def _recording(tool: BaseTool, raw: list[Any], *, hidden: bool) -> BaseTool:
    """A copy of ``tool`` whose function also puts its return value into ``raw`` (a function
    tool: ``@tool``, ``StructuredTool``, ``Tool``), with no handler of its own when hidden."""
    update: dict[str, Any] = {"callbacks": None} if hidden else {}
    func, coroutine = getattr(tool, "func", None), getattr(tool, "coroutine", None)
    if callable(func):
        update["func"] = _kept(func, raw)
    if callable(coroutine):
        update["coroutine"] = _akept(coroutine, raw)
    return tool.model_copy(update=update) if update else tool


def _kept(func: Callable[..., Any], raw: list[Any]) -> Callable[..., Any]:
    @functools.wraps(func)  # the tool reads the signature (callbacks, config) through it
    def kept(*args: Any, **kwargs: Any) -> Any:
        value = func(*args, **kwargs)
        raw.append(value)
        return value

    return kept


def _akept(func: Callable[..., Awaitable[Any]], raw: list[Any]) -> Callable[..., Awaitable[Any]]:
    @functools.wraps(func)
    async def kept(*args: Any, **kwargs: Any) -> Any:
        value = await func(*args, **kwargs)
        raw.append(value)
        return value

    return kept


def _config(config: RunnableConfig, spotter: _Spotter, *, hidden: bool) -> RunnableConfig:
    """The tool's config: the spotter as its only handler when hidden, else added."""
    private: dict[str, Any] = {k: v for k, v in config.items() if k != "run_id"}
    callbacks = config.get("callbacks")
    if hidden or callbacks is None:
        private["callbacks"] = [spotter]
    elif isinstance(callbacks, BaseCallbackManager):
        manager = callbacks.copy()
        manager.add_handler(spotter, inherit=True)
        private["callbacks"] = manager
    else:
        private["callbacks"] = [*callbacks, spotter]
    return private  # type: ignore[return-value]
