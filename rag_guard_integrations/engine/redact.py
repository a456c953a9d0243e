"""``action: redact``: mask a carrier's recogniser spans as ``[LABEL]`` instead of dropping it.

The one place a chunk text is changed: the allowed chunk is a new :class:`Chunk` with the
masked text (the input is never modified), and its decision keeps the original offsets. A
label that metadata claims, or that a classifier gave without a span, cannot be masked away,
so such a carrier is dropped as under ``block``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from rag_guard_integrations.core.chunk import Chunk
from rag_guard_integrations.core.decisions import ChunkDecision, Redaction
from rag_guard_integrations.core.reasons import Reason
from rag_guard_integrations.engine.scrub import holds, scrubbed, scrubbed_text

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping, Sequence

    from rag_guard_integrations.classify.base import Finding
    from rag_guard_integrations.guards.combination import Labelled
    from rag_guard_integrations.guards.stage import SetStage


@dataclass(frozen=True, slots=True)
class Masked:
    """A carrier kept with its spans masked: the new chunk, the spans and the labels left."""

    chunk: Chunk
    redactions: tuple[Redaction, ...]
    labels: frozenset[str]
    rule: str

    def decision(self, index: int, original: Chunk, labels: frozenset[str]) -> ChunkDecision:
        """The allowed decision for input ``index``: the masked chunk, spans and ``original``."""
        kinds = ", ".join(sorted({r.label for r in self.redactions}))
        # Labels and the rule are the policy's names: the record keeps the whole reason.
        reason = Reason.fixed(f"{len(self.redactions)} span(s) of {kinds} masked by {self.rule}")
        return ChunkDecision(
            index,
            self.chunk,
            True,
            "combination",
            reason,
            self.rule,
            labels,
            self.redactions,
            original,
        )


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


def masked_values(decision: ChunkDecision) -> tuple[tuple[str, str], ...]:
    """What each of ``decision``'s spans masked, and its mask: ``(original text, "[LABEL]")``,
    longest first (so that a longer value is replaced before a part of it).

    Example:
        >>> from rag_guard_integrations.core.chunk import Chunk
        >>> original = Chunk("mail bob@x.io now")
        >>> span = Redaction("contact_details", 5, 13, "email")
        >>> decision = ChunkDecision(0, Chunk("mail [CONTACT_DETAILS] now"), True, "combination",
        ...     Reason.fixed("masked"), "r", frozenset(), (span,), original)
        >>> masked_values(decision)
        (('bob@x.io', '[CONTACT_DETAILS]'),)
    """
    original = decision.original
    if original is None:
        return ()
    return _masks(original.text, decision.redactions)


def _masks(text: str, spans: Iterable[Redaction]) -> tuple[tuple[str, str], ...]:
    found = {text[r.start : r.end]: f"[{r.label.upper()}]" for r in spans}
    pairs = [(value, mask) for value, mask in found.items() if value.strip()]
    return tuple(sorted(pairs, key=lambda pair: -len(pair[0])))


def redact(
    chunk: Chunk,
    rule: str,
    *,
    trigger: Iterable[str],
    labels: frozenset[str],
    claimed: frozenset[str],
    findings: Sequence[Finding],
) -> Masked | None:
    """Mask every span of the ``trigger`` labels ``chunk`` carries, and each masked value found
    again in the text or the metadata; None when one of them is claimed by metadata
    (``claimed``) or has no span, when the chunk carries none, or when a masked value is still
    in the text in another spelling."""
    targets = labels.intersection(trigger)
    if not targets:
        return None
    spans = tuple(
        Redaction(f.label, f.start, f.end, f.recognizer) for f in findings if f.label in targets
    )
    if targets & claimed or targets - {span.label for span in spans}:
        return None
    # What the masks hide is hidden in the rest of the text and in the metadata too: a copy
    # without it anywhere, or none.
    masks = _masks(chunk.text, spans)
    try:
        text = scrubbed_text(mask_text(chunk.text, spans), masks)
        metadata = scrubbed(chunk.metadata, masks)
        own = None if chunk.id is None else scrubbed(chunk.id, masks)  # an id may hold it too
    except Exception:  # metadata that cannot be read (a cycle, a str() that raises): dropped
        return None
    if text is None:
        return None
    masked = Chunk(text, metadata, chunk.score, own)
    return Masked(masked, spans, labels - targets, rule)


def confirm_masks(
    masked: dict[int, Masked],
    kept: Sequence[Labelled],
    combination: SetStage,
    widen: Callable[[int, frozenset[str]], Masked | None],
) -> dict[int, str]:
    """Take chunks out of ``masked`` while a removing rule still fires on ``kept`` (what is
    allowed, masked chunks counted with the labels their masks left them); returns the ones
    taken out, by their rule, for the caller to drop. A masked chunk is in a rule that still
    fires when it carries one of its labels or links its carriers (a linked rule). One that
    only redact rules still fire on is masked for them too, where ``widen`` (its index and
    those rules) can mask every label they name and so leaves it fewer labels (a card and a
    national id in one chunk, each its own rule's): only then does it stay."""
    dropped: dict[int, str] = {}
    while masked:
        items = [
            replace(i, labels=masked[i.index].labels) if i.index in masked else i for i in kept
        ]
        fired: dict[int, set[tuple[str, str]]] = {}
        try:
            for violation in combination(items).violations:
                # A masked chunk a linked rule fires through is in it too, carrier or not: its
                # metadata may be what links the carriers.
                linking = {end for link in violation.links for end in (link.a, link.b)}
                for index in (set(violation.chunk_indices) | linking) & masked.keys():
                    fired.setdefault(index, set()).add((violation.rule, violation.action))
        except Exception:  # the masks cannot be confirmed: drop them all (fail closed)
            fired = {index: {("", "block")} for index in masked}
        if not fired:
            break
        for index, rules in fired.items():
            wider = None
            if all(action == "redact" for _, action in rules):
                try:
                    wider = widen(index, frozenset(rule for rule, _ in rules))
                except Exception:  # a mask that cannot be widened: the chunk goes
                    wider = None
            if wider is not None and wider.labels < masked[index].labels:
                masked[index] = wider
            else:
                dropped[index] = masked.pop(index).rule
        kept = [item for item in kept if item.index not in dropped]
    return dropped


def masked_elsewhere(
    masked: Mapping[int, Masked], chunks: Sequence[Chunk], allowed: Iterable[int]
) -> dict[int, str]:
    """The ``allowed`` chunks (indices into ``chunks``, the originals) that hold a value
    another chunk's masks hid, in text, metadata or id (``order ref 4111111111111111A`` beside
    the card masked in a note; the surname of a masked name), each with the rule of that mask:
    the caller drops them, since the set would hand the value on unmasked."""
    sources = [(i, m.rule, _masks(chunks[i].text, m.redactions)) for i, m in masked.items()]
    found: dict[int, str] = {}
    for index in allowed:
        chunk = masked[index].chunk if index in masked else chunks[index]
        for source, rule, masks in sources:
            if source != index and _holds(chunk, masks):
                found[index] = rule
                break
    return found


def _holds(chunk: Chunk, masks: Sequence[tuple[str, str]]) -> bool:
    try:
        return holds(chunk.text, masks) or holds(chunk.metadata, masks) or holds(chunk.id, masks)
    except Exception:  # metadata that cannot be read: not known to be free of the value
        return True
