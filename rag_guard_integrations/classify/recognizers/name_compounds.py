"""Firms' invented one-word names: two common English words run together (``Solarlist``,
``Hollowfield``, ``Scoutbeam``) or a word ending as software and online firms name themselves
(``Trellisoft``, ``Zenlytics``, ``Quillstack``, ``Kestrelink``). A capitalised word that no
dictionary and no names table holds, yet reads so, is an invented name, and one written on its
own inside a sentence (no name word, title or house number before it) is a firm's or a
brand's; a person's invented-looking family name comes after a given name or a title. Written
as a common noun (after ``the`` or ``each``, in the plural, as a gerund: ``the Runbook``,
``Webhooks``, ``Offboarding``) or opening a sentence or a line (``Healthcheck endpoint cost
us``, ``Nodepool costs``), it is technical or office writing's capitalised jargon as often,
and no name.

Dictionary words that read so stay words (``workflow``, ``deerskin``, ``magnify``):
``data/compound_words.txt.gz`` holds them, built by ``tools/gen_compound_words.py`` from
``spacy-lookups-data``'s English word frequencies (source and licence in ``data/NOTICE.md``).
Camel case (``PaymentService``) is left alone: code names its classes so.

Example:
    >>> text = "We heard from Hollowfield; Mr Tallybrook and the workflow team agreed."
    >>> [text[s:e] for s, e in invented_names(text)]
    ['Hollowfield']
"""

from __future__ import annotations

import gzip
import re
from functools import lru_cache
from importlib import resources

from rag_guard_integrations.classify.recognizers import name_words as words
from rag_guard_integrations.classify.recognizers.name_context import at_sentence_start, name_flags
from rag_guard_integrations.classify.recognizers.names_table import COMMON, GIVEN

MIN_PART = 3
"""The fewest letters of each of the two words."""
MIN_LETTERS = 6
"""The fewest letters of a word read as an invented name."""
# Capitalised words, maybe pieces of longer ones: the cheap scan every text gets.
_WORDS = re.compile(rf"[A-Z][a-z]{{{MIN_LETTERS - 1},}}")
# A capitalised word in lower case after its first letter, maybe possessive, that no
# capitalised word follows (it would be a piece of a longer name).
_CANDIDATE = re.compile(rf"(?<![\w'’.@/&-]){_WORDS.pattern}(?=(?:['’]s)?(?![\w'’@&-])(?! [A-Z]))")
# How software and online firms end their invented names; no person's name ends so.
# Not the endings that make a sector's or a trade's noun too ("Fintech", "Geodata", "Homeware",
# "Groundworks", "Telemetrics", "Fediverse").
BRAND_ENDINGS = (
    "soft", "hub", "labs", "gov", "corp", "lytics", "ify", "matics", "tronics", "tronix",
    "stack", "cloud", "pay", "byte", "link",
)  # fmt: skip
_HOUSE_NUMBER = re.compile(r"\d{1,5}[A-Za-z]?,?")
# Words that open a sentence before a name, which the names table may hold as names too.
_OPENERS = (
    words.DETERMINERS | words.PLACE_PREPOSITIONS | words.QUESTION_WORDS | words.CLAUSE_OPENERS
)
# An article or a determiner (a common noun follows), or where a place follows: a village's
# name reads as invented as often as a firm's ("grew up in Lowfield").
_NOT_BEFORE_A_FIRM = words.DETERMINERS | frozenset(
    {"each", "every", "any", "no", "some", "in", "near", "outside", "around", "across"}
)
_SENTENCE_ENDS = (".", "!", "?", ":", ";", ",", '"', "”")


def reads_as_two(key: str, flags: dict[str, int]) -> bool:
    """Whether lower-case ``key`` is two common words of ``flags`` run together, each of
    :data:`MIN_PART` letters or more, the second no derivational ending.

    Example:
        >>> flags = name_flags()
        >>> reads_as_two("scoutbeam", flags), reads_as_two("nautilytics", flags)
        (True, False)
    """
    return any(
        flags.get(key[:cut], 0) & COMMON
        and flags.get(key[cut:], 0) & COMMON
        and key[cut:] not in words.DERIVED_ENDINGS
        for cut in range(MIN_PART, len(key) - MIN_PART + 1)
    )


def looks_invented(key: str, flags: dict[str, int]) -> bool:
    """Whether lower-case ``key`` reads as an invented name: :func:`reads_as_two`, or three
    letters or more before one of :data:`BRAND_ENDINGS`.

    Example:
        >>> looks_invented("zenlytics", name_flags()), looks_invented("lindqvist", name_flags())
        (True, False)
    """
    return reads_as_two(key, flags) or any(
        key.endswith(ending) and len(key) - len(ending) >= MIN_PART for ending in BRAND_ENDINGS
    )


def invented_names(text: str) -> tuple[tuple[int, int], ...]:
    """The spans of the invented firm names of ``text`` (see the module docstring), in text
    order."""
    flags = name_flags()
    known = compound_words()
    # Each distinct word is looked up once; most texts have none left after that, and only
    # the rest are looked for as whole words.
    invented = {
        word
        for word in set(_WORDS.findall(text))
        if (key := word.lower()) not in flags and key not in known and looks_invented(key, flags)
    }
    if not invented:
        return ()
    return tuple(
        match.span()
        for match in _CANDIDATE.finditer(text)
        if match.group() in invented
        and not at_sentence_start(text, match.start())
        and not _in_a_run(text, match.start(), flags)
        and not _a_common_noun(text, match.start(), match.group())
    )


def _a_common_noun(text: str, start: int, word: str) -> bool:
    """Whether the word at ``start`` is used as a common noun, or as a place's name: after an
    article or another determiner (``the Runbook``, ``each Subtask``), in the plural
    (``Webhooks``), as a gerund (``Offboarding``), or after ``in`` or ``near``. Technical and
    office writing capitalises its compound nouns so; a firm's name is rarely written so."""
    if word.endswith("ing") or (word.endswith("s") and not word.endswith(BRAND_ENDINGS)):
        return True  # "Zenlytics" and "Kestrelabs" end so as names
    previous = text[max(0, start - 12) : start].rstrip().rpartition(" ")[2].lower()
    return previous.lstrip("(\"“'‘") in _NOT_BEFORE_A_FIRM


def _in_a_run(text: str, start: int, flags: dict[str, int]) -> bool:
    """Whether a name word, an honorific or a house number stands right before ``start``: the
    word then ends a longer name or names a street (``Jane Tallybrook``, ``Rose Tallybrook``,
    ``Mr. Tallybrook``, ``12 Hollowfield``). A capitalised common word there that no given
    name is, or a function word, opens the sentence (``The``, ``Did``, ``Brilliant``); a
    sentence may end there."""
    before = text[max(0, start - 24) : start]
    if not before.endswith(" "):
        return False
    previous = before.rstrip().rpartition(" ")[2].lstrip("(\"“'‘")
    key = previous.rstrip(".").lower()
    if key in words.HONORIFICS or _HOUSE_NUMBER.fullmatch(previous):
        return True  # a person's title, or a street's house number ("12 Redwater")
    if not previous[:1].isupper() or previous.endswith(_SENTENCE_ENDS):
        return False
    if key in _OPENERS:
        return False
    found = flags.get(key, 0)
    return bool(found & GIVEN or not found & COMMON)


@lru_cache(maxsize=1)
def compound_words() -> frozenset[str]:
    """The dictionary words that :func:`looks_invented` reads as invented (about 31,000, lower
    case)."""
    raw = resources.files(__package__).joinpath("data/compound_words.txt.gz").read_bytes()
    lines = gzip.decompress(raw).decode("utf-8").split("\n")
    return frozenset(line for line in lines[1:] if line)
