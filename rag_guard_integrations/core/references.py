"""HTML character references (``&#52;``, ``&#x40;``, ``&commat;``) decoded, with offsets: a model
reads them as the characters they stand for, so the recognisers read them so too."""

from __future__ import annotations

import html
import re

# A numeric character reference, or a named one (html.unescape knows which names exist).
_REFERENCE = re.compile(r"&(?:#[0-9]{1,7};?|#[xX][0-9a-fA-F]{1,6};?|[A-Za-z][A-Za-z0-9]{1,31};?)")


def unescaped(text: str) -> tuple[str, list[int]] | None:
    """``text`` with its HTML character references decoded, and where each character of it
    was in ``text`` (a decoded character: at its reference's ``&``); None when it holds none.

    Example:
        >>> unescaped("card &#52;111")
        ('card 4111', [0, 1, 2, 3, 4, 5, 10, 11, 12])
        >>> unescaped("Smith & Sons") is None
        True
    """
    if "&" not in text:
        return None
    pieces: list[str] = []
    offsets: list[int] = []
    position = 0
    for match in _REFERENCE.finditer(text):
        written = match.group()
        decoded = html.unescape(written)
        if decoded == written:
            continue
        pieces.append(text[position : match.start()])
        offsets.extend(range(position, match.start()))
        pieces.append(decoded)
        offsets.extend([match.start()] * len(decoded))
        position = match.end()
    if not pieces:
        return None
    pieces.append(text[position:])
    offsets.extend(range(position, len(text)))
    return "".join(pieces), offsets
