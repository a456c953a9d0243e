"""A request's GuardResult for a chain: ``with_result`` hands it over as a CheckedResult, which
callback handlers, ``astream_events`` and LangSmith can serialise without seeing chunk text."""

from __future__ import annotations

from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

from langchain_core.runnables import RunnableLambda

from rag_guard_integrations.langchain.audit import decision_outputs

if TYPE_CHECKING:
    from langchain_core.retrievers import BaseRetriever
    from langchain_core.runnables import Runnable, RunnableConfig

    from rag_guard_integrations.core.decisions import GuardResult

# Where a call's GuardResult goes when its caller asked for it: per thread and task, so
# concurrent requests never see each other's result.
_SINK: ContextVar[list[GuardResult] | None] = ContextVar("rag_guard_result_sink", default=None)


class CheckedResult:
    """A GuardResult whose ``repr`` and serialised forms are the decision summary only.

    A GuardResult holds the denied chunks themselves; a chain output carrying it would show
    their text to every handler and trace. ``result`` is the full GuardResult, for code that
    needs it (keep it out of logs and events); ``refusal`` and :meth:`to_dict` are safe to show.

    Example:
        >>> out = retriever.with_result().invoke(query, config=config)  # doctest: +SKIP
        >>> out["result"].refusal  # doctest: +SKIP
        'No authorized matching clause found.'
    """

    __slots__ = ("_result",)

    def __init__(self, result: GuardResult) -> None:
        self._result = result

    @property
    def result(self) -> GuardResult:
        """The full GuardResult (it holds the text of denied chunks)."""
        return self._result

    @property
    def refusal(self) -> str | None:
        """The text to answer with instead of an answer, or None."""
        return self._result.refusal

    def to_dict(self) -> dict[str, Any]:
        """The decision summary: counts, refusal and per-chunk id, stage, rule and reason."""
        return decision_outputs(self._result, self._result.summary())

    def __repr__(self) -> str:
        return f"CheckedResult({self._result.summary()!r})"


def report(result: GuardResult) -> None:
    """Hand ``result`` to the :func:`with_result` call waiting in this thread or task, if any."""
    sink = _SINK.get()
    if sink is not None:
        sink.append(result)


def with_result(retriever: BaseRetriever) -> Runnable[str, dict[str, Any]]:
    """``retriever`` as a runnable returning ``{"documents": [...], "result": CheckedResult}``;
    the retriever must :func:`report` its result (``GuardedRetriever`` does)."""

    def run(query: str, config: RunnableConfig) -> dict[str, Any]:
        sink: list[GuardResult] = []
        token = _SINK.set(sink)
        try:
            documents = retriever.invoke(query, config)
        finally:
            _SINK.reset(token)
        return {"documents": documents, "result": CheckedResult(sink[-1])}

    async def arun(query: str, config: RunnableConfig) -> dict[str, Any]:
        sink: list[GuardResult] = []
        token = _SINK.set(sink)
        try:
            documents = await retriever.ainvoke(query, config)
        finally:
            _SINK.reset(token)
        return {"documents": documents, "result": CheckedResult(sink[-1])}

    return RunnableLambda(run, afunc=arun, name="guarded_retrieval")
