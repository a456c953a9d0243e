"""Text normalisation before every term or regex match, so spelling tricks do not evade rules.

NFKD folds full-width and compatibility forms, case folding removes case, format characters
(zero-width, bidi controls, soft hyphen) and combining marks are dropped, common Cyrillic and
Greek look-alikes become their Latin letter, and runs of white space become one space.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

# Cyrillic, Greek and Latin look-alikes of ASCII letters; each maps to the letter below it.
_HOMOGLYPHS = str.maketrans(
    "авеёєіїјкмнорстухѕԁԛԝһӏь" "αβγεηικνορτυχωϲϳѵμ" "ıɡɑɩ",
    "abeeeiijkmhopctyxsdqwhlb" "abyenikvoptuxwcjvu" "igai",
)
_DROPPED_CATEGORIES = frozenset({"Cf", "Mn", "Me", "Cc", "Cs", "Co", "Cn"})
_ASCII_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1b\x7f]")
_SPACE = re.compile(r"\s+")


def _fold_char(char: str) -> str:
    """Return what one original character becomes: possibly several characters, or none."""
    if char.isspace():
        return " "
    out = []
    for part in unicodedata.normalize("NFKD", char).casefold():
        if part.isspace():
            out.append(" ")
        elif unicodedata.category(part) not in _DROPPED_CATEGORIES:
            out.append(part)
    return "".join(out).translate(_HOMOGLYPHS)


@lru_cache(maxsize=65536)
def normalize(text: str) -> str:
    """Return ``text`` as every matcher sees it (cached: the same chunk often comes back).

    Example:
        >>> normalize("ＢＩＴ\u200bCOIN  price")
        'bitcoin price'
    """
    if text.isascii() and not _ASCII_CONTROL.search(text):
        return " ".join(text.lower().split())
    folded = "".join(_fold_char(char) for char in text)
    return unicodedata.normalize("NFC", _SPACE.sub(" ", folded)).strip()


def normalize_with_offsets(text: str) -> tuple[str, list[int]]:
    """Normalise like :func:`normalize` but keep, for each output character, its input offset.

    Runs of white space are kept one for one (not collapsed) so that spans map back exactly;
    a match ``[s, e)`` in the output covers ``[offsets[s], offsets[e - 1] + 1)`` of the input.
    """
    if text.isascii() and not _ASCII_CONTROL.search(text):
        return text.lower(), list(range(len(text)))
    chars: list[str] = []
    offsets: list[int] = []
    for index, char in enumerate(text):
        folded = _fold_char(char)
        chars.append(folded)
        offsets.extend([index] * len(folded))
    return "".join(chars), offsets
