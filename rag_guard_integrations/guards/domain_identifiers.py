"""Tier 2 of the domain guard: the standard identifiers a query names, in their identifier form.

A standard's prefix may also be an ordinary word: in "what is 269 plus 1", "x is 269" or "the
deadline is 2026" the English verb "is" stands before a number, not the Indian Standard prefix
IS. A policy lists such prefixes in ``identifier_word_prefixes``; a match of one counts only
when it is written as an identifier:

- joined to its number ("is:2062", "IS-2062", "is2062"): English never writes the verb so;
- in capitals ("IS 2062", full-width "ＩＳ 2062", look-alike capitals such as Cyrillic "ІЅ")
  in a query that is not typed all in capitals, where case would say nothing;
- right after a preposition, an article, an auxiliary verb or an opening bracket ("scope of
  is 2062", "what does is 2062 cover", "(is 1786)"): the verb never follows one of those.

A query typed all in lower case or all in capitals says nothing by its case, so there only the
form and the word before count: "x is 269" and "is 2062 a leap year" name no identifier.

Other prefixes ("AIS", "IEC") are no English words and count in every form. Whatever the form,
tier 2 accepts an identifier only when the collection has it (see ``DomainGuard``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from rag_guard_integrations.core.cache import BoundedCache
from rag_guard_integrations.core.normalize import CACHED_CHARS, normalize, normalize_with_offsets
from rag_guard_integrations.core.patterns import compile_pattern

IdentifierLookup = Callable[[str], bool]
"""Whether the collection holds an identifier, given its :func:`canonical_identifier` form: a
retriever or index can answer this from its own metadata instead of a list given up front."""

# The words after which "is" cannot be the verb: English prepositions, articles and auxiliary
# verbs (closed classes).
BEFORE_A_NAME = frozenset({
    "of", "in", "to", "per", "under", "for", "with", "about", "by", "from", "on", "at", "into",
    "onto", "within", "against", "versus", "vs", "via", "see", "like",
    "the", "a", "an",
    "is", "are", "was", "were", "be", "been", "am", "do", "does", "did", "can", "could", "will",
    "would", "shall", "should", "may", "might", "must", "has", "have", "had",
})  # fmt: skip
# A word longer than every word above cannot be one of them: only this much of the word before
# an identifier is read, so each match costs the same however long the query.
_WORD_WINDOW = max(map(len, BEFORE_A_NAME)) + 1
_LETTERS = re.compile(r"[^\W\d_]+")


def canonical_identifier(identifier: str) -> str:
    """The form identifiers are compared in: ``IS 2062``, ``is-2062`` and ``IS2062`` are equal.

    Example:
        >>> canonical_identifier("IS/IEC 60898-1")
        'isiec608981'
    """
    return "".join(ch for ch in identifier.casefold() if ch.isalnum())


class IdentifierReader:
    """Finds the identifiers a policy's ``identifier_pattern`` matches, in identifier form.

    Example:
        >>> reader = IdentifierReader(r"\\b((?:ais|is)\\s*[-:/]?\\s*\\d{2,5})\\b", ["is"])
        >>> reader.typed("Scope of IS 2062 and AIS-140"), reader.typed("What is 269 plus 1?")
        ({'is2062': 'IS 2062', 'ais140': 'AIS-140'}, {})
    """

    def __init__(self, pattern: str, word_prefixes: Iterable[str] = ()) -> None:
        self._pattern: Any = compile_pattern(pattern)
        self._group = 1 if self._pattern.groups >= 1 else 0
        self._words = frozenset(normalize(word) for word in word_prefixes)
        self._typed: BoundedCache[str, dict[str, str]] = BoundedCache(
            8192, max_key_len=CACHED_CHARS
        )

    def typed(self, query: str, normalized: str | None = None) -> dict[str, str]:
        """Canonical form -> the query's own spelling of each identifier it names in identifier
        form, in order (cached; do not modify the result). ``normalized``: the query's normal
        form, when the caller has it."""
        return self._typed.remember(query, lambda: self._read(query, normalized))

    def in_value(self, value: str) -> tuple[str, ...]:
        """Canonical identifiers of a metadata value: what the pattern finds, in any form, and
        the value itself (a metadata field that holds identifiers is trusted to hold one)."""
        found = (c for c, _, _ in self._matches(normalize(value)) if c)
        return tuple(dict.fromkeys(c for c in (*found, canonical_identifier(value)) if c))

    def _matches(self, text: str) -> Iterable[tuple[str, int, int]]:
        """``(canonical identifier, start, end)`` of each match's group in ``text``."""
        for match in self._pattern.finditer(text):
            found = match.group(self._group)
            if found:
                start, end = match.span(self._group)
                yield canonical_identifier(found), start, end

    def _read(self, query: str, normalized: str | None) -> dict[str, str]:
        # Most queries name no identifier: one search of the normal form settles those.
        if self._pattern.search(normalize(query) if normalized is None else normalized) is None:
            return {}
        text, offsets = normalize_with_offsets(query)
        found = [_Found.at(query, text, offsets, m) for m in self._matches(text) if m[0]]
        shouted = _all_capitals(query, [f.prefix_span for f in found if f.prefix])
        counted: dict[str, str] = {}
        for typed in found:
            if self._counts(typed, shouted):
                counted.setdefault(typed.canonical, typed.written)
        return counted

    def _counts(self, typed: _Found, shouted: bool) -> bool:
        """Whether ``typed`` is in identifier form (see the module); ``shouted``: the query is
        typed all in capitals, so case says nothing."""
        if typed.prefix not in self._words:
            return True
        if not typed.separator or typed.separator.strip():  # joined: "is2062", "is:2062"
            return True
        if typed.prefix_written.isupper() and not shouted:
            return True
        return typed.word_before.endswith(("(", "[")) or typed.word_before in BEFORE_A_NAME


@dataclass(frozen=True, slots=True)
class _Found:
    """One match of the identifier pattern, read for its form."""

    canonical: str
    written: str  # the query's own characters
    prefix: str  # normalised letters before the number ("is")
    prefix_written: str
    prefix_span: tuple[int, int]  # in the query
    separator: str  # normalised characters between the prefix and the number
    word_before: str  # the normalised word before the match (its end only, when long)

    @classmethod
    def at(cls, query: str, text: str, offsets: list[int], match: tuple[str, int, int]) -> _Found:
        canonical, start, end = match
        letters = _LETTERS.match(text, start, end)
        prefix_end = start if letters is None else letters.end()
        gap = text[prefix_end:end]
        digit = next((i for i, c in enumerate(gap) if c.isdigit()), len(gap))
        span = (offsets[start], offsets[prefix_end - 1] + 1) if prefix_end > start else (0, 0)
        return cls(
            canonical=canonical,
            written=query[offsets[start] : offsets[end - 1] + 1],
            prefix=text[start:prefix_end],
            prefix_written=query[span[0] : span[1]],
            prefix_span=span,
            separator=gap[:digit],
            word_before=_word_before(text, start),
        )


def _word_before(text: str, position: int) -> str:
    """The word (characters up to white space) that ends before ``position`` in ``text``, white
    space between skipped, or its last ``_WORD_WINDOW`` characters when it is longer.

    Each match reads the white space before it (which ends at the previous match, since a match
    holds a digit) and a bounded word: linear in the query for all matches together.

    Example:
        >>> _word_before("scope of   is 2062", 11), _word_before("(is 2062", 1)
        ('of', '(')
    """
    end = position
    while end > 0 and text[end - 1].isspace():
        end -= 1
    start = end
    while start > max(0, end - _WORD_WINDOW) and not text[start - 1].isspace():
        start -= 1
    return text[start:end]


def _all_capitals(query: str, spans: list[tuple[int, int]]) -> bool:
    """Whether the query outside ``spans`` has capitals and no lower-case letter."""
    rest, position = [], 0
    for start, end in spans:
        rest.append(query[position:start])
        position = end
    rest.append(query[position:])
    outside = "".join(rest)
    return any(c.isupper() for c in outside) and not any(c.islower() for c in outside)
