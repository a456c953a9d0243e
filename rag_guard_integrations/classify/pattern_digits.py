"""Which patterns cannot match without an ASCII digit: text past its last digit need not be
searched for them, which saves the scanner the RE2 call that would only confirm there is no
further value (most values are numbers; most sentences end in words)."""

from __future__ import annotations

# The standard library's own regex parser (its public alias, sre_parse, is deprecated); the
# type stubs do not cover these modules.
import re._constants as sre  # type: ignore[import-not-found]
import re._parser as sre_parse  # type: ignore[import-not-found]
from typing import Any

# Every byte but an ASCII digit: UTF-8 text stripped of them on the right ends at its last digit
# (bytes of characters beyond ASCII are never 0x30-0x39).
_NOT_DIGITS = bytes(b for b in range(256) if not 0x30 <= b <= 0x39)
_REPEATS = (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT)


def digits_end(data: bytes) -> int:
    """One past the last ASCII digit of UTF-8 ``data`` (0 when it has none).

    Example:
        >>> digits_end(b"call 020 7946 0958 today")
        18
    """
    return len(data.rstrip(_NOT_DIGITS))


def needs_digit(pattern: str) -> bool:
    """True when every match of the RE2 ``pattern`` holds an ASCII digit (RE2's ``\\d`` is
    ``[0-9]``). Read with Python's own regex parser, whose syntax RE2's patterns share; a
    pattern it reads otherwise or not at all gets False, which only costs the saving.

    Example:
        >>> needs_digit(r"\\b\\d{3}-\\d{4}\\b"), needs_digit(r"\\b(?:tel|\\d+)\\b")
        (True, False)
    """
    try:
        parsed = sre_parse.parse(pattern)
    except (sre.error, RecursionError, OverflowError, ValueError):
        return False
    return _sequence_needs(parsed)


def _sequence_needs(items: Any) -> bool:
    return any(_item_needs(op, av) for op, av in items)


def _item_needs(op: Any, av: Any) -> bool:
    if op is sre.LITERAL:
        return _digit_member(op, av)
    if op is sre.IN:
        return all(_digit_member(kind, value) for kind, value in av)
    if op in _REPEATS:
        low, _, inner = av
        return bool(low >= 1) and _sequence_needs(inner)
    if op is sre.BRANCH:
        return all(_sequence_needs(branch) for branch in av[1])
    if op is sre.SUBPATTERN or op is sre.ATOMIC_GROUP:
        return _sequence_needs(av[-1] if op is sre.SUBPATTERN else av)
    return False  # anchors, any character, negations, assertions: nothing required


def _digit_member(kind: Any, value: Any) -> bool:
    """True when this member of a character class only ever matches an ASCII digit."""
    if kind is sre.LITERAL:
        return bool(0x30 <= value <= 0x39)
    if kind is sre.RANGE:
        return bool(value[0] >= 0x30 and value[1] <= 0x39)
    return kind is sre.CATEGORY and value is sre.CATEGORY_DIGIT
