"""The decision records every adapter hands on: the guard's result with the adapter's own
denials folded in (each withheld input has exactly one decision, in the result, the audit record
and the events), a whole result withheld at once, and the text-free forms that may cross into a
framework's callbacks, events, traces and errors."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from rag_guard_integrations.core.audit import RequestInfo
from rag_guard_integrations.core.chunk import Chunk
from rag_guard_integrations.core.decisions import PASSED, ChunkDecision, GuardResult, QueryDecision
from rag_guard_integrations.core.reasons import Reason, recorded
from rag_guard_integrations.engine.audit import policy_identity, record_names
from rag_guard_integrations.engine.shadow import SHADOW_REASON

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

    from rag_guard_integrations.core.access import AccessContext
    from rag_guard_integrations.core.decisions import Violation
    from rag_guard_integrations.engine.guard import Guard

HANDOFF = "handoff"
LIMIT = "limit"
RAISED = Reason.fixed(
    "allowed, but a block rule fired under on_block: raise, so nothing was handed on"
)
BEYOND_LIMIT = Reason.fixed(
    "allowed, but beyond the number of chunks the request returns (k); not handed on"
)
"""The stage of an allowed chunk the adapter could not hand on as the guard judged it."""
UNMASKABLE = Reason.fixed(
    "its masks cannot be written back into the framework's object; withheld (fail closed)"
)


def with_denials(
    result: GuardResult, denials: Mapping[int, Reason], *, stage: str = HANDOFF
) -> GuardResult:
    """``result`` with the inputs at ``denials``' positions withheld at ``stage`` (for the
    reason given), so the result, its audit record and every event built from it show the
    adapter's own denials as decisions; ``result`` itself when there are none.

    Example:
        >>> from rag_guard_integrations import Guard
        >>> result = Guard.from_policy("default").check("q", [{"text": "a"}, {"text": "b"}])
        >>> amended = with_denials(result, {1: UNMASKABLE})
        >>> amended.allowed_indices, amended.decisions[1].stage
        ((0,), 'handoff')
    """
    if not denials:
        return result
    decisions = [
        replace(
            d, chunk=d.source, allowed=False, stage=stage, reason=denials[d.index], rule=None,
            redactions=(), original=None,
        )
        if d.index in denials
        else d
        for d in result.decisions
    ]  # fmt: skip
    return replace(result, decisions=tuple(decisions))


def withheld_whole(
    guard: Guard,
    query: str,
    chunks: Sequence[Chunk],
    access: AccessContext | None,
    *,
    stage: str,
    reason: Reason,
    enforced: bool,
) -> GuardResult:
    """The result of a request an adapter withheld as a whole (an agent tool's result no guard
    checked): one ``deny`` decision at ``stage`` per chunk and the policy's refusal; unenforced
    (shadow mode), the same decisions as the evaluation behind chunks that all pass."""
    names, digest = policy_identity(guard.policy)
    info = RequestInfo.new(
        query,
        access,
        names,
        digest,
        mode="enforce" if enforced else "shadow",
        key=guard.audit_key,
        names=record_names(guard.policy),
    )
    denied = [ChunkDecision(i, c, False, stage, reason) for i, c in enumerate(chunks)]
    refusal = guard.policy.no_context_refusal
    evaluated = GuardResult(QueryDecision(), denied, refusal=refusal, request=info)
    if enforced:
        return evaluated
    passed = [ChunkDecision(i, c, True, PASSED, SHADOW_REASON) for i, c in enumerate(chunks)]
    return GuardResult(QueryDecision(), passed, request=info, shadow=evaluated)


def report_record(
    result: GuardResult, fetched: int, returned: int, extra: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """What a log line or a framework event carries of one request: ``result.summary()`` plus
    ``fetched`` (candidates judged), ``dropped`` (withheld; not the allowed ones beyond the
    request's k), ``returned`` and the principal; never chunk text or a metadata value."""
    info = result.request
    beyond = sum(1 for d in result.decisions if d.stage == LIMIT and not d.allowed)
    return {
        **result.summary(),
        "fetched": fetched,
        "dropped": fetched - len(result.allowed_indices) - beyond,
        "returned": returned,
        "principal": info.principal if info is not None else None,
        **(extra or {}),
    }


def decision_rows(result: GuardResult) -> list[dict[str, object]]:
    """Per chunk ``{id, allowed, stage, rule}`` for traces: never chunk text or a reason."""
    return [
        {"id": d.chunk.id, "allowed": d.allowed, "stage": d.stage, "rule": d.rule}
        for d in result.decisions
    ]


def without_text(result: GuardResult) -> GuardResult:
    """``result`` as it may cross into a framework inside an exception (``ContextBlocked``):
    each chunk reduced to its id and score, reasons in the form the audit record holds them, no
    masked original, no stray or unknown labels, no linking values; the shadow evaluation
    likewise.

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
        violations=_unlinked(result.violations),
        warnings=_unlinked(result.warnings),
        unknown_labels={},
        dropped_labels={},
        shadow=None if result.shadow is None else without_text(result.shadow),
    )


def _unlinked(violations: Iterable[Violation]) -> tuple[Violation, ...]:
    return tuple(
        replace(v, links=tuple(replace(link, value="") for link in v.links)) for v in violations
    )
