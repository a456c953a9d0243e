"""``action: redact``: mask a carrier's recogniser spans as ``[LABEL]`` instead of dropping it.

The one place a chunk text is changed: the allowed chunk is a new :class:`Chunk` with the
masked text (the input is never modified), and its decision keeps the original offsets. A
label that metadata claims, or that a classifier gave without a span, cannot be masked away,
so such a carrier is dropped as under ``block``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from rag_guard_integrations.core.chunk import Chunk
from rag_guard_integrations.core.decisions import Redaction

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from rag_guard_integrations.classify.base import Finding


@dataclass(frozen=True, slots=True)
class Masked:
    """A carrier kept with its spans masked: the new chunk, the spans and the labels left."""

    chunk: Chunk
    redactions: tuple[Redaction, ...]
    labels: frozenset[str]
    rule: str


def mask_text(text: str, spans: Iterable[Redaction]) -> str:
    """``text`` with each span replaced by ``[LABEL]``; overlapping spans become one mask.

    Example:
        >>> mask_text("mail bob@x.io now", [Redaction("contact_details", 5, 13, "email")])
        'mail [CONTACT_DETAILS] now'
    """
    pieces: list[str] = []
    cursor = 0
    for span in sorted(spans, key=lambda s: (s.start, -s.end)):
        if span.end <= cursor:
            continue
        if span.start >= cursor:
            pieces.append(text[cursor : span.start])
            pieces.append(f"[{span.label.upper()}]")
        cursor = max(cursor, span.end)
    pieces.append(text[cursor:])
    return "".join(pieces)


def redact(
    chunk: Chunk,
    rule: str,
    *,
    trigger: Iterable[str],
    labels: frozenset[str],
    claimed: frozenset[str],
    findings: Sequence[Finding],
) -> Masked | None:
    """Mask every span of the ``trigger`` labels ``chunk`` carries; None when one of them is
    claimed by metadata (``claimed``) or has no span, or when the chunk carries none."""
    targets = labels.intersection(trigger)
    if not targets:
        return None
    spans = tuple(
        Redaction(f.label, f.start, f.end, f.recognizer) for f in findings if f.label in targets
    )
    if targets & claimed or targets - {span.label for span in spans}:
        return None
    masked = Chunk(mask_text(chunk.text, spans), chunk.metadata, chunk.score, chunk.id)
    return Masked(masked, spans, labels - targets, rule)
