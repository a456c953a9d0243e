"""Text made safe to print: control and invisible characters escaped, so that a chunk id or a
metadata value cannot drive the terminal (escape sequences), reorder what is shown (bidi
controls) or break a table row (line separators)."""

from __future__ import annotations

import re

UNSAFE_RANGES = (
    (0x0000, 0x001F),  # C0 controls (tab and newline included: they break a row)
    (0x007F, 0x009F),  # DEL and the C1 controls (CSI: 0x9B)
    (0x00AD, 0x00AD),
    (0x0600, 0x0605),
    (0x061C, 0x061C),  # Arabic letter mark (bidi)
    (0x06DD, 0x06DD),
    (0x070F, 0x070F),
    (0x0890, 0x0891),
    (0x08E2, 0x08E2),
    (0x180E, 0x180E),
    (0x200B, 0x200F),  # zero-width characters, LRM, RLM
    (0x2028, 0x202E),  # line and paragraph separators, bidi embeddings and overrides
    (0x2060, 0x2064),
    (0x2066, 0x206F),  # bidi isolates
    (0xD800, 0xDFFF),  # lone surrogates: no output encoding can write them
    (0xFEFF, 0xFEFF),
    (0xFFF9, 0xFFFB),
    (0x110BD, 0x110BD),
    (0x110CD, 0x110CD),
    (0x13430, 0x13438),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0001, 0xE0001),
    (0xE0020, 0xE007F),  # tag characters
)
"""Every character of the Unicode categories Cc, Cf, Zl, Zp and Cs (Unicode 14, Python 3.11's
tables; a test holds the ranges to ``unicodedata``)."""

_UNSAFE = re.compile("[" + "".join(f"\\U{a:08x}-\\U{b:08x}" for a, b in UNSAFE_RANGES) + "]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code > 0xFFFF:  # as JSON writes it: a UTF-16 surrogate pair
        code -= 0x10000
        return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
    return f"\\u{code:04x}"


def printable(text: str) -> str:
    r"""``text`` with every control, format, separator and surrogate character written as a
    ``\uXXXX`` escape (the JSON spelling, so JSON text stays valid JSON); the CLI's tables,
    JSON output and HTML view all print through it.

    Example:
        >>> printable("id\x1b[31m\u202egnp.exe\n")
        'id\\u001b[31m\\u202egnp.exe\\u000a'
        >>> printable("Zürich, 東京")
        'Zürich, 東京'
    """
    return _UNSAFE.sub(_escape, text)
