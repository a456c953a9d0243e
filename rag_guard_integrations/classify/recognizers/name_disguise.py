"""The plain readings of a text for the names rules: what a reader sees where characters hide
or restyle a name, each with where its characters were in the text.

Removed: format characters (zero-width spaces and joiners, soft hyphens, bidi controls, tag
characters), variation selectors and the combining grapheme joiner. Read as what they show:
full-width and other compatibility forms (mathematical bold and script letters, circled
letters: NFKC of each character), blank characters (the Braille blank, Hangul fillers) as a
space (and, in one more reading, as nothing), other spaces (no-break, thin) as a space, HTML
character references as their characters. Combining marks are kept (a name's accents
written decomposed), and another reading drops them, so that ``J`` + a dot above + ``ane``
reads as ``Jane`` too. A word that mixes Latin letters with look-alikes of other scripts
(``Jаne`` with a Cyrillic ``а``) is read with the look-alikes as the Latin letters they show,
in their case; a word wholly in another script (``Иван``) is left as it is. Plain text
(ASCII, or letters that fold to themselves) has no other reading and costs one scan.

Example:
    >>> [plain for plain, _ in plain_readings("J\\u200bane Roe")]
    ['Jane Roe']
    >>> plain_readings("Ja\\u0307ne Roe")[-1][0]
    'Jane Roe'
    >>> plain_readings("Björk Roe")
    []
    >>> plain_readings("J\u0430ne Roe")[0][0]
    'Jane Roe'
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from typing import TYPE_CHECKING

from rag_guard_integrations.classify.recognizers.name_words import WORDED_GIVEN_NAMES
from rag_guard_integrations.classify.recognizers.names_table import COMMON, NAME, word_flags
from rag_guard_integrations.core.normalize import confusable_fold
from rag_guard_integrations.core.references import unescaped

if TYPE_CHECKING:
    from collections.abc import Callable

_BLANKS = frozenset("\u2800\u115f\u1160\u3164\uffa0")
_INVISIBLE_MARKS = frozenset("\u034f") | frozenset(map(chr, range(0xFE00, 0xFE10)))
_MARKS = frozenset({"Mn", "Me"})
_WORD = re.compile(r"[^\W\d_]+")
# Two or more words in capitals, and a field's join between two words (Jane_Roe, Jane+Roe).
_CAPITALS = re.compile(r"\b[A-Z][A-Z'’-]+(?: [A-Z][A-Z'’-]+)+\b")
_JOIN = re.compile(r"(?<=[a-z])[_+](?=[A-Z][a-z])")
Reading = tuple[str, list[int]]


def plain_readings(text: str) -> list[Reading]:
    """The readings of ``text`` other than itself (none when it reads as written)."""
    decoded = unescaped(text)
    source, at = decoded if decoded is not None else (text, None)

    def read(mapped: Callable[[str], str], over: str, where: list[int] | None) -> Reading:
        plain, offsets = _each(over, mapped)
        return plain, offsets if where is None else [where[i] for i in offsets]

    readings: list[Reading] = []
    base, base_at = source, at
    if not source.isascii() and any(_shown(char) != char for char in set(source)):
        base, base_at = read(_shown, source, at)
    if base_at is not None:
        readings.append((base, base_at))
    if _BLANKS.intersection(source):  # a blank inside a word: the word read without it too
        readings.append(read(_closed, source, at))
    if not base.isascii() and any(unicodedata.category(c) in _MARKS for c in set(base)):
        readings.append(read(_bare, base, base_at))
    if not base.isascii() and (latin := _latin_words(base)) != base:
        readings.append((latin, base_at if base_at is not None else list(range(len(base)))))
    return readings


def _latin_words(text: str) -> str:
    """``text`` with the look-alike letters of each word that mixes them with Latin ones read
    as those Latin letters, keeping their case; one character for one, so offsets hold."""

    def latin(word: re.Match[str]) -> str:
        letters = word.group()
        if letters.isascii() or not any(c.isascii() for c in letters):
            return letters
        return "".join(_latin(c) for c in letters)

    return _WORD.sub(latin, text)


@lru_cache(maxsize=4096)
def _latin(char: str) -> str:
    """The Latin letter a look-alike shows (in its case), else the character itself."""
    if char.isascii():
        return char
    folded = confusable_fold(char)
    if len(folded) != 1 or not (folded.isascii() and folded.isalpha()):
        return char
    return folded.upper() if char.isupper() else folded


def _each(text: str, mapped: Callable[[str], str]) -> Reading:
    """``text`` with each character beyond ASCII as ``mapped`` reads it, and offsets."""
    chars: list[str] = []
    offsets: list[int] = []
    for index, char in enumerate(text):
        shown = char if char.isascii() else mapped(char)
        chars.append(shown)
        offsets.extend([index] * len(shown))
    return "".join(chars), offsets


@lru_cache(maxsize=4096)
def _shown(char: str) -> str:
    """What a reader sees of one character: nothing, a space, its compatibility form, itself."""
    if char.isascii():
        return char
    if unicodedata.category(char) == "Cf" or char in _INVISIBLE_MARKS:
        return ""
    if char in _BLANKS or unicodedata.category(char) == "Zs":
        return " "  # a blank, a no-break or thin space: a word break as the reader sees it
    folded = unicodedata.normalize("NFKC", char)
    return folded if folded != char and folded.isalnum() else char


def _closed(char: str) -> str:
    """:func:`_shown`, except that a blank character is nothing."""
    return "" if char in _BLANKS else _shown(char)


@lru_cache(maxsize=4096)
def _bare(char: str) -> str:
    """One character without its combining marks (a lone mark: nothing)."""
    if unicodedata.category(char) in _MARKS:
        return ""
    decomposed = unicodedata.normalize("NFD", char)
    return "".join(c for c in decomposed if unicodedata.category(c) not in _MARKS) or char


def record_form(text: str) -> str | None:
    """``text`` as a reader sees a name that a record writes in capitals (``JANE ROE``, on a
    card or a form) or joined into a field's value (``cust_name=Jane_Roe``, ``name=Jane+Roe``):
    the name words title-cased, the joins as spaces, one character for one; None when the
    text has neither.

    Example:
        >>> record_form("Name on card: JANE ROE"), record_form("TERMS AND CONDITIONS")
        ('Name on card: Jane Roe', None)
        >>> record_form("cust_name=Jane_Roe")
        'cust_name=Jane Roe'
    """
    read = _JOIN.sub(" ", text) if "_" in text or "+" in text else text
    if _CAPITALS.search(read):
        read = _CAPITALS.sub(_titled_names, read)
    return None if read == text else read


def _titled_names(run: re.Match[str]) -> str:
    """A run of capitalised words with its name words title-cased, when two or more of them
    are names of three letters or more and no common word, or a given name that is a word too
    before one (``JANE ROE``, ``DAWN HARTLEY``; not ``IBM SSN``, a heading or a postal code
    such as ``APO AP``)."""
    table = word_flags()
    written = run.group().split(" ")
    flags = [table.get(w.lower(), 0) if len(w) > 2 else 0 for w in written]
    names = [bool(f & NAME and not f & COMMON) for f in flags]
    # A given name that is a word too, before a family name: "DAWN HARTLEY".
    for index, word in enumerate(written[:-1]):
        if names[index + 1] and word.lower() in WORDED_GIVEN_NAMES:
            names[index] = True
    if sum(names) < 2:
        return run.group()
    return " ".join(w.title() if name else w for w, name in zip(written, names, strict=True))
