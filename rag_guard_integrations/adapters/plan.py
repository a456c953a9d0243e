"""The request plan as the adapters use it: made once per request, shared by the pushdown, the
fetch decision and every check of the request. The only place that calls the engine's planning
and checking, so that a change of the engine's interface is made here alone."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rag_guard_integrations.adapters.drive import Call
from rag_guard_integrations.engine.audit import held

if TYPE_CHECKING:
    from collections.abc import Sequence

    from rag_guard_integrations.core.access import AccessContext
    from rag_guard_integrations.core.chunk import Chunk
    from rag_guard_integrations.core.decisions import GuardResult
    from rag_guard_integrations.engine.guard import Guard
    from rag_guard_integrations.engine.plan import RequestPlan


def plan(guard: Guard, query: str, access: AccessContext | None) -> RequestPlan:
    """The plan of one request (:meth:`~rag_guard_integrations.Guard.plan`): the query read
    once, for the pushdown, the fetch decision and every check of the request."""
    return guard.plan(query, access)


def fetches(planned: RequestPlan) -> bool:
    """Whether a chunk of the request could pass at all: not when the query is rejected before
    retrieval or no chunk can pass (then the adapter fetches nothing)."""
    return planned.constraints is not None and planned.rejected is None


def checking(guard: Guard, planned: RequestPlan, chunks: Sequence[Chunk]) -> Call[GuardResult]:
    """The check of ``chunks`` under ``planned``, as a step; its audit record is held back, for
    the adapter publishes the final result once it has added its own denials."""

    def check() -> GuardResult:
        with held():
            return guard.check(planned, chunks)

    async def acheck() -> GuardResult:
        with held():
            return await guard.acheck(planned, chunks)

    return Call(check, acheck)
