"""Text normalisation before every term or regex match, so spelling tricks do not evade rules.

NFKD folds full-width and compatibility forms, case folding removes case, format characters
(zero-width, bidi controls, soft hyphen) and combining marks are dropped, look-alikes become
the ASCII letter or digit they imitate (the Unicode confusables of UTS #39, in
:mod:`~rag_guard_integrations.core.confusables`), digits of every script become ASCII digits,
dashes become ``-``, and runs of white space become one space.
"""

from __future__ import annotations

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
_ASCII_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1b\x7f]")
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


def plain_ascii(text: str) -> bool:
    """Whether :func:`normalize_with_offsets` takes its ASCII fast path for ``text``: only
    lower-casing and white space change, and the offsets are the identity.

    Example:
        >>> plain_ascii("Call 555-0100"), plain_ascii("Zoë")
        (True, False)
    """
    return text.isascii() and not _ASCII_CONTROL.search(text)
