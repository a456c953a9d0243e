"""Names written without capitals, which the capitalised-run rules cannot see: a person's
when a record's label names one right before it. In a script without capitals (Han, Kana,
Hangul, Arabic, Hebrew, Thai, Devanagari) any word after the label and a colon (``Customer:
张伟``, ``Employee: محمد علي``); in lower-case Latin letters a given name and a family name
from the names table, neither a common word or a place (``Cardholder jane roe``).

Example:
    >>> text = "Customer: 张伟, Visa 4012888888881881"
    >>> [text[s:e] for s, e in labelled_names(text)]
    ['张伟']
    >>> labelled_names("Customer: Jane Roe")
    ()
    >>> text = "Cardholder jane roe, card 4111 1111 1111 1111"
    >>> [text[s:e] for s, e in labelled_names(text)]
    ['jane roe']
"""

from __future__ import annotations

import re

from rag_guard_integrations.classify.recognizers.name_words import PARTICLES
from rag_guard_integrations.classify.recognizers.names_table import (
    COMMON,
    GIVEN,
    NAME,
    PLACE,
    table_flags,
    word_flags,
)

# The letters (and the marks written with them) of the scripts that have no capitals.
_LETTERS = (
    "\u0590-\u05ff\u0600-\u06ff\u0750-\u077f\u0900-\u097f\u0980-\u09ff\u0e00-\u0e7f"
    "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af"
)
_LABEL = (
    r"\b(?:customer|client|employee|patient|applicant|candidate|tenant|borrower|"
    r"card[ -]?holder|account ?holder|policy ?holder|holder|beneficiary|contact|passenger|"
    r"guest|member|(?:full )?name|surname)(?: name)?"
)
_LABELLED = re.compile(
    rf"(?i){_LABEL}\s*[:=]\s*([{_LETTERS}]+(?:[ \u00b7\u30fb][{_LETTERS}]+){{0,3}})"
)
# The label in any case, then a given and a family name in lower case, maybe with particles
# between ("jean de la fontaine") or joined by a dot ("jane.roe"); a name in capitals is the
# runs' to read.
_PARTICLES = "|".join(sorted(PARTICLES, key=len, reverse=True))
_GAP = r"[ \t\u00a0]+"
_WORD = r"[^\W\d_]+(?:['’-][^\W\d_]+)*"
_LOWER_LABELLED = tuple(
    re.compile(
        rf"(?i:{_LABEL})[ \t\u00a0]*[:=|]?[ \t\u00a0]*({_WORD}){middle}"
        rf"(?:{_GAP}(?:{_PARTICLES}))*({_GAP}|\.)({_WORD})\b"
    )
    # Read without and with a middle name or initial ("mary ann smith", "jane r. roe").
    for middle in ("", rf"{_GAP}(?:[^\W\d_]\.|{_WORD})")
)


def labelled_names(text: str) -> tuple[tuple[int, int], ...]:
    """The spans of names written without capitals right after a label naming a person."""
    found = [] if text.isascii() else [match.span(1) for match in _LABELLED.finditer(text)]
    matches = [match for pattern in _LOWER_LABELLED for match in pattern.finditer(text)]
    if matches:
        flags = word_flags()
        found.extend(
            (match.start(1), match.end(3)) for match in matches if _lower_name(match, flags)
        )
    return tuple(sorted(set(found)))


def _lower_name(match: re.Match[str], flags: dict[str, int]) -> bool:
    """Whether a label's match is a given name in lower case and a family name, neither a
    common word or a place (a hyphened one by its first part: ``roe-smith``)."""
    given, joint, family = match.group(1), match.group(2), match.group(3)
    if not given.islower() or (joint == "." and len(family) < 3):
        return False  # "Name: john.py" names a file
    first, last = table_flags(flags, given.lower()), table_flags(flags, family.lower())
    return bool(first & GIVEN and last & NAME and not (first | last) & (COMMON | PLACE))
