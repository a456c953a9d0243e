"""The state of one check as it passes the stages, and how a stage that raises denies."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from rag_guard_integrations.core.reasons import Reason

if TYPE_CHECKING:
    from rag_guard_integrations.classify.base import Finding
    from rag_guard_integrations.core.audit import RequestInfo
    from rag_guard_integrations.core.chunk import Chunk
    from rag_guard_integrations.core.decisions import QueryDecision
    from rag_guard_integrations.core.stage import ChunkCheck, Request
    from rag_guard_integrations.engine.redact import Masked


@dataclass(slots=True)
class Run:
    """The state of one check between its synchronous stages and labelling."""

    request: Request
    chunks: list[Chunk]
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


def stage_reasons(check: ChunkCheck, chunks: list[Chunk], request: Request) -> list[str | None]:
    """Why ``check`` denies each chunk (None: it passes). A stage with a ``check_many`` takes
    the chunks at once; if that raises or miscounts, each chunk is checked alone, so that a
    broken check denies only the chunks it fails on (fail closed)."""
    many = getattr(check, "check_many", None)
    if many is not None:
        try:
            reasons = many(chunks, request)
        except Exception:
            reasons = None
        if isinstance(reasons, list) and len(reasons) == len(chunks):
            return reasons
    out: list[str | None] = []
    for chunk in chunks:
        try:
            out.append(check(chunk, request))
        except Exception as error:  # noqa: PERF203 - a broken check denies only this chunk
            out.append(failure(check.name, error))
    return out


def failure(stage: str, error: BaseException) -> Reason:
    """The reason a chunk is denied when ``stage`` raised ``error`` on it; its record names the
    error's type only (the message may quote the chunk)."""
    kind = type(error).__name__
    return Reason(
        f"{stage} check failed ({kind}: {error}); denied (fail closed)",
        f"{stage} check failed ({kind}); denied (fail closed)",
    )
