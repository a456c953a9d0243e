"""Listed companies the organisation recogniser knows by name alone: a run of capitalised words
that is exactly one of them is an organisation with no cue around it (``Can't believe Amazon
lost my parcel``, ``Allianz confirms receipt``). The names come from a table of stock-index
members built by ``tools/gen_organizations.py`` (source and licence in ``data/NOTICE.md``).

A name written as one word counts only when nothing else reads the same: a word of the names
table (``Apple``, ``Ford``, ``Shell`` and ``Target`` are given names, family names, common
words or places), and a word the name rules read as something else (a title, a role, a
firm's trailing noun, a month, an office's initials) is left to the rules that read the
words around it. Names of several words count as written.

Example:
    >>> known = known_organizations()
    >>> "Allianz" in known, "Goldman Sachs" in known
    (True, True)
    >>> "Shell" in known, "Ford" in known, "Airbnb" in known
    (False, False, True)
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources

from rag_guard_integrations.classify.recognizers import name_words as words
from rag_guard_integrations.classify.recognizers.name_context import name_flags

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
