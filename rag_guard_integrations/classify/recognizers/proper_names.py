"""Personal and organisation names in text, found without a model: runs of capitalised words,
judged by the names table (given and family names, common words), the words around them
(honorifics, legal forms, context phrases) and the layout of address and signature blocks.

Precision comes first. Capitalised words are everywhere (sentence starts, headings, product
names, a contract's defined terms such as "the Company" or "Licensee"), so a name needs two
signs: a given name followed by a family name or an initial, or a single name word next to a
context phrase, an honorific or a legal form. Common English words need more than that, and
all-capital words (acronyms, headings) count only after an honorific.

Example:
    >>> found = find_names("Card on file for customer Jane Roe, of Acme Analytics Ltd.")
    >>> [found.text[s:e] for s, e in found.persons]
    ['Jane Roe']
    >>> [found.text[s:e] for s, e in found.organizations]
    ['Acme Analytics Ltd.']
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rag_guard_integrations.classify.recognizers import name_words as words
from rag_guard_integrations.classify.recognizers.name_blocks import block_names
from rag_guard_integrations.classify.recognizers.name_context import (
    DISGUISE,
    Context,
    Span,
    Token,
    at_sentence_start,
    nameable,
    organization_context,
    person_context,
    proper,
    undisguise,
)
from rag_guard_integrations.classify.recognizers.names_table import (
    COMMON,
    FAMILY,
    GIVEN,
    NAME,
)


def _upper_class() -> str:
    """A character class of every capital (and title-case) letter of the BMP, as ranges."""
    points = [p for p in range(0x10000) if chr(p).isupper() or chr(p).istitle()]
    ranges, start = [], points[0]
    for previous, point in zip(points, [*points[1:], -1], strict=True):
        if point != previous + 1:
            low, high = re.escape(chr(start)), re.escape(chr(previous))
            ranges.append(low if start == previous else f"{low}-{high}")
            start = point
    return "".join(ranges)


def _word(upper: str) -> str:
    return rf"[{upper}](?:[^\W\d_]|['’-](?=[^\W\d_]))*"


def _run_pattern(upper: str) -> re.Pattern[str]:
    """Runs of capitalised words (capitals from ``upper``, each word maybe ending in a period),
    joined by single spaces, name particles and ``and``/``of``/``&``. The pattern starts with
    the class of capitals, so the engine skips to the next capital in C."""
    word = rf"{_word(upper)}\.?"
    return re.compile(rf"{word}(?: {{1,2}}(?:(?:{_joiners()}) )*{word})*")


def _joiners() -> str:
    return "|".join(sorted(words.PARTICLES | {"and", "of", "&"}))


_UPPER = _upper_class()
# Plain ASCII text (the common case) is scanned with a pattern of ASCII letters: a class of a
# thousand Unicode capitals, and one of Unicode letters, cost several times more a character.
_ASCII_RUN = re.compile(
    rf"[A-Z][a-zA-Z'-]*\.?(?: {{1,2}}(?:(?:{_joiners()}) )*[A-Z][a-zA-Z'-]*\.?)*"
)
_RUN = _run_pattern(_UPPER)
_LEGAL_AFTER = re.compile(r",? ?(?:inc|llc|ltd|plc|gmbh|corp|co|ag|s\.a|b\.v|n\.v)\b\.?")
_HONORIFICS_BEFORE = tuple(f"{h}{dot}" for h in ("mr", "mrs", "ms", "miss", "dr") for dot in ".")
_COORDINATED = re.compile(rf" and ({_word(_UPPER)})(?![^\W\d_]| [{_UPPER}])")
_VOCATIVE = (", can", ", could", ", would", ", will", ", please", ", do", ", are", ", i ")
_CUE_NOUNS = frozenset(p for p in words.PERSON_BEFORE if " " not in p and p.isalpha())
_ABBREVIATIONS = words.HONORIFICS | words.LEGAL_FORMS | {"jr", "st"}
_FAMILY_PREFIXES = ("o'", "o’", "mc", "mac", "fitz", "d'", "d’")
_FAMILY_SUFFIXES = (
    "wicz", "ewski", "owski", "escu", "poulos", "opoulos", "enko", "dóttir", "sson", "ović",
    "ovich", "ishvili", "idze", "yan", "ian", "oglu", "oğlu",
)  # fmt: skip
_NEVER_ALONE = words.ROLE_TERMS | words.LEGAL_FORMS | words.ORGANIZATION_NOUNS
_LEGAL_OPENINGS = (", ", " i", " l", " p", " g", " c", " a", " s", " b", " n")
_ABBREVIATED_FIRM = (" inc", " llc", " ltd", " co", " corp")


@dataclass(frozen=True, slots=True)
class Names:
    """The personal and organisation names of ``text``: character spans, in text order."""

    text: str
    persons: tuple[Span, ...]
    organizations: tuple[Span, ...]


def find_names(text: str) -> Names:
    """Every personal and organisation name of ``text`` (see the module docstring). Invisible
    format characters and full-width letters do not hide a name: they are read as the plain
    text they show, and the spans still index ``text``."""
    if text.isascii() or not DISGUISE.search(text):
        return _find(text)
    plain, offsets = undisguise(text)
    found = _find(plain)

    def back(spans: tuple[Span, ...]) -> tuple[Span, ...]:
        return tuple((offsets[s], offsets[e - 1] + 1) for s, e in spans)

    return Names(text, back(found.persons), back(found.organizations))


def _find(text: str) -> Names:
    lower = text.lower()
    context = Context(text, lower)
    if lower != text:
        singles: list[Token] = []
        flags = context.flags
        for run in (_ASCII_RUN if text.isascii() else _RUN).finditer(text):
            # Most runs are common words (a sentence's first word, a defined term such as
            # "Confidential Information"): with no context phrase in the text they can be
            # nothing, and are skipped before any other work.
            parts = run.group().split()
            if len(parts) == 1 and parts[0].rstrip(".").lower() in _NEVER_ALONE:
                continue  # "Licensee", "Company": a role or legal form alone names nobody
            found = [flags.get(w.rstrip(".").lower(), 0) for w in parts]
            if all(f & COMMON for f in found) and (
                (len(found) == 1 and not found[0] & NAME) or (len(found) > 1 and not context.cues)
            ):
                continue
            for piece in _pieces(_tokens(run)):
                _judge(context, piece, singles)
        # A single word that is part of a name found elsewhere in the text is that person.
        context.persons.extend((s, e) for s, e, w in singles if w.lower() in context.person_words)
    if "\n" in text:
        block_names(text, context.persons, context.organizations, context.flag)
    organizations = sorted(set(context.organizations))
    persons = sorted(
        {p for p in context.persons if not any(p[0] < e and s < p[1] for s, e in organizations)}
    )
    return Names(text, tuple(persons), tuple(organizations))


def _tokens(run: re.Match[str]) -> list[Token]:
    out, position = [], run.start()
    for word in run.group().split(" "):
        if word:
            out.append((position, position + len(word), word))
        position += len(word) + 1
    return out


def _pieces(tokens: list[Token]) -> list[list[Token]]:
    """The run cut after a sentence's last word (a period after anything but an initial or an
    abbreviation), after a possessive (``Nowak's``, the ``'s`` left out) and at street words
    (``Barbara Yudina Apt.`` is a name, then an address)."""
    pieces: list[list[Token]] = [[]]
    for start, end, word in tokens:
        bare = word.rstrip(".").lower()
        if bare in words.STREET_WORDS:
            pieces.append([])
        elif word.endswith(("'s", "’s")) and len(word) > 3:
            pieces[-1].append((start, end - 2, word[:-2]))  # a possessive ends the name
            pieces.append([])
        elif word[-1] == "." and len(bare) > 1 and bare not in _ABBREVIATIONS:
            pieces[-1].append((start, end - 1, word[:-1]))  # the period ends the sentence
            pieces.append([])
        else:
            pieces[-1].append((start, end, word))
    return [p for p in pieces if p]


def _judge(context: Context, tokens: list[Token], singles: list[Token]) -> None:
    """Decide one run of capitalised words: an organisation, a person, or neither."""
    if not tokens:
        return
    if len(tokens) == 1:
        flags = context.flag(tokens[0][2])
        if flags & NAME or not flags & COMMON:
            singles.append(tokens[0])  # a name found elsewhere in the text makes it one
        if flags & COMMON:
            return  # a common word alone is nobody's name without the full name elsewhere
    tail, head = context.tail(tokens[0][0]), context.head(tokens[-1][1])
    if organization_context(context, tokens[0][0], tail, head) and nameable(context, tokens, tail):
        if len(tokens) > 1 and tokens[0][2] == "The":
            tokens = tokens[1:]
        end = tokens[-1][1]
        legal = _LEGAL_AFTER.match(head) if head[:2] in _LEGAL_OPENINGS else None
        context.organizations.append((tokens[0][0], end + (legal.end() if legal else 0)))
        return
    opening = tokens[0][0]
    honorific, tokens = _strip_opening(context, tokens)
    if not tokens or _organization(context, tokens, head):
        return
    if tokens[0][0] != opening:
        tail = context.tail(tokens[0][0])
    if honorific or (context.cues and tail.endswith(_HONORIFICS_BEFORE)):
        context.person(tokens[:4])
        return
    names = [w for _, _, w in tokens]
    if any(w.isupper() and len(w.rstrip(".")) > 1 for w in names):
        return  # acronyms and headings
    if "and" in names:
        cut = names.index("and")
        _judge(context, tokens[:cut], singles)
        _judge(context, tokens[cut + 1 :], singles)
    else:
        _person(context, tokens, tail, head)


def _person(context: Context, tokens: list[Token], tail: str, head: str) -> None:
    """Record the run as a person when it is a full name, or a name word that a context
    phrase, a coordinated name or an address marks as one."""
    previous = tail.rpartition(" ")[2]
    if tail[-1:].isdigit() or previous == "in":
        return  # a street after its house number, a place after "in"
    names = [w for _, _, w in tokens]
    flags = [context.flag(w) for w in names]
    if len(tokens) > 1 and _full_name(names, flags):
        context.person(tokens)
    elif any(f & COMMON for f in flags) or previous in words.DETERMINERS:
        return
    elif len(tokens) <= 3 and person_context(context, tail, context.head(tokens[-1][1])):
        context.person(tokens)
    elif len(tokens) == 1:
        _single(context, tokens[0], flags[0], previous, head)


def _strip_opening(context: Context, tokens: list[Token]) -> tuple[bool, list[Token]]:
    """Drop the run's opening words that are no part of a name (greetings, articles, common
    words before another word, a person's role such as ``Customer``, contractions such as
    ``I'm``); whether an honorific was among them. The role stays a context phrase before the
    name."""
    honorific = False
    while tokens:
        word = tokens[0][2].rstrip(".").lower()
        flags = context.flags.get(word, 0)
        if word in words.HONORIFICS:
            honorific = True
        elif not (
            word in words.GREETINGS
            or word in words.DETERMINERS
            or word in _CUE_NOUNS
            or "'" in word
            or "’" in word
            or (flags & COMMON and (not flags & NAME or len(tokens) > 1))
        ):
            break
        tokens = tokens[1:]
    return honorific, tokens


def _full_name(names: list[str], flags: list[int]) -> bool:
    """A given name and a family name, maybe initials or particles between (``Kate M Begum``,
    ``Ludwig van Beethoven``), or two proper words around an initial (``Alvir D. Pušaver``)."""
    first, last = flags[0], flags[-1]
    middle = list(zip(names[1:-1], flags[1:-1], strict=True))
    if any(len(n.rstrip(".")) == 1 for n, _ in middle):
        proper_ends = (first & GIVEN and not first & COMMON) or not (first | last) & COMMON
        return len(names[0]) > 1 and len(names[-1]) > 1 and bool(proper_ends)
    if names[0].lower() in words.PLACE_PREFIXES:
        return False
    if not (first & GIVEN and not first & COMMON) and len(names[0].rstrip(".")) > 1:
        return False
    if any(n in words.PARTICLES for n, _ in middle) and not last & COMMON:
        return True  # a given name, a particle, a capitalised word: Ludwig van Beethoven
    if last & COMMON or not (last & NAME or _family_form(names[-1])):
        return False
    return all((f & NAME and not f & COMMON) or n in words.PARTICLES for n, f in middle)


def _family_form(word: str) -> bool:
    """Whether a word outside the names table has the form of a family name: ``O'Neill``,
    ``McAllister``, ``FitzGerald``, or an ending only family names have (``-wicz``, ``-escu``)."""
    lower = word.lower()
    if lower.startswith(_FAMILY_PREFIXES) and len(lower) > 4 and word[-1].islower():
        return True
    return lower.endswith(_FAMILY_SUFFIXES) and len(lower) > 5


def _single(context: Context, token: Token, flags: int, previous: str, head: str) -> None:
    """One proper word: a person when coordinated with another name (``Torpy and Salinas``) or
    addressed (``Aloisia, can I...``); a firm when it joins two family names (``Weber-Santana``)."""
    start, end, word = token
    if previous not in words.PLACE_PREPOSITIONS:
        other = _COORDINATED.match(context.text, end)
        if other and not any(head[other.end() - end :].startswith(f) for f in _ABBREVIATED_FIRM):
            second = context.flag(other.group(1))
            if not second & COMMON and (flags | second) & NAME:
                context.person([token])
                context.person([(other.start(1), other.end(1), other.group(1))])
                return
    opening = at_sentence_start(context.text, start)
    if opening and flags & NAME and head.startswith(_VOCATIVE):
        context.person([token])
        return
    parts = word.split("-")
    if len(parts) == 2 and not opening and all(context.flag(p) == FAMILY for p in parts):
        context.organizations.append((start, end))


def _organization(context: Context, tokens: list[Token], head: str) -> bool:
    """Record the run as an organisation when it ends in a legal form (``Healthpocket Inc``),
    or in an organisation noun after a proper word (``Streetcred Software``)."""
    last = tokens[-1][2].rstrip(".").lower()
    end = tokens[-1][1]
    legal = _LEGAL_AFTER.match(head) if head[:2] in _LEGAL_OPENINGS else None
    if legal:
        end += legal.end()
    elif len(tokens) > 1 and last in words.LEGAL_FORMS:
        end += context.text[end : end + 1] == "."
    elif not (
        len(tokens) > 1
        and last in words.ORGANIZATION_NOUNS
        and not all(w.isupper() for _, _, w in tokens)
    ):
        return False
    # Checked last: most runs end in no legal form or organisation noun at all.
    if not any(proper(context, w) for _, _, w in tokens):
        return False
    context.organizations.append((tokens[0][0], end))
    return True
