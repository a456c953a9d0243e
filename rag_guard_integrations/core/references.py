"""HTML character references (``&#52;``, ``&#x40;``, ``&commat;``) decoded, with offsets: a model
reads them as the characters they stand for, so the recognisers read them so too."""

from __future__ import annotations

import html
import re
from html.entities import html5

# A numeric or named character reference closed by its semicolon, or a legacy named one
# without it (``&copy4111``: only the longest name HTML knows without one is read).
_REFERENCE = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")
_LEGACY = re.compile(r"&([A-Za-z][A-Za-z0-9]{1,31})(?!;)")
_ANY = re.compile(f"{_REFERENCE.pattern}|{_LEGACY.pattern}")
_LONGEST_LEGACY = max(len(name) for name in html5 if not name.endswith(";"))


def unescaped(text: str) -> tuple[str, list[int]] | None:
    """``text`` with its HTML character references decoded, and where each character of it
    was in ``text`` (a decoded character: at its reference's ``&``; :func:`span_end` gives a
    span ending there the reference's end); None when it holds none.

    Example:
        >>> unescaped("card &#52;111")
        ('card 4111', [0, 1, 2, 3, 4, 5, 10, 11, 12])
        >>> unescaped("Smith & Sons") is None
        True
        >>> unescaped("&copy4111")[0]
        '©4111'
    """
    if "&" not in text:
        return None
    pieces: list[str] = []
    offsets: list[int] = []
    position = 0
    for match in _ANY.finditer(text):
        legacy = match.group(1)
        written = match.group() if legacy is None else _legacy(legacy)
        decoded = html.unescape(written) if written else written
        if decoded == written:
            continue
        pieces.append(text[position : match.start()])
        offsets.extend(range(position, match.start()))
        pieces.append(decoded)
        offsets.extend([match.start()] * len(decoded))
        position = match.start() + len(written)
    if not pieces:
        return None
    pieces.append(text[position:])
    offsets.extend(range(position, len(text)))
    return "".join(pieces), offsets


def _legacy(name: str) -> str:
    """The longest reference HTML reads without a semicolon at the start of ``name``
    (``copy4111`` -> ``&copy``), or ``""``."""
    for size in range(min(len(name), _LONGEST_LEGACY), 1, -1):
        if name[:size] in html5:
            return "&" + name[:size]
    return ""


def span_end(text: str, end: int) -> int:
    """The end of a span of ``text`` whose last character, read decoded, was a reference: the
    reference's end (so that masking the span leaves none of it); else ``end``.

    Example:
        >>> span_end("111&#49; ok", 4)
        8
    """
    if end > 0 and text[end - 1] == "&" and (found := _REFERENCE.match(text, end - 1)):
        return found.end()
    return end
