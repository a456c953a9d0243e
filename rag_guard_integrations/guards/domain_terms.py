"""Term matching for the domain guard: whole words, simple plurals and two-term compounds on RE2.

A listed term counts only as a whole word (``toy`` never inside ``toyota``), as its simple
plural (``bottles``, ``batteries``) or, where compounds are allowed, joined to another listed
term (``waterbottle``). Every tier compiles its terms into one pattern, so a query costs one RE2
pass per tier whatever the length of the list. With ``typos``, a misspelt term counts too (see
:mod:`.domain_typos`).
"""

from __future__ import annotations

import bisect
import re
from typing import TYPE_CHECKING, Any

from rag_guard_integrations.core.normalize import normalize
from rag_guard_integrations.core.patterns import compile_pattern
from rag_guard_integrations.guards.domain_typos import Typos, english_words

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

_WORD = re.compile(r"\w+")
_JOINERS = re.compile(r"[\s\-]+")
_VOWELS = frozenset("aeiou")


def plural_forms(term: str) -> list[str]:
    """The term and its simple plurals: ``+s``, ``+es`` and ``y`` -> ``ies`` after a consonant."""
    forms = [term, term + "s", term + "es"]
    if len(term) > 2 and term.endswith("y") and term[-2] not in _VOWELS:
        forms.append(term[:-1] + "ies")
    return forms


def _key(text: str) -> str:
    """Spaces and hyphens dropped, so ``social-media`` and ``socialmedia`` name one term."""
    return _JOINERS.sub("", text)


def _form_pattern(form: str) -> str:
    """A form as a regex: words escaped, joined by optional spaces or hyphens (``set-top box``
    also reads as ``set top box`` and ``settop box``)."""
    return r"[\s\-]*".join(re.escape(word) for word in _JOINERS.split(form) if word)


class TermMatcher:
    """Finds listed terms in normalised text with one RE2 pattern.

    Example:
        >>> matcher = TermMatcher(["water", "bottle"], compounds=True)
        >>> [term for _, term in matcher.find("isi mark for waterbottles")]
        ['water']
    """

    def __init__(self, terms: Iterable[str], *, compounds: bool, typos: bool = False) -> None:
        self.terms = tuple(dict.fromkeys(t for t in (normalize(x) for x in terms) if t))
        self._forms: dict[str, str] = {}
        for term in self.terms:
            for form in plural_forms(term):
                self._forms.setdefault(_key(form), term)
        single = {f: t for t in self.terms for f in plural_forms(t) if not _JOINERS.search(f)}
        self._typos = Typos(single, english_words()) if typos else None
        self._pattern: Any = None
        if self.terms:
            # Longest first, so that ``batteries`` wins over ``battery`` at the same place.
            forms = sorted({f for t in self.terms for f in plural_forms(t)}, key=len, reverse=True)
            one = "(?:" + "|".join(_form_pattern(f) for f in forms) + ")"
            body = f"{one}{one}?" if compounds else one
            self._pattern = compile_pattern(rf"\b{body}\b")

    def find(self, text: str) -> list[tuple[int, str]]:
        """``(offset, term)`` per match in normalised ``text``, in order; a compound names its
        first term."""
        return [(start, term) for start, _, term in self._spans(text)]

    def _spans(self, text: str) -> list[tuple[int, int, str]]:
        if self._pattern is None:
            return []
        found = [
            (m.start(), m.end(), self._term_of(m.group())) for m in self._pattern.finditer(text)
        ]
        if self._typos is None:
            return found
        typed = self._typos.find(text, [(start, end) for start, end, _ in found])
        return sorted(found + typed) if typed else found

    def first(self, text: str) -> str | None:
        """The first listed term found in ``text``, or None."""
        if self._pattern is None:
            return None
        match = self._pattern.search(text)
        return None if match is None else self._term_of(match.group())

    def replace(self, text: str, word: str) -> str:
        """``text`` with every listed term (and compound) replaced by ``word``, in one pass.

        Example:
            >>> TermMatcher(["pressure cooker"], compounds=True).replace(
            ...     "is my pressure cooker safe", "product")
            'is my product safe'
        """
        pieces, position = [], 0
        for start, end, _ in self._spans(text):
            pieces += [text[position:start], word]
            position = end
        return "".join([*pieces, text[position:]])

    def _term_of(self, matched: str) -> str:
        key = _key(matched)
        term = self._forms.get(key)
        if term is not None:
            return term
        for cut in range(1, len(key)):
            head, tail = self._forms.get(key[:cut]), self._forms.get(key[cut:])
            if head is not None and tail is not None:
                return head
        return key


def near_pair(
    text: str,
    anchors: Sequence[tuple[int, str]],
    neighbours: Sequence[tuple[int, str]],
    window: int,
) -> tuple[str, str] | None:
    """The first ``(anchor, neighbour)`` at most ``window`` words apart in ``text``, or None.

    Each anchor looks only at the neighbours inside its window (found by bisection), so the
    work grows as (anchors + neighbours) x log, not anchors x neighbours: a long query of
    roots far from any context word stays cheap.
    """
    if not anchors or not neighbours:
        return None
    starts = [m.start() for m in _WORD.finditer(text)]

    def word_index(offset: int) -> int:
        return bisect.bisect_right(starts, offset) - 1

    placed = sorted(
        ((word_index(offset), order, term) for order, (offset, term) in enumerate(neighbours))
    )
    positions = [position for position, _, _ in placed]
    for offset, anchor in anchors:
        position = word_index(offset)
        low = bisect.bisect_left(positions, position - window)
        high = bisect.bisect_right(positions, position + window)
        near = [(order, term) for other, order, term in placed[low:high] if other != position]
        if near:
            return anchor, min(near)[1]
    return None
