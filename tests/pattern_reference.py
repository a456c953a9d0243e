"""The regex recognisers' findings computed the plain way, as their definition states them: each
recogniser's own RE2 matches, kept when the validator accepts the value and (for a recogniser
with context words) a context word is near it or the value stands alone. No set pass, no
triggers, no gates: what the scanner must find, however it gets there."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rag_guard_integrations.classify.pattern_fold import digits_read, readings
from rag_guard_integrations.core.patterns import compile_pattern, union_spans

if TYPE_CHECKING:
    from collections.abc import Sequence

    from rag_guard_integrations.classify.recognizers import Recognizer

Span = tuple[str, int, int]


def _matches(pattern: str, folded: str) -> list[tuple[int, int]]:
    return [m.span() for m in compile_pattern(pattern).finditer(folded) if m.end() > m.start()]


def reference_findings(recognizers: Sequence[Recognizer], text: str) -> list[Span]:
    """``(recogniser, start, end)`` of every finding in ``text``, spans indexing ``text``, in
    the scanner's order (by span, then recogniser name); a recogniser's findings in the text's
    readings (each also with its digit look-alikes read as digits) that overlap count as one,
    their union."""
    spans: dict[str, list[tuple[int, int]]] = {}
    for folded, _, offsets in readings(text):
        as_digits = digits_read(folded)
        for view in (folded,) if as_digits is None else (folded, as_digits):
            for name, start, end in _found(recognizers, view, offsets):
                spans.setdefault(name, []).append((start, end))
    found = [(name, s, e) for name, group in spans.items() for s, e in union_spans(group)]
    return sorted(found, key=lambda f: (f[1], f[2], f[0]))


def _found(recognizers: Sequence[Recognizer], folded: str, offsets: list[int] | None) -> list[Span]:
    found: list[Span] = []
    for recognizer in recognizers:
        context = recognizer.context_regex
        near = [] if context is None else _matches(context, folded)
        for low, high in _matches(recognizer.regex, folded):
            value = folded[low:high]
            if recognizer.validator is not None and not recognizer.validator(value):
                continue
            if context is not None:
                window = recognizer.window
                close = any(s < high + window and e > low - window for s, e in near)
                alone = recognizer.standalone is not None and recognizer.standalone(value)
                if not close and not alone:
                    continue
            if offsets is None:
                found.append((recognizer.name, low, high))
            else:
                found.append((recognizer.name, offsets[low], offsets[high - 1] + 1))
    return found
