"""A request's decision for a chain: ``with_result`` hands it over as a text-free CheckedResult,
and :func:`guard_results` gives the caller's own code the full GuardResult without it ever
crossing a run boundary (an output, an event, a trace)."""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from langchain_core.runnables import RunnableLambda

from rag_guard_integrations.core.chunk import Chunk
from rag_guard_integrations.core.reasons import Reason, recorded

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence
    from uuid import UUID

    from langchain_core.documents import Document
    from langchain_core.retrievers import BaseRetriever
    from langchain_core.runnables import Runnable, RunnableConfig

    from rag_guard_integrations.core.decisions import GuardResult, Violation


@dataclass(frozen=True, slots=True)
class Checked:
    """What one guarded retrieval reports to the listeners of its thread or task: the result,
    the Document objects it returned, and the id of its retriever run."""

    result: GuardResult
    documents: Sequence[Document]
    run_id: UUID | None


# Who listens in this thread or task: a tuple of lists, so concurrent requests (which copy the
# context) never see each other's reports, while a request's children all report to it.
_LISTENERS: ContextVar[tuple[list[Checked], ...]] = ContextVar("rag_guard_listeners", default=())


@dataclass(frozen=True, slots=True)
class CheckedResult:
    """A request's decision as it may cross a run boundary: counts, refusal and the audit record
    (per chunk its id, decision, stage, rule and reason); it holds no chunk text or metadata
    value, so handlers, ``astream_events``, tracers and checkpointers can keep it.

    Built with :meth:`of`; for the full ``GuardResult`` (which holds the withheld chunks) use
    :func:`guard_results` around the call instead.

    Example:
        >>> out = retriever.with_result().invoke(query, config=config)  # doctest: +SKIP
        >>> out["result"].refusal  # doctest: +SKIP
        'No authorized matching clause found.'
    """

    refusal: str | None
    query_allowed: bool
    summary: dict[str, Any]
    audit: dict[str, Any]

    @classmethod
    def of(cls, result: GuardResult) -> CheckedResult:
        """The text-free form of ``result``."""
        return cls(result.refusal, result.query.allowed, result.summary(), result.audit())

    def to_dict(self) -> dict[str, Any]:
        """The decision summary plus ``audit`` (the audit record v2), JSON-ready."""
        return {**self.summary, "audit": self.audit}

    def __repr__(self) -> str:
        return f"CheckedResult({self.summary!r})"


@contextmanager
def listening() -> Iterator[list[Checked]]:
    """Every guarded retrieval run inside the block (its children and the threads and tasks
    LangChain starts for it included) reports to the yielded list."""
    reports: list[Checked] = []
    token = _LISTENERS.set((*_LISTENERS.get(), reports))
    try:
        yield reports
    finally:
        _LISTENERS.reset(token)


@contextmanager
def guard_results() -> Iterator[list[GuardResult]]:
    """The full GuardResult of every guarded retrieval run inside the block, in order.

    The results stay in your code: nothing hands them to a callback handler or a trace. They
    hold the chunks the guard withheld, so keep them out of logs.

    Example:
        >>> with guard_results() as results:  # doctest: +SKIP
        ...     chain.invoke(question, config=config)
        >>> results[-1].denied[0].stage  # doctest: +SKIP
        'access'
    """
    with listening() as reports:
        results: list[GuardResult] = []
        try:
            yield results
        finally:
            results.extend(report.result for report in reports)


def without_text(result: GuardResult) -> GuardResult:
    """``result`` as it may cross a run boundary inside an exception (``ContextBlocked``): each
    chunk reduced to its id and score, reasons in the form the audit record holds them, no masked
    original, no stray or unknown labels, no linking values; the shadow evaluation likewise.

    Example:
        >>> from rag_guard_integrations import Guard
        >>> chunks = [{"text": "a secret"}]
        >>> result = Guard.from_policy("contracts").check("notice period?", chunks)
        >>> [d.chunk.text for d in without_text(result).decisions]
        ['']
    """
    decisions = tuple(
        replace(
            d,
            chunk=Chunk("", score=d.chunk.score, id=d.chunk.id),
            reason=Reason.fixed(recorded(d.stage, d.reason)),
            labels=frozenset(),
            original=None,
        )
        for d in result.decisions
    )
    return replace(
        result,
        decisions=decisions,
        violations=tuple(_unlinked(v) for v in result.violations),
        warnings=tuple(_unlinked(v) for v in result.warnings),
        unknown_labels={},
        dropped_labels={},
        shadow=None if result.shadow is None else without_text(result.shadow),
    )


def _unlinked(violation: Violation) -> Violation:
    return replace(violation, links=tuple(replace(link, value="") for link in violation.links))


def report(result: GuardResult, documents: Sequence[Document], run_id: UUID | None) -> None:
    """Hand one retrieval's outcome to every listener of this thread or task."""
    for reports in _LISTENERS.get():
        reports.append(Checked(result, documents, run_id))


def with_result(retriever: BaseRetriever) -> Runnable[str, dict[str, Any]]:
    """``retriever`` as a runnable returning ``{"documents": [...], "result": CheckedResult}``;
    the retriever must :func:`report` its result (``GuardedRetriever`` does)."""

    def run(query: str, config: RunnableConfig) -> dict[str, Any]:
        with listening() as reports:
            documents = retriever.invoke(query, config)
        return {"documents": documents, "result": CheckedResult.of(reports[-1].result)}

    async def arun(query: str, config: RunnableConfig) -> dict[str, Any]:
        with listening() as reports:
            documents = await retriever.ainvoke(query, config)
        return {"documents": documents, "result": CheckedResult.of(reports[-1].result)}

    return RunnableLambda(run, afunc=arun, name="guarded_retrieval")
