"""Where a name can be at all: one case-sensitive RE2 scan of a text's UTF-8 for the signs every
name rule starts from (a given name before another capitalised word, an honorific, initials, a
legal form or organisation noun after a capitalised word, a context phrase next to one, an
e-mail address, an address or closing line, a speaker label, the word ``its``). A text
without any holds no name, and only the lines around a sign are read further. Every sign is a
short literal or a bounded pattern next to one: a gap of many characters between two parts
would multiply the states of the DFA the given names already make large.

The given names (about 90,000) are compiled in as one alternation factored by common prefixes
(a trie): RE2 compiles that in a few seconds, once per process, and then scans at the same
speed whatever the text holds, so a contract clause full of capitalised defined terms costs
one pass and no Python work.

Example:
    >>> [bytes(b"Card for Jane Roe")[s:e] for s, e in anchors(b"Card for Jane Roe")]
    [b' Jane ']
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

import re2

from rag_guard_integrations.classify.recognizers import name_words as words
from rag_guard_integrations.classify.recognizers.known_organizations import known_organizations
from rag_guard_integrations.classify.recognizers.name_context import name_flags
from rag_guard_integrations.classify.recognizers.names_table import COMMON, GIVEN
from rag_guard_integrations.core.patterns import span_finder, trie_pattern

if TYPE_CHECKING:
    from collections.abc import Callable

_LETTER = r"[\p{L}\p{M}]"
_BEFORE = r"(?:^|[^\p{L}\p{M}\p{N}'’])"  # no letter, digit or apostrophe right before
_CAP_WORD = r"\p{Lu}[\p{L}\p{M}'’.&-]*"
_SPACE = r"[ \t]{1,2}"


def _given_names() -> str:
    """Given names that are no common word, capitalised, each its part before a hyphen or an
    apostrophe (``Jean`` of ``Jean-Luc``), itself no common word."""
    table = name_flags()
    keys = set()
    for word, flags in table.items():
        if flags & GIVEN and not flags & COMMON:
            key = word.replace("’", "'").split("-")[0].split("'")[0]
            if len(key) > 1 and key.isalpha() and not table.get(key, 0) & COMMON:
                keys.add(key[0].upper() + key[1:])
    return trie_pattern(sorted(keys))


# Where an address line can start (name_blocks reads the line more closely): a house number,
# a post box or flat, a street name before its number.
_ADDRESS = (
    r"\d{1,5}[A-Za-z]?[ ,]|(?:P\.? ?O\.? ?Box|Postboks|Postfach|Apartado|Flat|Unit|Suite|Apt\.?|"
    r"Apartment|Floor|ul\.|rue|via|calle|Via|Calle|Rue) |(?:\p{Lu}[\p{L}\p{M}.'’-]* ){0,3}"
    r"\p{L}+ \d{1,5}[a-z]?(?:,|$)"
)


def _alternatives() -> list[str]:
    phrases = sorted(
        {
            *words.PERSON_BEFORE,
            *words.ORGANIZATION_BEFORE,
            *words.ORGANIZATION_ROLES,
            *words.ORGANIZATION_NEAR,
            *words.ORGANIZATION_SENDS,
        },
        key=len,
        reverse=True,
    )
    before = "|".join(re2.escape(p) for p in phrases)
    honorifics = "|".join(sorted(h.capitalize() for h in words.HONORIFICS))
    worded = "|".join(sorted(g.capitalize() for g in words.WORDED_GIVEN_NAMES))
    jobs = "|".join(sorted(r.capitalize() for r in words.TITLED_JOBS))  # as titles only
    person_roles = "|".join(sorted(words.PERSON_ROLES))
    legal = "|".join(sorted(words.WRITTEN_FORMS, key=len, reverse=True))
    nouns = "|".join(sorted({w.capitalize() for w in words.ORGANIZATION_NOUNS}))
    leading = "|".join(sorted({w.capitalize() for w in words.LEADING_NOUNS} | {"FC", "AFC"}))
    after = "|".join(
        re2.escape(p)
        for p in (
            *words.PERSON_AFTER,
            *words.ORGANIZATION_POSSESSIVE,
            *words.ORGANIZATION_FOLLOWED,
            *words.ORGANIZATION_BESIDE,
            *words.ORGANIZATION_DEEDS,
        )
    )
    described = f"{words.ORGANIZATION_AFTER.pattern}|{words.AGE_AFTER.pattern}"
    closings = "|".join(re2.escape(c) for c in words.CLOSINGS)
    work = "|".join(sorted(words.WORK_WORDS))
    titles = "|".join(sorted(words.JOB_TITLES))
    groups = "|".join(sorted(words.GROUP_WORDS))
    introducers = ":|such as|including|like|namely|include"
    return [
        # A given name, alone or before a family name.
        rf"{_BEFORE}(?:{_given_names()})(?:[^\p{{L}}\p{{M}}]|$)",
        # A listed company's name, as it is written.
        rf"{_BEFORE}(?:{trie_pattern(sorted(known_organizations()))})(?:[^\p{{L}}\p{{M}}\p{{N}}]|$)",
        # A given name that is a common word too, before another capitalised word.
        rf"{_BEFORE}(?:{worded}){_SPACE}\p{{Lu}}(?:\p{{Ll}}|['’]\p{{Lu}})",
        # An honorific, a job as a title, initials, a capitalised word around an initial.
        rf"{_BEFORE}(?i:{honorifics})\.?{_SPACE}\p{{Lu}}",
        rf"{_BEFORE}(?:{jobs}|(?i:{person_roles})){_SPACE}\p{{Lu}}",
        # Whoever a task in minutes goes to: "ACTION: Tendai to chase", "(2) Aisha to review".
        r"(?:^|\n|[:;)•*-] )\p{Lu}\p{Ll}+(?: \p{Lu}[\p{Ll}'’-]+){0,2} to [a-z]",
        r"(?:^|[^\p{L}.])\p{Lu}\.[ ]?(?:\p{Lu}\.[ ]?)*\p{Lu}\p{Ll}",
        r"\p{Lu}\p{Ll}+ \p{Lu}\.? \p{Lu}\p{Ll}",
        # A capitalised word before a legal form or an organisation noun, "&" between two.
        rf"{_CAP_WORD},?{_SPACE}(?:{legal}|{nouns})(?:[^\p{{L}}]|$)",
        rf"(?:{nouns}) of{_SPACE}\p{{Lu}}",
        rf"(?:^|[^\p{{L}}\p{{M}}])(?:{leading}){_SPACE}\p{{Lu}}",
        rf"\p{{Lu}}\p{{Ll}}+ and \p{{Lu}}\p{{Ll}}|\p{{Lu}}{_LETTER}* & \p{{Lu}}",
        r"\p{Lu}\p{Ll}+-\p{Lu}\p{Ll}",
        # A context phrase before or after a capitalised word; work "at" or "with" one.
        rf"(?i:\b(?:{before}))[ \t]*[:,?\"“(]?[ \t]*\p{{Lu}}",
        rf"(?i:\b(?:{work})s?\b(?: [\w'’-]+){{0,3}} (?:at|with|for)) \p{{Lu}}",
        *(
            rf"(?i:{found.pattern[:-1]}) \p{{Lu}}"
            for found in (
                words.ORGANIZATION_DEALS,
                words.ORGANIZATION_GOODS,
                words.ORGANIZATION_LEFT,
                words.ORGANIZATION_AT,
                words.ORGANIZATION_BETWEEN,
                words.ORGANIZATION_PAPERS,
                words.ORGANIZATION_AWARDED,
            )
        ),
        rf"(?i:{words.COPYRIGHT.pattern[:-1]}) \p{{Lu}}",
        rf"(?i:{words.ORGANIZATION_SWITCH.pattern[:-1]}) \p{{Lu}}",
        r"\bAt \p{Lu}[\p{L}\p{M}'’.&-]*, (?:we|our) ",
        rf"(?i:\b(?:{groups})\b[^.;!?\n]{{0,120}}?(?:{introducers})) ?\p{{Lu}}",
        rf"(?i:\b(?:{titles})s?(?:,| of)) \p{{Lu}}",
        rf"\p{{Lu}}{_LETTER}*(?:['’]s)?(?:{after})",
        # "its" referring back to an organisation; a literal, so the DFA stays small (the
        # names before it are read back from it, see proper_names).
        r" its ",
        rf"\p{{Lu}}{_LETTER}*(?i:{described})",
        rf"\p{{Lu}}{_LETTER}*, (?:\d{{1,5}}[a-z]?,? \p{{L}}|(?:Unit|Suite|Flat|Floor) \d)",
        # Layout: an e-mail or web address, a closing line, an address line, a speaker label.
        r"@[\p{L}\p{N}-]+\.|www\.",
        rf"(?im:^[ \t]*(?:{closings})[ \t]*[,!.]?[ \t]*$)",
        rf"(?m:^[ \t]*(?:{_ADDRESS}))",
        r"(?m:^[ \t>*-]*\p{Lu}\p{Ll}+:)",
        # A line of two or three capitalised words, a digit within the next two lines.
        r"(?m:^[ \t]*\p{Lu}\p{Ll}+(?: \p{Lu}[\p{L}'’-]+){1,2}[ \t]*\n[^\n]*(?:\n[^\n]*)?\d)",
    ]


@lru_cache(maxsize=1)
def _spans() -> Callable[[bytes, int], list[tuple[int, int]]]:
    options = re2.Options()
    options.max_mem = 256 << 20  # the trie's program and a DFA that does not thrash on it
    options.log_errors = False
    options.never_capture = True
    return span_finder(re2.compile("|".join(f"(?:{a})" for a in _alternatives()), options=options))


def anchors(data: bytes) -> list[tuple[int, int]]:
    """The byte spans of the signs in UTF-8 ``data``, in order and not overlapping (one RE2
    call when there is none)."""
    return _spans()(data, len(data))
