"""Names in scripts without capitals (Han, Kana, Hangul, Arabic, Hebrew, Thai, Devanagari),
which the capitalised-run rules cannot see: a person's when a record's label names one right
before it (``Customer: 张伟``, ``Employee: محمد علي``).

Example:
    >>> text = "Customer: 张伟, Visa 4012888888881881"
    >>> [text[s:e] for s, e in labelled_names(text)]
    ['张伟']
    >>> labelled_names("Customer: Jane Roe")
    ()
"""

from __future__ import annotations

import re

# The letters (and the marks written with them) of the scripts that have no capitals.
_LETTERS = (
    "\u0590-\u05ff\u0600-\u06ff\u0750-\u077f\u0900-\u097f\u0980-\u09ff\u0e00-\u0e7f"
    "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af"
)
_LABELLED = re.compile(
    r"(?i)\b(?:customer|client|employee|patient|applicant|candidate|tenant|borrower|"
    r"card ?holder|account holder|beneficiary|contact|passenger|guest|member|(?:full )?name|"
    r"surname)(?: name)?\s*[:=]\s*"
    rf"([{_LETTERS}]+(?:[ \u00b7\u30fb][{_LETTERS}]+){{0,3}})"
)


def labelled_names(text: str) -> tuple[tuple[int, int], ...]:
    """The spans of names in a script without capitals right after a label naming a person."""
    if text.isascii():
        return ()
    return tuple(match.span(1) for match in _LABELLED.finditer(text))
