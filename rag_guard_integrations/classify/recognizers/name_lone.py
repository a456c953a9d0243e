"""A lone brand: one capitalised word inside a sentence written in lower case, that no table
knows (no given or family name, English word, place, people, day, role or legal form), and
that no capitalised word touches (``the Brightmoor refund never came``, ``customers say
Zalando returns are easy``). Such a word is a firm's or a product's name far more often than a
person's: personal names come in pairs or after a title, which the other rules read.

A sentence with many capitalised words (a heading, a contract's defined terms, a title)
gives none: there capitals say little. Nor does one without a word of trade (customers, an
invoice, prices, hiring, a merger): a lone unknown word there is as often a village, a
street or a surname.

Example:
    >>> text = "honestly the Brightmoor refund took six weeks"
    >>> [text[s:e] for s, e in lone_brands(text, [])]
    ['Brightmoor']
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from rag_guard_integrations.classify.recognizers import name_words as words
from rag_guard_integrations.classify.recognizers.name_context import name_flags, overlaps
from rag_guard_integrations.classify.recognizers.names_table import english_words

if TYPE_CHECKING:
    from rag_guard_integrations.classify.recognizers.name_context import Span

# After a lower-case word or a comma and one space, four letters or more (what follows is
# read by _ends_alone).
_CANDIDATE = re.compile(r"(?<=[a-z,] )[A-Z][a-z]{3,}(?![a-z])")
_POSSESSIVE = ("'s", "’s")
_PREVIOUS = re.compile(r"(?:^|[^\w'’-])([\w'’-]+),? $")
_PLACE_BEFORE = frozenset(
    {"in", "near", "outside", "around", "into", "across", "towards", "toward", "via", "to",
     "from", "at", "of", "rue", "calle", "strasse", "street"}
)  # fmt: skip
"""Words after which a lone capitalised word is as often a place (``grew up in Remniku``,
``returned to Deanwell``) or a street's: the cue rules read firms there (``works at X``)."""
_TRADE = re.compile(
    r"\b(?:customers?|clients?|users?|subscribers?|shoppers?|refunds?|orders?|ordered|invoices?|"
    r"billing|billed|charged?|prices?|pricing|fees?|plans?|subscriptions?|accounts?|apps?|"
    r"software|platform|products?|brands?|services?|support|updates?|deliver(?:y|ies|ed)|"
    r"parcels?|shipping|returns|stores?|shops?|outlets?|market|shares|investors?|revenue|"
    r"profits?|earnings|sales|merger|acquisition|acquired|deal|contract|tender|supplier|vendor|"
    r"procurement|quotes?|hiring|hired|jobs?|intern(?:ship)?|employer|staff|layoffs?|laying off|"
    r"recall(?:ed)?|breach|regulators?|fined|lawsuit|sued|startup|company|companies|firm|"
    r"rivals?|competitors?|partnership|broadband|airline|bank|insurer|telecom)\b",
    re.IGNORECASE,
)
"""Words of trade in the sentence around a lone brand: a firm is written about there, where
a lone unknown word elsewhere is as often a village, a street or a surname."""
_PEOPLE_ENDINGS = ("ian", "ese", "ish", "ean")
"""Endings of peoples' and languages' names (``a Croatian place``)."""
_WORD = re.compile(r"[^\W\d_]+")
_SENTENCE_END = re.compile(r"[.!?\n]")
_MAX_CAPITALISED = 0.25
"""The largest share of capitalised words in the sentence around a lone brand."""
_MIN_WORDS = 6
_NOT_A_BRAND = (
    words.NATIONALITIES
    | words.CALENDAR
    | words.ROLE_TERMS
    | words.LEGAL_FORMS
    | words.ORGANIZATION_NOUNS
    | words.HONORIFICS
)


def lone_brands(text: str, taken: list[Span]) -> list[Span]:
    """The spans of lone brands in ``text`` (see the module docstring), leaving out the
    sorted spans ``taken`` by names found already."""
    if text.islower():
        return []
    flags, english = name_flags(), english_words()
    found: list[Span] = []
    for match in _CANDIDATE.finditer(text):
        key = match.group().lower()
        if key in flags or key in english or key in _NOT_A_BRAND or key.endswith(_PEOPLE_ENDINGS):
            continue
        span = match.span()
        if not _ends_alone(text, span[1]):
            continue
        previous = _PREVIOUS.search(text, max(0, span[0] - 40), span[0])
        if previous is None or not previous.group(1).islower():
            continue  # the next word of a name or a title ("Czech Republic"), or a line's start
        if previous.group(1) in _PLACE_BEFORE or overlaps(taken, span):
            continue
        if _in_lower_case(text, span[0]):
            found.append(span)
    return found


def _ends_alone(text: str, end: int) -> bool:
    """Whether the word ending at ``end`` ends there (or before a possessive), with no
    capitalised word after it, and is no part of a mail address or a domain."""
    if text.startswith(_POSSESSIVE, end):
        end += 2
    after = text[end : end + 2]
    if not after:
        return True
    if after[0] in "'’@-_" or after[0].isalnum():
        return False
    if after[0] == "." and after[1:].isalnum():
        return False  # a domain: "Brightmoor.com"
    return not (after[0] == " " and after[1:].isupper())


def _in_lower_case(text: str, start: int) -> bool:
    """Whether the sentence around ``start`` has enough words, few capitalised ones and a
    word of trade."""
    before = text.rfind("\n", 0, start)
    for end in _SENTENCE_END.finditer(text, max(0, start - 400), start):
        before = max(before, end.start())
    after = _SENTENCE_END.search(text, start)
    sentence = text[before + 1 : after.start() if after else len(text)]
    found = _WORD.findall(sentence)
    if len(found) < _MIN_WORDS:
        return False
    capitalised = sum(1 for w in found if w[0].isupper())
    return capitalised <= _MAX_CAPITALISED * len(found) and _TRADE.search(sentence) is not None
