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
    word_flags,
)

# The letters (and the marks written with them) of the scripts that have no capitals.
_LETTERS = (
    "\u0590-\u05ff\u0600-\u06ff\u0750-\u077f\u0900-\u097f\u0980-\u09ff\u0e00-\u0e7f"
    "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af"
)
_LABEL = (
    r"\b(?:customer|client|employee|patient|applicant|candidate|tenant|borrower|"
    r"card ?holder|account holder|beneficiary|contact|passenger|guest|member|(?:full )?name|"
    r"surname)(?: name)?"
)
_LABELLED = re.compile(
    rf"(?i){_LABEL}\s*[:=]\s*([{_LETTERS}]+(?:[ \u00b7\u30fb][{_LETTERS}]+){{0,3}})"
)
# The label in any case, then a given and a family name in lower case, maybe with particles
# between ("jean de la fontaine") or joined by a dot ("jane.roe"); a name in capitals is the
# runs' to read.
_PARTICLES = "|".join(sorted(PARTICLES, key=len, reverse=True))
_LOWER_LABELLED = re.compile(
    rf"(?i:{_LABEL})[ \t]*[:=]?[ \t]*([a-z][a-z'’-]+)(?: (?:{_PARTICLES}))*[ .]([a-z][a-z'’-]+)\b"
)


def labelled_names(text: str) -> tuple[tuple[int, int], ...]:
    """The spans of names written without capitals right after a label naming a person."""
    found = [] if text.isascii() else [match.span(1) for match in _LABELLED.finditer(text)]
    matches = list(_LOWER_LABELLED.finditer(text))
    if matches:
        flags = word_flags()
        found.extend(
            (match.start(1), match.end(2))
            for match in matches
            if _given_and_family(flags.get(match.group(1), 0), flags.get(match.group(2), 0))
        )
    return tuple(sorted(found))


def _given_and_family(given: int, family: int) -> bool:
    return bool(given & GIVEN and family & NAME and not (given | family) & (COMMON | PLACE))
