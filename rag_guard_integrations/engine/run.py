"""The state of one check as it passes the stages, and how a stage that raises denies."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rag_guard_integrations.core.reasons import Reason

if TYPE_CHECKING:
    from collections.abc import Sequence

    from rag_guard_integrations.classify.base import Finding
    from rag_guard_integrations.core.audit import RequestInfo
    from rag_guard_integrations.core.chunk import Chunk
    from rag_guard_integrations.core.chunk_list import ChunkList
    from rag_guard_integrations.core.decisions import QueryDecision
    from rag_guard_integrations.core.stage import Request
    from rag_guard_integrations.engine.plan import RequestPlan
    from rag_guard_integrations.engine.redact import Masked
    from rag_guard_integrations.guards.stage import ChunkStage


@dataclass(slots=True)
class Run:
    """The state of one check between its synchronous stages and labelling."""

    plan: RequestPlan
    request: Request
    chunks: ChunkList
    query: QueryDecision
    denied: dict[int, tuple[str, str]] = field(default_factory=dict)  # stage, reason
    labels: dict[int, frozenset[str]] = field(default_factory=dict)
    pending: list[int] = field(default_factory=list)
    notes: dict[int, Reason] = field(default_factory=dict)
    dropped: dict[int, frozenset[str]] = field(default_factory=dict)
    started_ns: int = field(default_factory=time.time_ns)
    # Labels that no span backs (metadata's, and a classifier's given without a finding), for
    # the chunks a classifier labelled; any other chunk's are its labels.
    claimed: dict[int, frozenset[str]] = field(default_factory=dict)
    findings: dict[int, tuple[Finding, ...]] = field(default_factory=dict)
    masked: dict[int, Masked] = field(default_factory=dict)
    info: RequestInfo | None = None
    notices: tuple[str, ...] = ()
    # What stages report besides verdicts, by GuardResult field (the access source's record).
    reported: dict[str, object] = field(default_factory=dict)
    # Chunks whose linking values cannot be read: denied where the enforced rules link chunks.
    unlinkable: dict[int, str] = field(default_factory=dict)


def stage_reasons(
    stage: ChunkStage, chunks: Sequence[Chunk], state: Any, request: Request
) -> Sequence[str | None]:
    """Why ``stage`` denies each chunk (None: it passes), all chunks at once under its plan
    ``state``; if that raises or miscounts, each chunk is judged alone (by the stage's
    ``__call__(chunk, request)`` when it has one), so that a broken stage denies only the
    chunks it fails on (fail closed)."""
    try:
        reasons = stage.check_many(chunks, state)
    except Exception:
        reasons = None
    if isinstance(reasons, list) and len(reasons) == len(chunks):
        return reasons
    alone = stage if callable(stage) else lambda chunk, _: stage.check_many([chunk], state)[0]
    out: list[str | None] = []
    for chunk in chunks:
        try:
            out.append(alone(chunk, request))
        except Exception as error:  # noqa: PERF203 - a broken stage denies only this chunk
            out.append(failure(stage.name, error))
    return out


def failure(stage: str, error: BaseException) -> Reason:
    """The reason a chunk is denied when ``stage`` raised ``error`` on it; its record names the
    error's type only (the message may quote the chunk)."""
    kind = type(error).__name__
    return Reason(
        f"{stage} check failed ({kind}: {error}); denied (fail closed)",
        f"{stage} check failed ({kind}); denied (fail closed)",
    )
