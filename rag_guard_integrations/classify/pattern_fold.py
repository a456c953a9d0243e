"""The text the regex recognisers read: normalised, line breaks kept, runs of spaces squeezed,
with each character's offset into the original text."""

from __future__ import annotations

import re
import unicodedata

from rag_guard_integrations.classify.recognizers.credit_card import GROUP_BREAK
from rag_guard_integrations.core.normalize import ASCII_LINE_FOLDS, fold_keeping_lines
from rag_guard_integrations.core.references import unescaped

_SPACE_RUN = re.compile(r"  +")
# A digit followed by a digit: where dropped characters may have joined two digit groups.
_DIGIT_PAIR = re.compile(r"\d(?=\d)")


Reading = tuple[str, bytes, "list[int] | None"]
"""A text as the recognisers read it: folded, its UTF-8, and offsets (None: the identity)."""


def readings(text: str) -> tuple[Reading, ...]:
    """The readings of ``text`` every recogniser scans (a value found in any is found):
    :func:`fold_for_matching`'s; when invisible format characters stood between two digits
    (read there as a group break), also the reading with them simply removed, so that
    ``56\u200b98`` inside an IBAN reads as ``5698`` too; and when the text holds HTML
    character references (``&#52;``, ``&#x40;``, ``&commat;``), which a model reads as the
    characters they stand for, the readings of the text with them decoded (offsets of a
    decoded character point at its reference's ``&``).

    Example:
        >>> [folded for folded, _, _ in readings("ab 12\u200b34")]
        ['ab 12 34', 'ab 1234']
        >>> [folded for folded, _, _ in readings("jo&#64;example.com")]
        ['jo&#64;example.com', 'jo@example.com']
    """
    own = _folded_readings(text)
    if "&" not in text:
        return own
    decoded = unescaped(text)
    if decoded is None:
        return own
    plain, at = decoded
    return own + tuple(
        (folded, data, [at[i] for i in (range(len(folded)) if offsets is None else offsets)])
        for folded, data, offsets in _folded_readings(plain)
    )


def _folded_readings(text: str) -> tuple[Reading, ...]:
    """:func:`readings` without decoding references."""
    if text.isascii():
        # Bytes: one 256-entry table lower-cases and maps white space. A text with a control
        # character (NUL after the table) or a run of spaces takes the general path below.
        # (find, not "in": on bytes, "in" first tries the argument as an int and raises.)
        data = text.encode("ascii").translate(ASCII_LINE_FOLDS)
        if data.find(b"\0") < 0 and data.find(b"  ") < 0:
            return ((data.decode("ascii"), data, None),)
    folded, offsets = fold_keeping_lines(text)
    if offsets is None:
        if "  " not in folded:
            return ((folded, folded.encode(), None),)
        offsets = list(range(len(folded)))
        grouped = folded, offsets
    else:
        grouped = _keep_digit_groups(text, folded, offsets)
    first, kept = _squeeze(*grouped)
    if grouped[0] is folded:
        return ((first, first.encode(), kept),)
    joined, joined_offsets = _squeeze(folded, offsets)
    return (first, first.encode(), kept), (joined, joined.encode(), joined_offsets)


def fold_for_matching(text: str) -> Reading:
    """Normalise for matching, keeping line breaks (values do not run across lines) and
    squeezing runs of spaces and tabs to one space (``4111  1111``, ``078\\t05\\t1120`` read
    as written with one space): the folded text, its UTF-8 (what RE2 scans), and each
    character's offset into ``text``: None when the offsets are the identity (plain ASCII
    with no run of spaces, the common case).

    Example:
        >>> fold_for_matching("Card  4111")
        ('card 4111', b'card 4111', [0, 1, 2, 3, 4, 6, 7, 8, 9])
    """
    return _folded_readings(text)[0]


def _keep_digit_groups(text: str, folded: str, offsets: list[int]) -> tuple[str, list[int]]:
    """Invisible format characters (zero-width spaces, joiners) dropped between two digits
    become a space: ``078\\u200b05\\u200b1120`` reads as the grouped ``078 05 1120`` it
    shows, not as one bare run of digits that needs a context word."""
    splits = [
        index
        for index in (match.end() for match in _DIGIT_PAIR.finditer(folded))
        if offsets[index] - offsets[index - 1] > 1
        and all(
            unicodedata.category(char) == "Cf"
            for char in text[offsets[index - 1] + 1 : offsets[index]]
        )
    ]
    if not splits:
        return folded, offsets
    chars, kept, position = [], [], 0
    for index in splits:
        chars.append(folded[position:index] + " ")
        kept.extend([*offsets[position:index], offsets[index - 1] + 1])
        position = index
    chars.append(folded[position:])
    kept.extend(offsets[position:])
    return "".join(chars), kept


def _squeeze(folded: str, offsets: list[int]) -> tuple[str, list[int]]:
    """Runs of spaces become their first space; the offsets follow."""
    if "  " not in folded:
        return folded, offsets
    parts: list[str] = []
    kept: list[int] = []
    position = 0
    for match in _SPACE_RUN.finditer(folded):
        keep = match.start() + 1
        parts.append(folded[position:keep])
        kept.extend(offsets[position:keep])
        position = match.end()
    parts.append(folded[position:])
    kept.extend(offsets[position:])
    return "".join(parts), kept


# Letters a reader takes for digits inside a run of digits: "4lll llll", "1ooo5", "l23-45".
LOOKALIKE_TRIGGER = r"[0-9][lio]|[lio][0-9]"
"""Where a digit look-alike touches a digit: the scanner's cue to read :func:`digits_read`."""
# Groups of digits and look-alikes, apart by what a card's groups may be apart by.
_LOOKALIKE_RUN = re.compile(
    rf"(?<![0-9lio])[0-9lio]{{2,}}(?:{GROUP_BREAK}[0-9lio]{{2,}})*(?![0-9lio])"
)
_AS_DIGITS = str.maketrans("lio", "110")
_TOUCHING = re.compile(LOOKALIKE_TRIGGER)
_MIN_RUN_DIGITS = 9  # an SSN's nine: shorter runs ("io 12", "lo-fi 2") are words


def digits_read(folded: str) -> str | None:
    """``folded`` with the look-alike letters of its digit runs read as digits (``l`` and
    ``i`` as 1, ``o`` as 0; not ``|``, a table's border), the same length; None when no run
    holds a look-alike touching a digit and nine or more of both.

    Example:
        >>> digits_read("card 4lll llll llll llll, ssn l23-45-6789")
        'card 4111 1111 1111 1111, ssn 123-45-6789'
        >>> digits_read("in 2019 oil prices rose") is None
        True
    """
    out, cursor = [], 0
    for run in _LOOKALIKE_RUN.finditer(folded):
        value = run.group()
        letters = sum(value.count(c) for c in "lio")
        digits = sum(c.isdigit() for c in value)
        if letters + digits < _MIN_RUN_DIGITS or _TOUCHING.search(value) is None:
            continue
        out += [folded[cursor : run.start()], value.translate(_AS_DIGITS)]
        cursor = run.end()
    return "".join([*out, folded[cursor:]]) if out else None
