"""Text normalisation before every term or regex match, so spelling tricks do not evade rules.

NFKD folds full-width and compatibility forms, case folding removes case, format characters
(zero-width, bidi controls, soft hyphen) and combining marks are dropped, look-alikes become
the ASCII letter or digit they imitate (the Unicode confusables of UTS #39, in
:mod:`~rag_guard_integrations.core.confusables`), digits of every script become ASCII digits,
dashes become ``-``, and runs of white space become one space.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from functools import lru_cache

from rag_guard_integrations.core.confusables import FOLDS

# One translate table, looked up before decomposition and case folding (a capital may look like
# another letter than its lower case: Ν is N, but ν is v) and again after them.
_FOLDS = str.maketrans(*FOLDS)
_ASCII_SPACES = str.maketrans("\t\n\v\f\r\x1c\x1d\x1e\x1f", " " * 9)
_DROPPED_CATEGORIES = frozenset({"Cf", "Mn", "Me", "Cc", "Cs", "Co", "Cn"})
# Blank letters and symbols that render as nothing (Hangul fillers, after NFKD, and the blank
# Braille pattern): dropped like zero-width characters.
_INVISIBLE = frozenset("\u115f\u1160\u2800")
# The ASCII control characters normalisation drops (white space aside).
_ASCII_CONTROL_BYTES = bytes([*range(0x09), *range(0x0E, 0x1C), 0x7F])
_SPACE = re.compile(r"\s+")
_NOT_PRINTABLE_ASCII = re.compile(r"[^\x20-\x7e]")
# Longer texts are normalised afresh each time, so that huge distinct queries cannot pin memory.
CACHED_CHARS = 16_384


@lru_cache(maxsize=8192)
def _fold_char(char: str) -> str:
    """Return what one original character becomes: possibly several characters, or none."""
    if char.isspace():
        return " "
    folded = char.translate(_FOLDS)
    if folded != char:
        return folded
    out = []
    for part in unicodedata.normalize("NFKD", char).casefold():
        if part.isspace():
            out.append(" ")
        elif unicodedata.category(part) not in _DROPPED_CATEGORIES and part not in _INVISIBLE:
            out.append(part)
    return "".join(out).translate(_FOLDS)


def confusable_fold(char: str) -> str:
    """The character a homoglyph stands for, in lower case (UTS #39 confusables), or itself.

    Example:
        >>> confusable_fold("\u0430"), confusable_fold("\u03a1"), confusable_fold("\u0436")
        ('a', 'p', '\u0436')
    """
    return char.translate(_FOLDS)


def normalize(text: str) -> str:
    """Return ``text`` as every matcher sees it (cached: the same chunk often comes back).

    Example:
        >>> normalize("ＢＩＴ\u200bCOIN  price")
        'bitcoin price'
    """
    return _normalize_cached(text) if len(text) <= CACHED_CHARS else _normalize(text)


@lru_cache(maxsize=65536)
def _normalize_cached(text: str) -> str:
    return _normalize(text)


def _normalize(text: str) -> str:
    if plain_ascii(text):
        return " ".join(text.lower().split())
    folded = "".join(_fold_char(char) for char in text)
    return unicodedata.normalize("NFC", _SPACE.sub(" ", folded)).strip()


def fold_pattern(pattern: str) -> str:
    r"""A regex written for text as people write it, made to match text as the matchers read
    it: each non-ASCII letter folded as :func:`normalize` folds one (``è`` -> ``e``, ``Ñ`` ->
    ``n``, a look-alike to the letter it imitates), as a literal; the rest (ASCII syntax,
    symbols, spaces) is left as written.

    Example:
        >>> fold_pattern(r"\bdiabète\b|contraseña:?")
        '\\bdiabete\\b|contrasena:?'
    """
    if pattern.isascii():
        return pattern
    return "".join(
        _literal(_fold_char(char)) if not char.isascii() and char.isalpha() else char
        for char in pattern
    )


def _literal(folded: str) -> str:
    """``folded`` as regex text: its ASCII marks escaped (a full-width ``（`` folds to ``(``),
    anything else as it stands (RE2 refuses an escaped non-ASCII character)."""
    return "".join(f"\\{c}" if c.isascii() and not (c.isalnum() or c == "_") else c for c in folded)


def normalize_with_offsets(text: str) -> tuple[str, list[int]]:
    """Normalise like :func:`normalize` but keep, for each output character, its input offset.

    Runs of white space are kept one for one (not collapsed) so that spans map back exactly;
    a match ``[s, e)`` in the output covers ``[offsets[s], offsets[e - 1] + 1)`` of the input.
    """
    if plain_ascii(text):
        # White space becomes a space as on the slow path, so one accented letter elsewhere in
        # the text cannot change what a pattern sees.
        return text.lower().translate(_ASCII_SPACES), list(range(len(text)))
    chars: list[str] = []
    offsets: list[int] = []
    position = 0
    # Runs of printable ASCII only need lower-casing; fold the other characters one by one.
    for match in _NOT_PRINTABLE_ASCII.finditer(text):
        index = match.start()
        chars.append(text[position:index].lower())
        offsets.extend(range(position, index))
        folded = _fold_char(text[index])
        chars.append(folded)
        offsets.extend([index] * len(folded))
        position = index + 1
    chars.append(text[position:].lower())
    offsets.extend(range(position, len(text)))
    return "".join(chars), offsets


_ASCII_BYTES = bytes(range(128))
_LINE_BREAKS = frozenset("\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029")
_LINE_BREAK = re.compile(f"[{''.join(sorted(_LINE_BREAKS))}]")
_TABLE_LIMIT = 8192


class _LineFolds(dict[int, str]):
    """A ``str.translate`` table: each character's fold as in :func:`normalize_with_offsets`,
    except that line breaks become ``\\n``; filled on first sight, and emptied when it grows
    past ``_TABLE_LIMIT`` (``generation`` counts that). ``uneven`` holds the characters that
    fold to other than exactly one character."""

    def __init__(self) -> None:
        super().__init__()
        self.uneven: set[str] = set()
        self.generation = 0

    def __missing__(self, ordinal: int) -> str:
        if len(self) >= _TABLE_LIMIT:
            self.clear()
            self.uneven.clear()
            self.generation += 1
        char = chr(ordinal)
        if char in _LINE_BREAKS:
            folded = "\n"
        elif " " <= char <= "~":
            folded = char.lower()
        else:
            folded = _fold_char(char)
        if len(folded) != 1:
            self.uneven.add(char)
        self[ordinal] = folded
        return folded


_LINE_FOLDS = _LineFolds()
# The table's ASCII part on bytes: lower case, line breaks a line break, other white space a
# space, and the control characters it drops NUL (so that one search finds them); bytes
# beyond ASCII are left as they are.
ASCII_LINE_FOLDS = bytes.maketrans(
    b"ABCDEFGHIJKLMNOPQRSTUVWXYZ\t\x1f\n\r\v\f\x1c\x1d\x1e" + _ASCII_CONTROL_BYTES,
    b"abcdefghijklmnopqrstuvwxyz  \n\n\n\n\n\n\n" + bytes(len(_ASCII_CONTROL_BYTES)),
)


def fold_keeping_lines(text: str) -> tuple[str, list[int] | None]:
    """Normalise like :func:`normalize_with_offsets`, except that line breaks stay line breaks
    (``\\n``); the offsets are None when they are the identity (every character folds to one).

    Example:
        >>> fold_keeping_lines("Zoë\\r\\nLee"), fold_keeping_lines("ﬁn")
        (('zoe\\n\\nlee', None), ('fin', [0, 0, 1]))
    """
    if text.isascii():
        # The table's ASCII part, on bytes; a control character (NUL after it) folds to none.
        data = text.encode("ascii").translate(ASCII_LINE_FOLDS)
        if data.find(b"\0") < 0:
            return data.decode("ascii"), None
    else:
        quick = _fold_mostly_ascii(text)
        if quick is not None:
            return quick, None
    folded, offsets = normalize_with_offsets(text)
    # normalize_with_offsets makes every white space a space: line breaks back to breaks.
    chars: list[str] | None = None
    for match in _LINE_BREAK.finditer(text):
        index = bisect.bisect_left(offsets, match.start())
        if index < len(folded) and offsets[index] == match.start() and folded[index] == " ":
            chars = list(folded) if chars is None else chars
            chars[index] = "\n"
    return (folded if chars is None else "".join(chars)), offsets


def _fold_mostly_ascii(text: str) -> str | None:
    """What ``text.translate(_LINE_FOLDS)`` gives when every character folds to exactly one;
    None otherwise.

    ``str.translate`` leaves its fast path at the first character beyond ASCII and looks up
    every character after it. Here the ASCII bytes go through a 256-entry table, and each
    distinct other character (few, in most text) is looked up once and replaced.
    """
    data = text.encode("utf-8", "surrogatepass").translate(ASCII_LINE_FOLDS)
    if data.find(b"\0") >= 0:
        return None  # ASCII control characters fold to nothing
    table = _LINE_FOLDS
    generation = table.generation
    others = set(data.translate(None, _ASCII_BYTES).decode("utf-8", "surrogatepass"))
    changed = [(char, fold) for char in others if (fold := table[ord(char)]) != char]
    if table.generation != generation or not table.uneven.isdisjoint(others):
        return None
    replaced = {char for char, _ in changed}
    if any(fold in replaced for _, fold in changed):
        # A fold that is itself replaced would be replaced twice (folds are idempotent: this
        # is a safety net, not a path text takes).
        folded = text.translate(table)
        return folded if table.generation == generation else None
    folded = data.decode("utf-8", "surrogatepass")
    for char, fold in changed:
        folded = folded.replace(char, fold)
    return folded


def plain_ascii(text: str) -> bool:
    """Whether :func:`normalize_with_offsets` takes its ASCII fast path for ``text``: only
    lower-casing and white space change, and the offsets are the identity.

    Example:
        >>> plain_ascii("Call 555-0100"), plain_ascii("Zoë")
        (True, False)
    """
    return plain_ascii_bytes(text) is not None


def plain_ascii_bytes(text: str) -> bytes | None:
    """The ASCII bytes of ``text`` when :func:`plain_ascii` holds for it, else None."""
    if not text.isascii():
        return None
    data = text.encode("ascii")
    return data if len(data.translate(None, _ASCII_CONTROL_BYTES)) == len(data) else None
