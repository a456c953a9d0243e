"""Personal and organisation names in text, found without a model: runs of capitalised words,
judged by the names table (given and family names, common words, places), the words around
them (honorifics, legal forms, context phrases, the domain of an e-mail address) and the
layout of letter heads, signature blocks and address lines.

Precision comes first. Capitalised words are everywhere (sentence starts, headings, product
names, a contract's defined terms such as "the Company" or "Licensee"), so a name needs two
signs: a given name followed by a family name or an initial, or a single name word next to a
context phrase, an honorific or a legal form. Common English words need more than that, and
all-capital words (acronyms, headings) count only after an honorific.

One pass: a single RE2 scan (:mod:`.name_anchors`) finds where a name can be at all; a text
without such a place costs that scan and no more, and otherwise only the lines around each
place are read, so the work grows with the text's length and its names, not their product.

Example:
    >>> found = find_names("Card on file for customer Jane Roe, of Acme Analytics Ltd.")
    >>> [found.text[s:e] for s, e in found.persons]
    ['Jane Roe']
    >>> [found.text[s:e] for s, e in found.organizations]
    ['Acme Analytics Ltd.']
"""

from __future__ import annotations

import re
from bisect import insort
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rag_guard_integrations.classify.recognizers import name_words as words
from rag_guard_integrations.classify.recognizers.known_organizations import lower_case_listed
from rag_guard_integrations.classify.recognizers.name_anchors import anchors
from rag_guard_integrations.classify.recognizers.name_blocks import (
    block_names,
    caseless_firms,
    caseless_names,
    caseless_organizations,
)
from rag_guard_integrations.classify.recognizers.name_compounds import invented_names
from rag_guard_integrations.classify.recognizers.name_context import (
    UPPER,
    Context,
    Span,
    Token,
    at_sentence_start,
    camel_case,
    overlaps,
)
from rag_guard_integrations.classify.recognizers.name_disguise import (
    plain_readings,
    record_form,
)
from rag_guard_integrations.classify.recognizers.name_rules import judge
from rag_guard_integrations.classify.recognizers.name_scripts import labelled_names
from rag_guard_integrations.classify.recognizers.name_tables import table_names
from rag_guard_integrations.classify.recognizers.names_table import COMMON, NAME, table_flags
from rag_guard_integrations.core.patterns import char_spans, union_spans
from rag_guard_integrations.core.references import span_end

_MENTIONED = 32
_DOMAIN_REACH = 160
_DOMAIN = re.compile(r"(?:@|\bwww\.)(?:[\w-]+\.)*?([\w-]+)\.[a-z]{2,6}\b", re.IGNORECASE)
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

_BACK, _AHEAD = 64, 48
"""How far before an anchor a run of capitalised words touching it may start, and how far
after it a run is still read (the names a context phrase introduces, a list's next items)."""
_JOINERS = "|".join(sorted(words.PARTICLES | {"and", "of", "&"}))


def _run_pattern(upper: str, letter: str) -> re.Pattern[str]:
    """Runs of capitalised words (capitals from ``upper``, each word maybe ending in a
    period, or letters each followed by a period: initials, dotted legal forms), joined by one
    or two spaces, name particles and ``and``/``of``/``&``."""
    dotted = rf"[{upper}]\.(?:{letter}\.)+"  # "S.p.A.", "B.V.", "J.R."
    word = rf"(?:{dotted}|[{upper}](?:{letter}|['’-](?={letter}))*\.?)"
    return re.compile(rf"{word}(?: {{1,2}}(?:(?:{_JOINERS}) )*{word})*")


# Plain ASCII text (the common case) is scanned with a pattern of ASCII letters: a class of a
# thousand Unicode capitals, and one of Unicode letters, cost several times more a character.
_ASCII_RUN = _run_pattern("A-Z", "[a-zA-Z]")
_RUN = _run_pattern(UPPER, r"[^\W\d_]")
_ABBREVIATIONS = words.HONORIFICS | words.LEGAL_FORMS | {"jr", "st"}
_DOMAIN_AFTER = re.compile(r"(?<=\.)[a-z0-9-]{2,}\b(?!\.[A-Z])")
# The endings of one-word street names ("Strandgata"), as plain suffixes: one C call a word.
_STREET_ENDS = tuple(e for e in words.STREET_ENDINGS.split("|") if e.isalpha())
_HOUSE_NUMBER = re.compile(r",? \d{1,5}[a-z]?\b")
_ORG_ENDS = words.ORGANIZATION_NOUNS | words.LEGAL_FORMS
_NEVER_ALONE = words.ROLE_TERMS | words.LEGAL_FORMS | words.ORGANIZATION_NOUNS | words.CALENDAR


@dataclass(frozen=True, slots=True)
class Names:
    """The personal and organisation names of ``text``: character spans, in text order."""

    text: str
    persons: tuple[Span, ...]
    organizations: tuple[Span, ...]


def find_names(text: str) -> Names:
    """Every personal and organisation name of ``text`` (see the module docstring). Invisible
    characters, restyled letters, combining marks and HTML character references do not hide a
    name: each :func:`~.name_disguise.plain_readings` of the text is read too, and the spans
    still index ``text``. So is its :func:`~.name_disguise.record_form` (a name in capitals or
    joined into a field's value), beside the text as written. A name in a script without
    capitals counts after a label that names a person (:mod:`.name_scripts`), a table's
    cell under a person's or an organisation's column (:mod:`.name_tables`), a listed
    company written in lower case (:func:`.known_organizations.lower_case_listed`), and a
    firm's invented one-word name (:func:`.name_compounds.invented_names`)."""
    found = _find_names(text)
    labelled = labelled_names(text)
    tabled, firms = table_names(text)
    listed = lower_case_listed(text)
    invented = invented_names(text)
    if not (labelled or tabled or firms or listed or invented):
        return found
    persons = list(union_spans({*found.persons, *labelled, *tabled}))
    # A person the rules found keeps a word the invented-name rule reads as a firm's.
    invented = tuple(span for span in invented if not overlaps(persons, span))
    organizations = tuple(union_spans({*found.organizations, *firms, *listed, *invented}))
    return Names(text, *_apart(persons, list(organizations)))


def _find_names(text: str) -> Names:
    """The names the capitalised runs, the readings and the record forms give."""
    form = record_form(text)
    if text.isascii() and "&" not in text and form is None:
        return _find(text)
    readings = plain_readings(text)
    if not readings and form is None:
        return _find(text)
    # The text as written is read too: a reading without marks can break a name whose marks
    # it folds only in part ("Đặng" read as "Dặng").
    same = list(range(len(text)))
    readings = [(text, same), *([] if form is None else [(form, same)]), *readings]
    persons: set[Span] = set()
    organizations: set[Span] = set()
    for plain, offsets in readings:
        found = _find(plain)
        persons.update((offsets[s], span_end(text, offsets[e - 1] + 1)) for s, e in found.persons)
        organizations.update(
            (offsets[s], span_end(text, offsets[e - 1] + 1)) for s, e in found.organizations
        )
    return Names(text, tuple(union_spans(persons)), tuple(union_spans(organizations)))


def _find(text: str) -> Names:
    data = text.encode()
    spans = anchors(data)
    if not spans or text.islower():
        if not text.islower():
            return Names(text, (), ())
        persons = caseless_names(text)
        organizations = caseless_organizations(text, persons) if persons else ()
        return Names(text, persons, tuple(union_spans({*organizations, *caseless_firms(text)})))
    if len(data) != len(text):
        spans = char_spans(spans, data)
    context = Context(text)
    scan = (_ASCII_RUN if len(data) == len(text) else _RUN).finditer
    judged = -1  # where the runs judged so far end
    done: list[Span] = []  # their spans, sorted
    for anchor, end in spans:
        if end <= judged:
            continue  # an anchor inside a run already judged
        back = text.startswith(" its ", anchor)  # the clause before "its" names what it is
        start = anchor - _BACK if back else anchor
        floor = max(
            text.rfind("\n", max(0, start - _BACK), start) + 1,
            start - _BACK,
            -1 if back else judged,
            0,
        )
        if floor > 0 and text[floor - 1] not in " \n":
            floor = text.find(" ", floor, start) + 1 or start  # start between words
        for run in scan(text, floor):
            if run.start() > end + _AHEAD:
                break
            span = run.span()
            if run.end() >= start - 1 and not overlaps(done, span):
                judged = max(judged, run.end())
                insort(done, span)
                _judge_run(context, run)
    if "@" in text or "www." in text:
        _domain_names(context, scan)
    if "\n" in text:
        block_names(context, spans)
    if not context.persons:
        return Names(text, (), tuple(sorted(set(context.organizations))))
    _mentions(context)
    return Names(text, *_apart(context.persons, context.organizations))


def _apart(persons: list[Span], organizations: list[Span]) -> tuple[tuple[Span, ...], ...]:
    """Both lists sorted and without repeats; a person inside an organisation's name is no
    person (``Maria Lopez Consulting``)."""
    orgs = sorted(set(organizations))
    return tuple(p for p in sorted(set(persons)) if not overlaps(orgs, p)), tuple(orgs)


def _domain_names(context: Context, scan: Callable[..., Iterator[re.Match[str]]]) -> None:
    """A run that spells the domain of a mail or web address next to it is the organisation
    that named the domain after itself (``Kestrel Bio`` beside ``@kestrelbio.com``)."""
    text = context.text
    for domain in _DOMAIN.finditer(text):
        label = domain.group(1).lower().replace("-", "")
        if label in words.FREE_MAIL or len(label) < 3:
            continue
        low, high = max(0, domain.start() - _DOMAIN_REACH), domain.end() + _DOMAIN_REACH
        for run in scan(text, low):
            if run.start() > high:
                break
            span = (run.start(), run.end())
            if (
                not _addressing(text, run)
                and not context.taken(span)
                and context.spells(run.group(), label)
            ):
                context.organization(span)


def _mentions(context: Context) -> None:
    """A word of a person's name found in the text, written alone elsewhere in it, is that
    person too (``Agnieszka Nowak ... praised Nowak``; ``Tom Bell ... starring Bell``, but a
    common word not at a sentence's start). At most :data:`_MENTIONED` words are looked for,
    each in one pass, so the work stays linear in the text's length."""
    text = context.text
    found = {t[2]: bool(t[4] & COMMON) for t in context.person_tokens if len(t[2]) > 2}
    for word in sorted(found)[:_MENTIONED]:
        common, position = found[word], text.find(word)
        while position >= 0:
            end = position + len(word)
            if (
                not (position and text[position - 1].isalnum())
                and not text[end : end + 1].isalnum()
                and not context.taken((position, end))
                # A common word is capitalised at a sentence's start whoever it names.
                and not (common and at_sentence_start(text, position))
            ):
                context.person_span((position, end))
            position = text.find(word, end)


def _judge_run(context: Context, run: re.Match[str]) -> None:
    value = run.group()
    if value.isupper() and value.count(" ") > 2:
        return  # a heading or a clause in capitals: "LIMITATION OF LIABILITY. IN NO EVENT..."
    if _addressing(context.text, run):
        return
    for piece in _pieces(context, run.start(), value):
        judge(context, piece)


def _addressing(text: str, run: re.Match[str]) -> bool:
    """Whether the run is part of a domain or a mail address (``Brightwave.com``,
    ``www.Brightwave``): the address, not a name written in the text."""
    start, value = run.start(), run.group()
    if start and text[start - 1] in "@.":
        return True
    return " " not in value and len(value) > 3 and _DOMAIN_AFTER.match(text, run.end()) is not None


def _pieces(context: Context, start: int, value: str) -> list[list[Token]]:
    """The run's tokens, cut after a sentence's last word (a period after anything but an
    initial or an abbreviation), after a possessive (``Nowak's``, the ``'s`` left out), at
    street words (``Barbara Yudina Apt.`` is a name, then an address, ``Strandgata 22`` a
    street), at ``and`` after an organisation noun or legal form (two firms), and at ``of``
    but after an organisation noun (``Shares of X``, ``chairman of X``;
    ``University of X`` is one name). A possessive before an organisation noun stays
    (``St. Mary's Hospital``). A single word that is a role, a legal form or a common word
    gives no piece at all."""
    flags = context.flags
    pieces: list[list[Token]] = []
    piece: list[Token] = []
    parts = value.split(" ")
    position = start
    for index, word in enumerate(parts):
        begin, position = position, position + len(word) + 1
        if not word:
            continue
        key = word.rstrip(".").lower()
        if "." in key and key.replace(".", "") in words.LEGAL_FORMS:
            key = key.replace(".", "")  # "S.p.A." is the legal form "spa"
        following = parts[index + 1].rstrip(".").lower() if index + 1 < len(parts) else ""
        if (key in words.STREET_WORDS and not (key == "st" and following)) or (
            not following and _street(key, context.text, begin + len(word))
        ):
            pieces.append(piece)
            piece = []
        elif key == "and" and piece and piece[-1][3] in _ORG_ENDS:
            pieces.append(piece)  # "Alder Foods and Brooks Dairy": two firms
            piece = []
        elif key == "of" and piece and piece[-1][3] not in _ORG_ENDS:
            pieces.append(piece)  # "Shares of X", "chairman of X": only "University of X" is one
            piece = []
        elif word.endswith(("'s", "’s")) and len(word) > 3 and following not in _ORG_ENDS:
            key = key[:-2]
            piece.append((begin, begin + len(word) - 2, word[:-2], key, table_flags(flags, key)))
            pieces.append(piece)  # a possessive ends the name
            piece = []
        elif "." in key:  # initials written together, "J.R." as "J. R."
            for at in range(0, len(word) - 1, 2):
                initial = word[at].lower()
                piece.append(
                    (begin + at, begin + at + 2, word[at : at + 2], initial, flags.get(initial, 0))
                )
        elif word[-1] == ".":
            token, ends = _before_period(flags, begin, word, key, following)
            piece.append(token)
            if ends:
                pieces.append(piece)
                piece = []
        else:
            piece.append((begin, begin + len(word), word, key, table_flags(flags, key)))
    pieces.append(piece)
    return [p for p in pieces if p and not (len(p) == 1 and _alone(context.text, p[0]))]


def _before_period(
    flags: dict[str, int], begin: int, word: str, key: str, following: str
) -> tuple[Token, bool]:
    """The token of a word written with a period, and whether the run's name ends with it: an
    initial is no word (``K.`` is not ``k``); a period after any other word but an
    abbreviation ends the sentence, and one after a legal form ends the firm's name unless
    another legal form or an organisation noun follows (``Storage Ltd. Previous agent``, but
    ``Acme Co. Ltd.``)."""
    if len(key) == 1 and key.isalpha():
        return (begin, begin + len(word), word, key, 0), False
    if len(key) > 1 and key not in _ABBREVIATIONS:
        return (begin, begin + len(word) - 1, word[:-1], key, table_flags(flags, key)), True
    ends = key in words.LEGAL_FORMS and following not in _ORG_ENDS
    return (begin, begin + len(word), word, key, table_flags(flags, key)), ends


def _street(key: str, text: str, end: int) -> bool:
    """Whether a word that ends a run at ``end`` is a street's name written as one word: two
    letters or more before a street's ending, then its house number (``Strandgata 22``). A
    name with such an ending is no street (``Lottie Smith``, ``the Wellspring Foundation``)."""
    return _HOUSE_NUMBER.match(text, end) is not None and any(
        key.endswith(e) and len(key) >= len(e) + 2 for e in _STREET_ENDS
    )


def _alone(text: str, token: Token) -> bool:
    """A single word that names nobody alone: a role, a legal form, a day, a common word but
    one a brand could be (written in camel case, or capitalised inside a sentence: ``works at
    Google``)."""
    key, flags = token[3], token[4]
    if key in _NEVER_ALONE:
        return True
    if not flags & COMMON or flags & NAME:
        return False
    word = token[2]
    if not word.isalpha() or len(word) < 3:
        return True
    if camel_case(word):
        return False
    return not word[1:].islower() or at_sentence_start(text, token[0])
