"""One guarded request, the same for every adapter: plan once, fetch (out of sight) only when a
chunk could pass, convert to chunks, check, hand the allowed framework objects on (converted
back), fold the adapter's own denials into the result, publish it once, and say whether to
refuse. Written once as a flow (:mod:`.drive`), run by the sync or the async driver."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Generic, Protocol, TypeVar

from rag_guard_integrations.adapters.listen import hear
from rag_guard_integrations.adapters.plan import checking, fetches, plan
from rag_guard_integrations.adapters.records import (
    BEYOND_LIMIT,
    LIMIT,
    RAISED,
    UNMASKABLE,
    with_denials,
    without_text,
)
from rag_guard_integrations.adapters.refusal import refusal_for
from rag_guard_integrations.core.errors import ContextBlocked
from rag_guard_integrations.engine.audit import publish

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from rag_guard_integrations.adapters.drive import Flow
    from rag_guard_integrations.core.access import AccessContext
    from rag_guard_integrations.core.chunk import Chunk
    from rag_guard_integrations.core.decisions import ChunkDecision, GuardResult
    from rag_guard_integrations.core.reasons import Reason
    from rag_guard_integrations.engine.guard import Guard
    from rag_guard_integrations.engine.plan import RequestPlan

T = TypeVar("T")


class Conversion(Protocol[T]):
    """How an adapter turns its framework's objects into chunks and back."""

    def chunk(self, item: T, position: int) -> Chunk:
        """The chunk the guard judges for ``item``: the text the model will be sent."""
        ...

    def hand_on(self, item: T, masked: ChunkDecision | None) -> T | None:
        """``item`` as it goes on to the model (itself, or a copy holding ``masked``'s text
        when a redact rule masked it; the caller's object is never changed), or None when it
        cannot go on as the guard judged it (it is then withheld)."""
        ...


@dataclass(frozen=True, slots=True)
class Checked(Generic[T]):
    """What one guarded request hands on: the allowed framework objects (in input order, at
    most the request's limit), the result with one decision per input (the adapter's own
    denials included), the plan, how many candidates were judged, and the refusal to answer
    with instead of calling the model (None: the model may answer)."""

    items: list[T]
    result: GuardResult
    plan: RequestPlan
    fetched: int
    refusal: str | None


def guarded(
    guard: Guard,
    query: str,
    access: AccessContext | None,
    convert: Conversion[T],
    *,
    items: Sequence[T] = (),
    fetch: Callable[[RequestPlan], Flow[Sequence[T]]] | None = None,
    planned: RequestPlan | None = None,
    limit: int | None = None,
    tag: object = None,
) -> Flow[Checked[T]]:
    """The flow of one guarded request (run it with :func:`~.drive.run` or :func:`~.drive.arun`).

    ``items`` are judged as they are, or ``fetch`` makes the flow that fetches them for the plan
    (skipped when no chunk could pass). ``planned`` is a plan the request made already (a
    second check of the same request, after a step changed what the model will read).
    An item ``convert`` cannot hand on is withheld (its masks could not be written back). The
    result is published once and heard by
    :func:`~.listen.guard_results` blocks; under ``on_block: raise`` a :class:`ContextBlocked`
    without text is raised.
    """
    planned = planned if planned is not None else plan(guard, query, access)
    if fetch is not None:
        items = (yield from fetch(planned)) if fetches(planned) else ()
    chunks = [convert.chunk(item, i) for i, item in enumerate(items)]
    blocked = None
    try:
        result = yield checking(guard, planned, chunks)
    except ContextBlocked as error:
        blocked = error
    if blocked is not None:  # raised here, so the full result is not its __context__ either
        # Recorded as what happened: nothing handed on, the request refused.
        nothing = with_denials(
            blocked.result, dict.fromkeys(blocked.result.allowed_indices, RAISED)
        )
        nothing = replace(nothing, refusal=nothing.refusal or guard.policy.no_context_refusal)
        publish(nothing)
        hear(nothing, (), tag, guard)
        raise ContextBlocked(without_text(blocked.result))
    kept: list[tuple[int, T]] = []
    denials: dict[int, Reason] = {}
    masked = result.redacted
    for i in result.allowed_indices:
        handed = convert.hand_on(items[i], result.decisions[i] if i in masked else None)
        if handed is None:
            denials[i] = UNMASKABLE
        else:
            kept.append((i, handed))
    result = with_denials(result, denials)
    refusal = refusal_for(result, len(kept), guard.policy)
    if refusal != result.refusal:
        result = replace(result, refusal=refusal)
    # What the request hands on is what its record says passed: allowed chunks beyond the
    # limit (the k the caller asked for, of fetch_k candidates) are decided as not handed on.
    if limit is not None and len(kept) > limit:
        result = with_denials(result, dict.fromkeys((i for i, _ in kept[limit:]), BEYOND_LIMIT),
                              stage=LIMIT)  # fmt: skip
        kept = kept[:limit]
    returned = [handed for _, handed in kept]
    publish(result)
    hear(result, returned, tag, guard)
    return Checked(returned, result, planned, len(items), refusal)
