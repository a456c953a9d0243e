"""Text normalisation before every term or regex match, so spelling tricks do not evade rules.

NFKD folds full-width and compatibility forms, case folding removes case, format characters
(zero-width, bidi controls, soft hyphen) and combining marks are dropped, common Cyrillic and
Greek look-alikes become their Latin letter, and runs of white space become one space.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

# Cyrillic, Greek and Latin look-alikes of ASCII letters, Latin small capitals last; each maps
# to the letter below it.
_HOMOGLYPHS = str.maketrans(
    "авеёєіїјкмнорстухѕԁԛԝһӏьαβγεηικνορτυχωϲϳѵμıɡɑɩᴀʙᴄᴅᴇꜰɢʜɪᴊᴋʟᴍɴᴏᴘʀꜱᴛᴜᴠᴡʏᴢ",
    "abeeeiijkmhopctyxsdqwhlbabyenikvoptuxwcjvuigaiabcdefghijklmnoprstuvwyz",
)
# Greek capitals whose lower case looks like a different Latin letter (Ν is N, but ν is v):
# folded before case folding, or "ΝOTICE" would read "votice".
_CAPITAL_HOMOGLYPHS = str.maketrans("ΗΜΝΥΖ", "hmnyz")
_DROPPED_CATEGORIES = frozenset({"Cf", "Mn", "Me", "Cc", "Cs", "Co", "Cn"})
# Blank letters and symbols that render as nothing (Hangul fillers, after NFKD, and the blank
# Braille pattern): dropped like zero-width characters.
_INVISIBLE = frozenset("\u115f\u1160\u2800")
_ASCII_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1b\x7f]")
_SPACE = re.compile(r"\s+")
_NOT_PRINTABLE_ASCII = re.compile(r"[^\x20-\x7e]")
# Longer texts are normalised afresh each time, so that huge distinct queries cannot pin memory.
CACHED_CHARS = 16_384


@lru_cache(maxsize=4096)  # text repeats its few non-ASCII characters
def _fold_char(char: str) -> str:
    """Return what one original character becomes: possibly several characters, or none."""
    if char.isspace():
        return " "
    out = []
    for part in unicodedata.normalize("NFKD", char).translate(_CAPITAL_HOMOGLYPHS).casefold():
        if part.isspace():
            out.append(" ")
        elif unicodedata.category(part) not in _DROPPED_CATEGORIES and part not in _INVISIBLE:
            out.append(part)
    return "".join(out).translate(_HOMOGLYPHS)


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


def fold_ascii(text: str) -> str | None:
    """What :func:`normalize_with_offsets` makes of ``text`` when it takes the ASCII fast path
    (the offsets are then the identity), else None: callers skip building offsets.

    Example:
        >>> fold_ascii("Call 555-0100"), fold_ascii("Zoë")
        ('call 555-0100', None)
    """
    if text.isascii() and not _ASCII_CONTROL.search(text):
        return text.lower()
    return None
