"""Names from the layout of letters, e-mails and forms: the name under a closing line
(``Kind regards,``), the organisation under a person's name and job title in a signature block
or letter head, the organisation line above an address, and the parts of a line split by
``|`` or dashes (``Lukas Meier | Key Account Manager | Alpenwerk``). Only the lines next to
an anchor or a person's line are read."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from rag_guard_integrations.classify.recognizers import name_words as words
from rag_guard_integrations.classify.recognizers.name_context import (
    LIST_SEPARATOR,
    WINDOW,
    ends_with,
    proper,
    starts_with,
)
from rag_guard_integrations.classify.recognizers.names_table import (
    COMMON,
    FAMILY,
    GIVEN,
    NAME,
    PLACE,
    word_flags,
)
from rag_guard_integrations.core.patterns import union_spans

if TYPE_CHECKING:
    from rag_guard_integrations.classify.recognizers.name_context import Context, Span

_JOINERS = words.PARTICLES | {"of", "and", "&", "the", "for", "y", "e", "et", "und", "für"}
_LINE = 240
_MARKER = re.compile(r"[ \t>?*|•\-]*")
# A line that can be a name: letters, hyphens, apostrophes, periods, commas, "&"; no digit.
_NAME_LINE = re.compile(r"[^\W\d_](?:[^\W\d_]|['’.\-])*(?:[ ,&]+(?:[^\W\d_]|['’.\-])+){0,5}")
_LABEL = re.compile(r"[^\W\d_][\w .'’-]{0,30}: +")
_SEGMENTS = re.compile(r" +[|·•—–] +| +- +")
_CLOSING = re.compile(
    r"(?:" + "|".join(re.escape(c) for c in words.CLOSINGS) + r")[ \t]*[,!.]?", re.I
)
_STREETS = "|".join(sorted(words.STREET_WORDS))
ADDRESS = re.compile(
    rf"\d{{1,5}}[a-z]?,? (?:[^\W\d_][\w'’.-]* ){{0,4}}(?:{_STREETS})\b"
    rf"|(?:[^\W\d_][\w'’.-]* ){{0,3}}[^\W\d_]+(?:{words.STREET_ENDINGS}) \d"
    r"|(?:ul\.|rue|via|calle|avenida|rua|viale|piazza|carrer) [^\W\d_]"
    r"|(?:p\.? ?o\.? ?box|postboks|postfach|apartado|flat|unit|suite|apt\.?|apartment|floor) \d"
    r"|\d{2,5}(?:-\d{3,4}| \d{2})? [^\W\d_]{2,}"
    r"|(?:[^\W\d_][\w'’.-]* ){1,3}\d{1,4}[a-z]?,"
    r"|.*\b[a-z]{1,2}\d[a-z\d]? \d[a-z]{2}$",
    re.I,
)
"""A line of a postal address: a house number and a street, a street name and its number, a
post box, a flat or unit, a postcode and town."""
# Every kind of address line but a street word first ("rue de Rivoli") holds a digit.
_DIGITLESS = ("ul.", "rue ", "via ", "calle ", "avenida ", "rua ", "viale ", "piazza ", "carrer ")


def address_line(text: str, start: int = 0, end: int | None = None) -> bool:
    """Whether ``text[start:end]`` opens with a line of a postal address (:data:`ADDRESS`); a
    line without a digit is matched only when it opens with a street word."""
    end = len(text) if end is None else end
    if _DIGIT.search(text, start, end) is None and not (
        text[start : start + 9].lower().startswith(_DIGITLESS)
    ):
        return False
    return ADDRESS.match(text, start, end) is not None


_GREETED = re.compile(
    r"(?<![^\W_])(?:hi|hey|hello|thanks|thank you|thx|dear|ask|tell|cc|bye|cheers)[ ,]+"
    r"([^\W\d_]+)(?![^\W_])"
)
_DIGIT = re.compile(r"\d")
_TITLED = frozenset({"became", "renamed", "renamed to", "formerly", "now called"})
# A firm named after its partners: "Barnett, Hale & Ortiz", "Pryce, Lowe and Shaw".
_FIRM = re.compile(r"[^\W\d_][\w'’-]*(?:, [^\W\d_][\w'’-]*)+,? (?:and|&) [^\W\d_][\w'’-]*")
_CONTACT = re.compile(r"@|www\.|\+?\d[\d ()./-]{6,}\d|" + words.CONTACT_LINE.pattern, re.I)


def _line(text: str, position: int) -> Span:
    """The content span of the line holding ``position`` (list markers and spaces off), at
    most :data:`_LINE` characters each side: a longer line is prose, not a block's line."""
    floor, ceiling = max(0, position - _LINE), min(len(text), position + _LINE)
    start = max(text.rfind("\n", floor, position) + 1, floor)
    end = text.find("\n", position, ceiling)
    end = ceiling if end < 0 else end
    start += _MARKER.match(text, start, end).end() - start  # type: ignore[union-attr]
    while end > start and text[end - 1] in " \t\r":
        end -= 1
    return start, end


def _next(text: str, line: Span, skip_blank: bool = False) -> Span | None:
    """The line after ``line`` (past one blank line when ``skip_blank``), or None."""
    newline = text.find("\n", line[1], line[1] + _LINE)
    if newline < 0:
        return None
    following = _line(text, newline + 1)
    if skip_blank and following[0] == following[1] and following[1] < len(text):
        return _next(text, following)
    return following


def _previous(text: str, line: Span) -> Span | None:
    newline = text.rfind("\n", max(0, line[0] - _LINE), line[0])
    return None if newline <= 0 else _line(text, newline - 1)


def block_names(context: Context, anchors: list[Span]) -> None:
    """Add the names the layout gives, around the anchors of a text with line breaks."""
    text, seen = context.text, set()
    for start, _ in anchors:
        line = _line(text, start)
        if line in seen:
            continue
        seen.add(line)
        content = text[line[0] : line[1]]
        if _CLOSING.fullmatch(content):
            name = _next(text, line, skip_blank=True)
            if name and _signature_name(context, text[name[0] : name[1]]):
                context.person_span(name)
        elif address_line(content):
            above = _previous(text, line)
            if above and not context.taken(above):
                _addressee(context, above)
        elif not context.taken(line) and name_line(content, context.flags, caseless=False):
            context.person_span(line)
    signed = set()
    for person in sorted(context.persons):
        line = _line(text, person[0])
        if line in signed or not _covers(person, line, text):
            continue
        signed.add(line)
        _segments(context, line)
        _signature_block(context, line)


def _covers(person: Span, line: Span, text: str) -> bool:
    """Whether the person's name is the whole line, but for a label (``By: X``) or segments."""
    label = _LABEL.match(text, line[0], line[1])
    start = label.end() if label else line[0]
    return person[0] <= start + 1 and (
        person[1] >= line[1] - 1
        or text[person[1] :].startswith((" |", " —", " –", " <", ",", " ("))
    )


def _signature_name(context: Context, content: str) -> bool:
    """The line under a closing: one to four capitalised words, no article, not all common."""
    parts = content.split()
    if not 1 <= len(parts) <= 4 or not _NAME_LINE.fullmatch(content):
        return False
    if parts[0].lower() in words.DETERMINERS or not all(p[0].isupper() for p in parts):
        return False
    return any(context.flag(p) & NAME or not context.flag(p) & COMMON for p in parts)


def _org_line(context: Context, content: str) -> bool:
    """A line that can be an organisation's name: a name line with a proper word that is no
    place, or ending in a legal form or an organisation noun; no job title."""
    if not _titled(content):
        return False  # a job title or a phrase in lower case ("Responsable des achats")
    parts = [p.strip(",.").lower() for p in content.split()]
    if parts[-1] in words.LEGAL_FORMS or parts[-1] in words.ORGANIZATION_NOUNS:
        return True
    return any(proper(context, p) and not context.flags.get(p, 0) & PLACE for p in parts)


def _signature_block(context: Context, person: Span) -> None:
    """Under a person's line: job title lines, then the organisation's line, when an address
    or contact line follows it within two lines. A line with a proper word is preferred to
    one of common words only (``Accounts Receivable`` is a department); a line that reads as
    a second person's name under a job title, right above the address, is the organisation
    (``Maison Lefeuvre``), and so is a line of partners' names (``Pryce, Lowe and Shaw``)."""
    text, line, candidates, titled = context.text, person, [], False
    for _ in range(3):
        following = _next(text, line)
        if following is None or following[0] == following[1]:
            break
        line = following
        content = text[line[0] : line[1]]
        if _CONTACT.search(content) or address_line(content):
            break
        if context.organized(line):
            return  # the block's organisation is found
        if context.taken(line):
            firm = not titled and _FIRM.fullmatch(content) is not None and _addressed(text, line)
            if (firm or (titled and _address_below(text, line))) and _org_line(context, content):
                context.reassign(line)
                return
            continue
        titled = True
        if _SEGMENTS.search(content):
            _segments(context, line)
        elif _titled(content) and _addressed(text, line):
            candidates.append((not _org_line(context, content), line))
    if candidates:
        context.organization(min(candidates)[1])


def _address_below(text: str, line: Span) -> bool:
    following = _next(text, line)
    return following is not None and address_line(text, following[0], following[1])


def _addressed(text: str, line: Span) -> bool:
    """Whether a line with a digit (an address, a phone number) or a mail or web address
    follows ``line`` within two lines."""
    for _ in range(2):
        following = _next(text, line)
        if following is None:
            return False
        line = following
        if _CONTACT.search(text, line[0], line[1]) or _DIGIT.search(text, line[0], line[1]):
            return True
    return False


def _titled(content: str) -> bool:
    """A name line in title case with no job title word: a line that can name a firm."""
    raw = content.split()
    return (
        _NAME_LINE.fullmatch(content) is not None
        and not content.isupper()
        and all(w[0].isupper() or w in _JOINERS for w in raw)
        and not any(w.strip(",.").lower() in words.JOB_TITLES for w in raw)
    )


def _addressee(context: Context, line: Span) -> None:
    """The line above an address: a person when it is a given and a family name and no person
    is named right above it, else an organisation when it can be one."""
    content = context.text[line[0] : line[1]]
    if not _person_above(context, line) and name_line(content, context.flags, caseless=False):
        context.person_span(line)
    elif _org_line(context, content):
        context.organization(line)


def _person_above(context: Context, line: Span) -> bool:
    """Whether a person's line is among the three lines above ``line``: then ``line`` is the
    organisation of a letter head or a signature, not a second person."""
    for _ in range(3):
        above = _previous(context.text, line)
        if above is None:
            return False
        line = above
        if any(s <= line[0] + 1 and line[0] < e for s, e in context.persons):
            return True
    return False


def _segments(context: Context, line: Span) -> None:
    """A line split by ``|`` or dashes that holds a person, a job title or contact details:
    its other name-like parts are organisations (``Jonas Weidner | Orbital Foods``)."""
    text = context.text
    parts, position = [], line[0]
    for separator in _SEGMENTS.finditer(text, line[0], line[1]):
        parts.append((position, separator.start()))
        position = separator.end()
    parts.append((position, line[1]))
    if len(parts) < 2:
        return
    for start, end in parts:
        content = text[start:end]
        if not context.taken((start, end)) and _org_line(context, content):
            context.organization((start, end))


def name_line(content: str, table: dict[str, int], caseless: bool) -> bool:
    """A line of two or three words: a given name first or a family name last, none of them a
    common word; capitalised, unless the whole text is in lower case (then both needed)."""
    parts = content.split()
    if not 2 <= len(parts) <= 3 or not _NAME_LINE.fullmatch(content):
        return False
    flags = [table.get(p.rstrip(".").lower(), 0) for p in parts]
    if any(f & COMMON and len(p.rstrip(".")) > 1 for p, f in zip(parts, flags, strict=True)):
        return False
    if caseless:
        return bool(flags[0] & GIVEN and flags[-1] & FAMILY)
    if not all(p[0].isupper() and not (p.isupper() and len(p) > 2) for p in parts):
        return False
    return bool(flags[0] & GIVEN or flags[-1] & FAMILY)


def caseless_names(text: str) -> tuple[Span, ...]:
    """Persons in a text written all in lower case (chat, logs): a given and a family name
    alone on a line of a block of three lines or more, a given name that is no common word or
    place after a greeting or a thanks (``thanks dimitri``), such a given name right before
    a family name that is no common word or place either (``jane roe card ...``), a name word
    after an honorific (``mr. haddad``), and a given name that is no common word or place
    said to speak, be spoken to or be someone's (``niamh said``, ``texted rahim``, ``my
    cousin olga``), or listed with another (``thabo, lindiwe and zanele``)."""
    table, lines, out, position = word_flags(), text.split("\n"), [], 0
    for match in _GREETED.finditer(text):
        flags = table.get(match.group(1), 0)
        if (
            flags & GIVEN
            and not flags & (COMMON | PLACE)
            and match.group(1) not in words.HONORIFICS
        ):
            out.append(match.span(1))
    for match in _HONOURED.finditer(text):
        flags = table.get(match.group(1), 0)
        if flags & NAME and not flags & COMMON:
            out.append(match.span(1))
    out.extend(_caseless_full_names(text, table))
    out.extend(_caseless_given_names(text, table))
    for raw in lines:
        start = position + _MARKER.match(raw).end()  # type: ignore[union-attr]  # matches ""
        end = max(start, position + len(raw.rstrip()))
        if len(lines) >= 3 and name_line(text[start:end], table, caseless=True):
            out.append((start, end))
        position += len(raw) + 1
    return tuple(union_spans(out))  # "met maria" inside "met maria lopez": one person


_LOWER_WORD = re.compile(r"(?<![\w'’-])[^\W\d_](?:[^\W\d_]|['’-]){2,}(?![\w-])")


def _caseless_full_names(text: str, table: dict[str, int]) -> list[Span]:
    """Adjacent words of lower-case text, one space apart and of three letters or more, that
    are a given name and a family name, neither of them a common word or a place."""
    found: list[Span] = []
    previous: re.Match[str] | None = None
    for word in _LOWER_WORD.finditer(text):
        if previous is not None and previous.end() + 1 == word.start():
            given, family = table.get(previous.group(), 0), table.get(word.group(), 0)
            if given & GIVEN and family & FAMILY and not (given | family) & (COMMON | PLACE):
                found.append((previous.start(), word.end()))
        previous = word
    return found


_HONOURED = re.compile(r"(?<![^\W_])(?:mr|mrs|ms|mx|dr|prof)\.? ([^\W\d_]{2,})(?![^\W_])")
_CASELESS_AFTER_PERSON = (*words.PERSON_AFTER, " posted", " texted", " messaged", " emailed")
_CASELESS_BEFORE_PERSON = (
    *words.PERSON_BEFORE, "texted", "messaged", "emailed", "told", "asked", "shouted at",
    "went with",
)  # fmt: skip


def _caseless_given_names(text: str, table: dict[str, int]) -> list[Span]:
    """Given names that are no common word or place, in lower-case text, beside a phrase that
    says a person speaks, is spoken to or is someone's (``niamh said``, ``texted rahim``), and
    such names listed together (``thabo, lindiwe and zanele``: every one of the list)."""
    given = [
        word
        for word in _LOWER_WORD.finditer(text)
        if table.get(word.group(), 0) & (GIVEN | COMMON | PLACE) == GIVEN
        and word.group() not in words.FAMILY_CALLS
    ]
    found: list[Span] = []
    for index, word in enumerate(given):
        start, end = word.span()
        before = text[max(0, start - WINDOW) : start].rstrip(" ,:")
        after = text[end : end + WINDOW]
        listed = index > 0 and (
            LIST_SEPARATOR.fullmatch(text, given[index - 1].end(), start) is not None
        )
        if listed:
            found.append(given[index - 1].span())
        if (
            listed
            or starts_with(after, _CASELESS_AFTER_PERSON)
            or ends_with(before, _CASELESS_BEFORE_PERSON)
        ):
            found.append((start, end))
    return found


_CASELESS_WORD = re.compile(r"(?<![\w'’-])[a-z][a-z\d&-]{3,}(?![\w-])")
_CASELESS_BEFORE = tuple(
    {*words.ORGANIZATION_BEFORE, *words.ORGANIZATION_NEAR, *words.ORGANIZATION_SENDS} - _TITLED
)
_CASELESS_AFTER = (*words.ORGANIZATION_FOLLOWED, *words.ORGANIZATION_BESIDE)
# The organisation nouns that name a firm's trade after its own word ("pellam freight"), and
# no noun that a misspelt word could come before as often ("recieved services").
_CASELESS_TRADES = frozenset(
    (
        "freight", "logistics", "couriers", "consulting", "consultants", "solicitors",
        "architects", "accountants", "builders", "plumbing", "lettings", "estates", "realty",
        "pharma", "labs", "analytics", "robotics", "technologies", "solutions", "software",
        "ventures", "enterprises", "industries",
    )
)  # fmt: skip
# Legal forms but the short ones and the ones that are common words ("sa", "co", "group").
_CASELESS_FORMS = {f for f in words.LEGAL_FORMS if len(f) > 2} - {"group", "company", "partners"}
_CASELESS_NOUN = re.compile(
    r" (?:"
    + "|".join(
        re.escape(w) for w in sorted({*_CASELESS_TRADES, *_CASELESS_FORMS}, key=len, reverse=True)
    )
    + r")\b\.?"
)


def caseless_firms(text: str) -> tuple[Span, ...]:
    """Organisations in a text written all in lower case: a word the names table does not
    know (no common word, name or place) right after a phrase that names an organisation or
    right before one, a possessive between (``i work at zillow``, ``zillow customer
    service``; ``i work at home`` names none), or with a firm's trade or legal form after it
    (``pellam freight``, ``vantor ltd``). Only the few unknown words are looked at."""
    table, found = word_flags(), []
    for match in _CASELESS_WORD.finditer(text):
        if match.group() in table:
            continue
        start, end = match.span()
        trade = _CASELESS_NOUN.match(text, end)
        if trade is not None:
            found.append((start, trade.end()))  # "pellam freight", "vantor ltd"
            continue
        after = text[end : end + WINDOW]
        after = after[2:] if after.startswith(("'s", "’s")) else after
        before = text[max(0, start - WINDOW) : start - 1]
        if (start and text[start - 1] == " " and ends_with(before, _CASELESS_BEFORE)) or (
            starts_with(after, _CASELESS_AFTER)
        ):
            found.append((start, end))
    return tuple(found)


def caseless_organizations(text: str, persons: tuple[Span, ...]) -> tuple[Span, ...]:
    """Organisations in a text written all in lower case: the line under a person's line of
    a block, when a line with a digit or an address follows within two lines."""
    out = []
    for person in persons:
        following = _next(text, _line(text, person[0]))
        if following is None or following[0] == following[1]:
            continue
        content = text[following[0] : following[1]]
        if (
            _NAME_LINE.fullmatch(content)
            and not any(w.strip(",.") in words.JOB_TITLES for w in content.split())
            and following not in persons
            and _addressed(text, following)
        ):
            out.append(following)
    return tuple(out)
