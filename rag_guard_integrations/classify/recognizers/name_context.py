"""What the words around a run of capitalised words say: the text before and after it, read
as lower case, and the checks on it that the name rules share; and the text a disguised name
shows. Phrases are matched with ``str.endswith``/``startswith`` on tuples (one C call) and a
word-boundary check only then."""

from __future__ import annotations

import re
import unicodedata
from typing import TYPE_CHECKING

from rag_guard_integrations.classify.recognizers import name_words as words
from rag_guard_integrations.classify.recognizers.names_table import COMMON, word_flags

if TYPE_CHECKING:
    from collections.abc import Sequence

Span = tuple[int, int]
Token = tuple[int, int, str]
WINDOW = 48
_CONNECTIVES = frozenset({"and", "of", "&", "the", "for"})
_TAIL_PUNCTUATION = " \t:,?\"'“(-"
_LIST_SEPARATOR = re.compile(r"(?:,| and|, and|,? &) $")
_GROUP_WINDOW = 160
# Zero-width and other format characters, and full-width ASCII forms.
DISGUISE = re.compile(
    "[\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff\uff01-\uff5e]"
)


class Context:
    """One text, its lower-case form and the names found in it so far."""

    __slots__ = (
        "_words",
        "flags",
        "lower",
        "organizations",
        "person_words",
        "persons",
        "text",
    )

    def __init__(self, text: str, lower: str) -> None:
        self.text = text
        self.lower = lower
        self._words: frozenset[str] | None = None
        self.flags = word_flags()
        self.persons: list[Span] = []
        self.organizations: list[Span] = []
        self.person_words: set[str] = set()

    @property
    def words(self) -> frozenset[str]:
        """The text's lower-case words (found once, at the first run that asks)."""
        if self._words is None:
            self._words = frozenset(words.TEXT_WORD.findall(self.lower))
        return self._words

    @property
    def cues(self) -> bool:
        """Whether the text holds any word a context phrase needs: without one, no run needs
        its surroundings read."""
        return not self.words.isdisjoint(words.CUE_WORDS)

    def flag(self, word: str) -> int:
        """The names-table flags of ``word`` (case and a trailing period ignored)."""
        return self.flags.get(word.rstrip(".").lower(), 0)

    def tail(self, start: int) -> str:
        """The lower-case text before ``start``, without the punctuation next to a name."""
        return self.lower[max(0, start - WINDOW) : start].rstrip(_TAIL_PUNCTUATION)

    def head(self, end: int) -> str:
        """The lower-case text after ``end``."""
        return self.lower[end : end + WINDOW]

    def person(self, tokens: Sequence[Token]) -> None:
        """Record ``tokens`` as one person's name."""
        self.persons.append((tokens[0][0], tokens[-1][1]))
        self.person_words.update(w.lower() for _, _, w in tokens if len(w) > 2)

    def listed_group(self, start: int) -> bool:
        """Whether a plural noun for organisations introduces a list right before ``start``."""
        if self.words.isdisjoint(words.GROUP_WORDS):
            return False  # most texts name no such group
        window = self.lower[max(0, start - _GROUP_WINDOW) : start]
        return words.ORGANIZATION_GROUPS.search(window) is not None

    def listed(self, start: int) -> bool:
        """Whether the run at ``start`` continues a list whose previous item is an
        organisation (``A Ltd, B and C``)."""
        if not self.organizations:
            return False
        separator = _LIST_SEPARATOR.search(self.text, max(0, start - 6), start)
        return separator is not None and any(e == separator.start() for _, e in self.organizations)


def ends_with(tail: str, phrases: tuple[str, ...]) -> bool:
    """Whether ``tail`` ends with one of ``phrases`` as whole words."""
    if not tail.endswith(phrases):
        return False
    return any(
        tail.endswith(p) and (len(tail) == len(p) or not tail[-len(p) - 1].isalnum())
        for p in phrases
    )


def starts_with(head: str, phrases: tuple[str, ...]) -> bool:
    """Whether ``head`` starts with one of ``phrases`` as whole words."""
    if not head.startswith(phrases):
        return False
    return any(
        head.startswith(p) and (len(head) == len(p) or not head[len(p)].isalnum()) for p in phrases
    )


def proper(context: Context, word: str) -> bool:
    """Whether a word can carry a name: not common, not a legal form, role or connective."""
    word = word.rstrip(".").lower().removesuffix("'s").removesuffix("’s")
    return not (
        context.flags.get(word, 0) & COMMON
        or word in words.LEGAL_FORMS
        or word in words.ORGANIZATION_NOUNS
        or word in words.ROLE_TERMS
        or word in _CONNECTIVES
    )


def nameable(context: Context, tokens: Sequence[Token], tail: str) -> bool:
    """Whether a run a context phrase points at can be a name: not all in capitals, and a proper
    word in it, or several capitalised words that are no defined role and follow no article
    (``Credit Karma``, not ``the Licensed Software``)."""
    if all(w.isupper() for _, _, w in tokens):
        return False  # an acronym or a ticker, not a name a phrase can vouch for
    if any(proper(context, w) for _, _, w in tokens):
        return True
    names = [w.rstrip(".").lower() for _, _, w in tokens]
    return (
        len(names) > 1
        and not any(w.isupper() for _, _, w in tokens)
        and not any(n in words.ROLE_TERMS or n in words.LEGAL_FORMS for n in names)
        and not ends_with(tail, tuple(words.DETERMINERS))
    )


def organization_context(context: Context, start: int, tail: str, head: str) -> bool:
    """Whether the words around a run say it names an organisation."""
    if not context.cues:
        return context.listed(start)
    return (
        ends_with(tail, words.ORGANIZATION_BEFORE)
        or (head[:1] in ", " and words.ORGANIZATION_AFTER.match(head) is not None)
        or head.startswith(words.ORGANIZATION_POSSESSIVE)
        or (ends_with(tail, ("at",)) and head.startswith(words.EMPLOYED_AS))
        or context.listed(start)
        or context.listed_group(start)
    )


def person_context(context: Context, tail: str, head: str) -> bool:
    """Whether the words around a run say it names a person (an age after it needs no word)."""
    if head[:2] in (" i", ", ") and words.AGE_AFTER.match(head) is not None:
        return True
    return context.cues and (
        ends_with(tail, words.PERSON_BEFORE) or starts_with(head, words.PERSON_AFTER)
    )


def at_sentence_start(text: str, start: int) -> bool:
    """Whether ``start`` opens a sentence or a line (quotes and list markers aside)."""
    index = start - 1
    while index >= 0 and text[index] in " \t\"'“‘(>*-•?":
        index -= 1
    return index < 0 or text[index] in ".!?:\n"


def undisguise(text: str) -> tuple[str, list[int]]:
    """``text`` without format characters, full-width forms as ASCII, and where each of its
    characters was in ``text``."""
    chars, offsets = [], []
    for index, char in enumerate(text):
        if unicodedata.category(char) == "Cf":
            continue
        point = ord(char)
        chars.append(chr(point - 0xFEE0) if 0xFF01 <= point <= 0xFF5E else char)
        offsets.append(index)
    return "".join(chars), offsets
