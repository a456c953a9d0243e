"""Who hears the full result of each guarded request: listeners of this thread or task only,
so the full GuardResult (which holds the withheld chunks) stays in the caller's code and never
crosses into a framework's callbacks, events or traces."""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

    from rag_guard_integrations.core.decisions import GuardResult
    from rag_guard_integrations.engine.guard import Guard


@dataclass(frozen=True, slots=True)
class Heard:
    """One guarded request as its listeners hear it: the result, the framework objects it
    handed on (``items``), the adapter's ``tag`` (a run id), if any, and the guard that
    judged it."""

    result: GuardResult
    items: Sequence[Any]
    tag: object = None
    guard: Guard | None = None


# A tuple of lists: concurrent requests (which copy the context) never see each other's
# reports, while a request's children, threads and tasks included, all report to it.
_LISTENERS: ContextVar[tuple[list[Heard], ...]] = ContextVar("rag_guard_listeners", default=())


@contextmanager
def listening() -> Iterator[list[Heard]]:
    """Every guarded request inside the block reports to the yielded list, in order."""
    reports: list[Heard] = []
    token = _LISTENERS.set((*_LISTENERS.get(), reports))
    try:
        yield reports
    finally:
        _LISTENERS.reset(token)


@contextmanager
def guard_results() -> Iterator[list[GuardResult]]:
    """The full GuardResult of every guarded request inside the block, in order.

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


def hear(
    result: GuardResult, items: Sequence[Any], tag: object = None, guard: Guard | None = None
) -> None:
    """Hand one request's outcome to every listener of this thread or task."""
    for reports in _LISTENERS.get():
        reports.append(Heard(result, items, tag, guard))
