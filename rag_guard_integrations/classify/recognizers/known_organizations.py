"""Listed companies the organisation recogniser knows by name alone: a run of capitalised words
that is exactly one of them is an organisation with no cue around it (``Can't believe Amazon
lost my parcel``, ``Allianz confirms receipt``). The names come from a table of stock-index
members built by ``tools/gen_organizations.py`` (source and licence in ``data/NOTICE.md``).

A name written as one word counts only when nothing else reads the same: a word of the names
table (``Apple``, ``Ford``, ``Shell`` and ``Target`` are given names, family names, common
words or places), and a word the name rules read as something else (a title, a role, a
firm's trailing noun, a month, an office's initials) is left to the rules that read the
words around it. Names of several words count as written.

Written all in lower case, as chat and forms often are (``ordered from zalando``), a listed name
counts too when it is a whole word that is no word of the names table, or of several words
one of which is no common word (``deutsche bank``; not ``best buy``); never inside an address
(``jo@netflix.com``).

Example:
    >>> known = known_organizations()
    >>> "Allianz" in known, "Goldman Sachs" in known
    (True, True)
    >>> "Shell" in known, "Ford" in known, "Airbnb" in known
    (False, False, True)
    >>> text = "ordered from zalando, paid with deutsche bank; the best buy"
    >>> [text[s:e] for s, e in lower_case_listed(text)]
    ['zalando', 'deutsche bank']
"""

from __future__ import annotations

import re
from functools import lru_cache
from importlib import resources
from typing import Any

import re2

from rag_guard_integrations.classify.recognizers import name_words as words
from rag_guard_integrations.classify.recognizers.name_context import name_flags
from rag_guard_integrations.classify.recognizers.names_table import COMMON
from rag_guard_integrations.core.patterns import trie_pattern

_ADDRESS_AFTER = re.compile(r"@|\.[^\W\d_]")

# Words the name rules read as something other than a firm when written alone.
_OWN_MEANING = (
    words.HONORIFICS
    | words.GENERIC_ACRONYMS
    | words.JOB_TITLES
    | words.TITLED_JOBS
    | words.ROLE_TERMS
    | words.PERSON_ROLES
    | words.ORGANIZATION_NOUNS
    | words.LEGAL_FORMS
    | words.CALENDAR
    | words.NATIONALITIES
    | words.STREET_WORDS
)


def listed_names() -> list[str]:
    """Every name of the table, as written (about 1,800)."""
    raw = resources.files(__package__).joinpath("data/organizations.txt").read_text("utf-8")
    return [line for line in raw.splitlines() if line and not line.startswith("#")]


@lru_cache(maxsize=1)
def every_listed_name() -> frozenset[str]:
    """Every name of the table as written, those that read as something else alone too
    (``Apple``, ``Uber``): with a word around it that names a firm, it is the firm."""
    return frozenset(listed_names())


@lru_cache(maxsize=1)
def known_organizations() -> frozenset[str]:
    """The listed names that count as an organisation wherever a run is exactly one of them."""
    flags = name_flags()
    return frozenset(name for name in listed_names() if _unambiguous(name, flags))


def _unambiguous(name: str, flags: dict[str, int]) -> bool:
    if " " in name:
        return True
    key = name.lower()
    if len(key) < 3 or not any(c.isalpha() for c in key) or key in _OWN_MEANING:
        return False
    return key not in flags  # any flag: a name, a common word or a place


def lower_case_listed(text: str) -> tuple[tuple[int, int], ...]:
    """The spans of listed names written in lower case in ``text`` (see the module
    docstring), in text order: one RE2 scan of every such name, each checked where found."""
    search = _lower_case_finder().search
    found: list[tuple[int, int]] = []
    position = 0
    while (match := search(text, position)) is not None:
        start, end = match.span(1)
        position = end
        if _ADDRESS_AFTER.match(text, end) is None:
            found.append((start, end))
    return tuple(found)


@lru_cache(maxsize=1)
def _lower_case_finder() -> Any:
    """Every listed name that counts in lower case, as written and as a whole word, not
    inside an address: all but the names of common words only ("best buy", "general
    electric", which read as common words in lower case)."""
    flags = name_flags()
    names = {
        key
        for key in (name.lower() for name in known_organizations())
        if " " not in key or not all(flags.get(part, 0) & COMMON for part in key.split(" "))
    }
    options = re2.Options()
    options.log_errors = False
    return re2.compile(
        rf"(?:^|[^\pL\pN@./:_-])({trie_pattern(sorted(names))})(?:[^\pL\pN]|$)", options=options
    )
