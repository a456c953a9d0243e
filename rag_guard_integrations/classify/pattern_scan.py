"""The regex recognisers' matching engine: one RE2 set pass says which recognisers can have a
finding in a text; only those are scanned again for their spans, then checked (validator, a
context word near, or standalone)."""

from __future__ import annotations

from dataclasses import replace
from operator import attrgetter
from typing import TYPE_CHECKING, NamedTuple

from rag_guard_integrations.classify.base import Classification, Finding
from rag_guard_integrations.classify.pattern_digits import digits_end, needs_digit
from rag_guard_integrations.classify.pattern_fold import (
    LOOKALIKE_TRIGGER,
    digits_read,
    readings,
)
from rag_guard_integrations.core.patterns import (
    PatternSet,
    char_spans,
    compile_pattern,
    span_finder,
    union_spans,
)
from rag_guard_integrations.core.records import slot_filler
from rag_guard_integrations.core.references import span_end

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from rag_guard_integrations.classify.recognizers import Recognizer, Validator

    Span = tuple[int, int]
    # A pattern's match spans in UTF-8 data, as character offsets when ``wide`` (beyond
    # ASCII); ``digits`` is one past the data's last ASCII digit.
    Find = Callable[[bytes, bool, int], list[Span]]
    # The spans of one recogniser's values that count, in the folded text (data, folded, wide,
    # digits).
    Select = Callable[[bytes, str, bool, int], list[Span]]

# Made for every finding and every text with one: filled slot by slot.
new_finding = slot_filler(Finding)
_new_classification = slot_filler(Classification)
NOTHING = Classification(frozenset())
"""What a text without findings gets (one shared instance)."""
_FINDING_ORDER = attrgetter("start", "end", "recognizer")
_EMPTY: frozenset[str] = frozenset()


class _Trigger(NamedTuple):
    """What one pattern of the set starts when it occurs: ``select``, which scans recogniser
    ``name``'s values and keeps those that count. ``rival`` is the set index of the context
    words that start the same recogniser instead when they occur too (-1: none)."""

    name: str
    label: str
    rival: int
    select: Select


class PatternScanner:
    """Regex recognisers compiled into one ``re2.Set`` of the patterns that start a scan:
    each recogniser's own pattern when it has no context words (a value counts wherever it
    is), else its context words (its values count only near one) and its standalone gate
    (where a value that counts with no context word can be). Only the recognisers whose
    trigger occurs are scanned for their spans.

    Example:
        >>> from rag_guard_integrations.classify.recognizers import BUILTIN_RECOGNIZERS
        >>> scanner = PatternScanner([BUILTIN_RECOGNIZERS["email"]])
        >>> result = scanner.classify("Write to Jo@Example.com")
        >>> [(f.recognizer, f.start, f.end) for f in result.findings]
        [('email', 9, 23)]
    """

    def __init__(self, recognizers: Sequence[Recognizer]) -> None:
        patterns: list[str] = []
        triggers: list[_Trigger] = []
        for r in recognizers:
            values, context, gate = _finder(r.regex), r.context_regex, r.standalone_regex
            if context is None:
                # A standalone test without context words is moot: every value counts.
                patterns.append(r.regex)
                triggers.append(_Trigger(r.name, r.label, -1, _every(values, r.validator)))
                continue
            rival = len(patterns)
            patterns.append(context)
            near = _near(values, r.validator, _finder(context), r.window, r.standalone)
            triggers.append(_Trigger(r.name, r.label, -1, near))
            if gate is not None and r.standalone is not None:
                patterns.append(gate)
                alone = _alone(values, r.validator, r.standalone)
                triggers.append(_Trigger(r.name, r.label, rival, alone))
        # Where a digit look-alike touches a digit, the text is read again with them as
        # digits (digits_read); the trigger itself finds nothing.
        self._lookalike = len(patterns)
        patterns.append(LOOKALIKE_TRIGGER)
        triggers.append(_Trigger("", "", -1, _nothing))
        # Plain tuples: unpacking one is a single step, a named tuple's is not.
        self._triggers = [(t.name, t.label, t.rival, t.select) for t in triggers]
        self._match_utf8 = PatternSet(patterns).match_utf8

    def classify(self, text: str) -> Classification:
        """Every finding in ``text`` (in any of its :func:`readings`), its span indexing
        ``text``."""
        views = readings(text)
        if len(views) == 1:
            return classification(self._found(*views[0]))
        found = [f for view in views for f in self._found(*view)]
        if "&" in text:  # a value read decoded ends where its last reference ends
            found = [replace(f, end=span_end(text, f.end)) for f in found]
        return classification(merged(found))

    def _found(self, folded: str, data: bytes, offsets: list[int] | None) -> list[Finding]:
        """The findings of one reading, and of it with digit look-alikes read as digits,
        their spans indexing the original text."""
        hits = self._match_utf8(data)
        if not hits:
            return []
        findings = self._selected(hits, folded, data, offsets)
        if self._lookalike not in hits:
            return findings
        mapped = digits_read(folded)
        if mapped is None:
            return findings
        encoded = mapped.encode()  # as long as folded: the offsets hold
        findings += self._selected(self._match_utf8(encoded), mapped, encoded, offsets)
        return merged(findings)

    def _selected(
        self, hits: list[int], folded: str, data: bytes, offsets: list[int] | None
    ) -> list[Finding]:
        """The findings the patterns at ``hits`` start, in the reading ``folded``."""
        findings: list[Finding] = []
        add = findings.append
        triggers = self._triggers
        wide = len(data) != len(folded)
        digits = digits_end(data)
        for index in hits:  # in no order: the findings are sorted once, by span
            name, label, rival, select = triggers[index]
            if rival >= 0 and rival in hits:
                continue  # its context words occur too: that trigger scans it
            if offsets is None:
                for low, high in select(data, folded, wide, digits):
                    add(new_finding(name, label, low, high, 1.0))
            else:
                for low, high in select(data, folded, wide, digits):
                    add(new_finding(name, label, offsets[low], offsets[high - 1] + 1, 1.0))
        return findings


def _nothing(data: bytes, folded: str, wide: bool, digits: int) -> list[Span]:
    return []


def _finder(pattern: str) -> Find:
    """The match spans of ``pattern``: RE2 scans bytes, and turning byte offsets into
    character offsets is needed (and done) only beyond ASCII. A pattern that needs a digit
    is not searched for past the last one."""
    spans = span_finder(compile_pattern(pattern))
    numeric = needs_digit(pattern)

    def find(data: bytes, wide: bool, digits: int) -> list[Span]:
        found = spans(data, digits if numeric else len(data))
        return char_spans(found, data) if wide and found else found

    return find


def _every(values: Find, validator: Validator | None) -> Select:
    """Every value the validator accepts."""

    def select(data: bytes, folded: str, wide: bool, digits: int) -> list[Span]:
        found = values(data, wide, digits)
        if validator is None:
            return found
        return [(low, high) for low, high in found if validator(folded[low:high])]

    return select


def _near(
    values: Find, validator: Validator | None, context: Find, window: int, alone: Validator | None
) -> Select:
    """Every valid value with a context word less than ``window`` characters away, or that
    stands alone."""

    def select(data: bytes, folded: str, wide: bool, digits: int) -> list[Span]:
        kept: list[Span] = []
        near: list[Span] | None = None  # the context words' spans, found at first need
        passed = 0  # context spans ending before the current value's window
        for low, high in values(data, wide, digits):
            value = folded[low:high]
            if validator is not None and not validator(value):
                continue
            if near is None:
                near = context(data, wide, digits)
            # Values and context spans both come in text order: the first span that ends
            # inside this value's window only moves forward, so each is passed once however
            # many values there are.
            while passed < len(near) and near[passed][1] <= low - window:
                passed += 1
            far = passed == len(near) or near[passed][0] >= high + window
            if far and (alone is None or not alone(value)):
                continue
            kept.append((low, high))
        return kept

    return select


def _alone(values: Find, validator: Validator | None, alone: Validator) -> Select:
    """Every valid value that stands alone (the text has no context word)."""

    def select(data: bytes, folded: str, wide: bool, digits: int) -> list[Span]:
        kept: list[Span] = []
        for low, high in values(data, wide, digits):
            value = folded[low:high]
            if (validator is None or validator(value)) and alone(value):
                kept.append((low, high))
        return kept

    return select


def merged(findings: list[Finding]) -> list[Finding]:
    """One finding for each recogniser's overlapping findings (several readings of one text
    find one value with slightly different spans): their union.

    Example:
        >>> a, b = new_finding("ip", "net", 3, 15, 1.0), new_finding("ip", "net", 3, 16, 1.0)
        >>> [(f.start, f.end) for f in merged([a, b])]
        [(3, 16)]
    """
    spans: dict[tuple[str, str], list[tuple[int, int]]] = {}
    for f in findings:
        spans.setdefault((f.recognizer, f.label), []).append((f.start, f.end))
    return [
        new_finding(name, label, start, end, 1.0)
        for (name, label), found in spans.items()
        for start, end in union_spans(found)
    ]


def classification(findings: list[Finding]) -> Classification:
    """The classification that ``findings`` (in any order) make: their labels, and the
    findings in text order."""
    if not findings:
        return NOTHING
    if len(findings) > 1:
        findings.sort(key=_FINDING_ORDER)
    return _new_classification(
        frozenset([f.label for f in findings]), tuple(findings), _EMPTY, None
    )
