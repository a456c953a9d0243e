"""What the words around a run of capitalised words say: the text before and after it, read
as lower case, and the checks on it that the name rules share; and the text a disguised name
shows. Phrases are matched with ``str.endswith``/``startswith`` on tuples (one C call) and a
word-boundary check only then. Everything here reads a bounded window around one run, so the
cost of a text grows with its runs, not with its length times its runs."""

from __future__ import annotations

import re
from bisect import bisect_left, insort
from functools import lru_cache
from typing import TYPE_CHECKING

from rag_guard_integrations.classify.recognizers import name_words as words
from rag_guard_integrations.classify.recognizers.names_table import (
    COMMON,
    NAME,
    PLACE,
    table_flags,
    word_flags,
)

if TYPE_CHECKING:
    from collections.abc import Sequence


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


UPPER = _upper_class()
"""A regex character class body of every capital letter of the BMP."""
Span = tuple[int, int]
Token = tuple[int, int, str, str, int]
"""A word of a run: its span, the word as written, its lower-case key (no trailing period)
and its names-table flags."""
WINDOW = 48
_CONNECTIVES = frozenset({"and", "of", "&", "the", "for"})
_TAIL_PUNCTUATION = " \t:,?\"'“(-"
LIST_SEPARATOR = re.compile(r"(?:,| and|, and|,? &) $")
"""What ends a list item before the next one (``X, Y and Z``): a comma, ``and``, ``&``."""
_GROUP_WINDOW = 160
_DETERMINERS = tuple(words.DETERMINERS)
_INTRODUCERS = (":", "such as", "includ", "like", "namely")
_BEFORE = tuple(sorted({*words.ORGANIZATION_BEFORE} - words.ORGANIZATION_ROLES))
_ROLES = tuple(sorted(words.ORGANIZATION_ROLES))
_SENDS = words.ORGANIZATION_SENDS
_FROM = (" from", " from\n")  # where ORGANIZATION_DEALS can match at all ("$" before "\n")
# "a paralegal at X", "eight years at X", "our team at X": a person's work, then "at".
_AT_WORK = re.compile(
    r"\b(?:" + "|".join(sorted(words.WORK_WORDS)) + r")s?\b(?: [\w'’-]+){0,3} (?:at|with)$"
)
# What one does at a person ("shouted at", "smiled at"): after a job, no place of work.
_AT_A_PERSON = tuple(p for p in words.PERSON_BEFORE if p.endswith(" at"))
# "working as a nurse for X": a person's work, then "for" (a person can be worked for too).
_FOR_WORK = re.compile(
    r"\b(?:" + "|".join(sorted(words.WORK_WORDS)) + r")s?\b(?: [\w'’-]+){0,3} for$"
)
# "works at IBM", "joined KPMG": narrower than WORK_WORDS (no "shopping at", "years at"), as
# an acronym there needs a place of work.
_ACRONYM_EMPLOYER = re.compile(
    r"\b(?:works?|worked|working|employed|interned|interning|employee|employees|staff|"
    r"joined|joining|join|hired by|job)(?: (?:at|for|with|of|by))?$"
)
_ADDRESS_AFTER = re.compile(
    r", (?:\d{1,5}[a-z]?,? [\w'’.-]|(?:unit|suite|flat|floor|building|po box) \d|"
    r"[\w'’-]+(?:" + words.STREET_ENDINGS + r") \d|rue |via |calle |ul\. )"
)
_TITLES = words.JOB_TITLES | {"volunteer"}
_NO_BRAND = (
    _TITLES
    | words.ROLE_TERMS
    | words.LEGAL_FORMS
    | words.ORGANIZATION_NOUNS
    | words.CALENDAR
    | words.NATIONALITIES
    | words.DETERMINERS
    | words.GREETINGS
    | words.HONORIFICS
    | _CONNECTIVES
)
_TITLES_OF = _TITLES - {"partner", "associate", "owner", "head", "chair", "lead", "student"}
_TITLED_BY = ("became", "become", "becomes", "formerly", "renamed", "renamed to")
_RELATING = re.compile(r" (?:of|for|at|with|in|on|to|from|by|and|or) ")
_YEAR = re.compile(r"\b(?:19|20)\d\d\b")
_DIGIT = re.compile(r"\d")
_NOT_ALNUM = re.compile(r"[\W_]+")


@lru_cache(maxsize=1)
def name_flags() -> dict[str, int]:
    """The names table, with days, months and holidays as common words: capitalised, and
    nobody's name however many people the table says bear it (``Friday``, ``May``)."""
    flags = dict(word_flags())
    flags.update(dict.fromkeys(words.CALENDAR, COMMON))
    return flags


class Context:
    """One text and the names found in it so far (in the order found, and all of them sorted
    by start, for overlap tests in logarithmic time)."""

    __slots__ = (
        "_ends",
        "_introduced",
        "_org_spans",
        "_spans",
        "flags",
        "organizations",
        "person_tokens",
        "persons",
        "text",
    )

    def __init__(self, text: str) -> None:
        self.text = text
        self.flags = name_flags()
        self.persons: list[Span] = []
        self.organizations: list[Span] = []
        self.person_tokens: list[Token] = []
        self._spans: list[Span] = []
        self._org_spans: list[Span] = []
        self._ends: set[int] = set()
        self._introduced: bool | None = None

    def flag(self, word: str) -> int:
        """The names-table flags of ``word`` (case and a trailing period ignored); a hyphened
        word the table lacks has the name flags of its first part (``Jae-won``)."""
        return table_flags(self.flags, word.rstrip(".").lower())

    def tail(self, start: int) -> str:
        """The lower-case text before ``start``, without the punctuation next to a name."""
        return self.text[max(0, start - WINDOW) : start].lower().rstrip(_TAIL_PUNCTUATION)

    def head(self, end: int) -> str:
        """The lower-case text after ``end``."""
        return self.text[end : end + WINDOW].lower()

    def person(self, tokens: Sequence[Token]) -> None:
        """Record ``tokens`` as one person's name."""
        self.person_span((tokens[0][0], tokens[-1][1]))
        self.person_tokens.extend(t for t in tokens if t[2][:1].isupper())

    def person_span(self, span: Span) -> None:
        """Record ``span`` as a person's name."""
        self.persons.append(span)
        insort(self._spans, span)

    def organization(self, span: Span) -> None:
        """Record ``span`` as an organisation's name."""
        self.organizations.append(span)
        self._ends.add(span[1])
        insort(self._spans, span)
        insort(self._org_spans, span)

    def widen_person(self, span: Span) -> None:
        """Record ``span`` as one person's name instead of the persons found inside it."""
        self._drop_persons_in(span)
        self.person_span(span)

    def reassign(self, span: Span) -> None:
        """Record ``span`` as an organisation's name instead of the persons found in it."""
        self._drop_persons_in(span)
        self.organization(span)

    def _drop_persons_in(self, span: Span) -> None:
        for found in [p for p in self.persons if span[0] <= p[0] and p[1] <= span[1]]:
            self.persons.remove(found)
            self._spans.remove(found)

    def taken(self, span: Span) -> bool:
        """Whether a name found so far overlaps ``span``."""
        return overlaps(self._spans, span)

    def organized(self, span: Span) -> bool:
        """Whether an organisation found so far overlaps ``span``."""
        return overlaps(self._org_spans, span)

    def listed_group(self, start: int) -> bool:
        """Whether a plural noun for organisations introduces a list right before ``start``."""
        if self._introduced is None:  # once a text: most hold no word that introduces a list
            lower = self.text.lower()
            self._introduced = any(i in lower for i in _INTRODUCERS)
        if not self._introduced:
            return False
        window = self.text[max(0, start - _GROUP_WINDOW) : start].lower()
        if not any(i in window for i in _INTRODUCERS):
            return False  # the regex below only where a list can be introduced at all
        return words.ORGANIZATION_GROUPS.search(window) is not None

    def listed(self, start: int, end: int) -> bool:
        """Whether the run at ``start`` continues a list whose previous item is an
        organisation (``A Ltd, B and C``); a place or a street after it is its address."""
        if not self.organizations or self.text[end : end + 2].strip()[:1].isdigit():
            return False
        if " " not in self.text[start:end] and self.flag(self.text[start:end]) & PLACE:
            return False
        separator = LIST_SEPARATOR.search(self.text, max(0, start - 6), start)
        return separator is not None and separator.start() in self._ends

    def spells(self, run: str, label: str) -> bool:
        """Whether a run of capitalised words spells a domain label (``Kestrel Bio`` and
        ``kestrelbio``, ``Delta Nile Trading`` and ``deltanile``), but for a person's name."""
        compact = _NOT_ALNUM.sub("", run.lower())
        if len(compact) < 3 or not (
            compact == label
            or (len(label) > 4 and (compact.startswith(label) or label.startswith(compact)))
        ):
            return False
        parts = run.split()
        return not (len(parts) > 1 and all(self.flag(p) & NAME for p in parts))


def overlaps(spans: list[Span], span: Span) -> bool:
    """Whether one of sorted ``spans`` overlaps ``span``. Names barely overlap each other, so
    the few spans starting just before its end are enough to look at: logarithmic time."""
    index = bisect_left(spans, (span[1], -1))
    return any(s[1] > span[0] for s in spans[max(0, index - 4) : index])


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
        or word in words.CALENDAR
        or word in words.NATIONALITIES
        or word in _CONNECTIVES
    )


def nameable(
    context: Context, tokens: Sequence[Token], tail: str, strong: bool, head: str = ""
) -> bool:
    """Whether a run a context phrase points at can be a name: not all in capitals, and a proper
    word in it, a brand (see :func:`_brand`), or (after a ``strong`` phrase such as ``works
    at``) several capitalised words that are no defined role and follow no article (``Credit
    Karma``, not ``the Licensed Software``)."""
    if all(t[2].isupper() and len(t[2]) > 1 for t in tokens):
        # One acronym where someone works ("works at IBM", "joined KPMG"); not an office, a
        # document or a place ("works in HR", "for the CFO"), nor a ticker ("shares of FBRK").
        return (
            strong
            and len(tokens) == 1
            and _ACRONYM_EMPLOYER.search(tail) is not None
            and _acronym_firm(tokens[0])
        )
    if len(tokens) == 1 and (tokens[0][3] in _NO_BRAND or len(tokens[0][3]) < 2):
        return False  # a title, a role, the pronoun: "became Chairman", "I announced"
    if any(proper(context, t[3]) and (strong or not t[4] & PLACE) for t in tokens):
        return True  # a place's name needs a strong phrase: "the Rotterdam branch" is none
    if len(tokens) == 1 and _brand(context, tokens[0], tail, head, strong):
        return True
    return (
        strong
        and len(tokens) > 1
        and not any(t[2].isupper() for t in tokens)
        and not any(t[3] in words.ROLE_TERMS or t[3] in words.LEGAL_FORMS for t in tokens)
        and not ends_with(tail, _DETERMINERS)
    )


def _acronym_firm(token: Token) -> bool:
    """Whether an all-capital word can be a firm's acronym: two to five letters, no place, no
    generic acronym (:data:`~.name_words.GENERIC_ACRONYMS`)."""
    key = token[3]
    return (
        2 <= len(key) <= 5
        and key.isalpha()
        and key not in words.GENERIC_ACRONYMS
        and not token[4] & (PLACE | COMMON)
    )


def _brand(context: Context, token: Token, tail: str, head: str, strong: bool) -> bool:
    """Whether one common word next to a context phrase is a brand: written in camel case
    (``PayPal customer service``), or capitalised inside a sentence right after a phrase that
    names an organisation (``works at Google``, ``bank with Chase``) or before words only a
    firm has (``called Google customer service``; ``the Rotterdam branch`` is a place's). No
    title, role, day, plural or other word capitalised for what it is (``became President``,
    ``Board of Directors``), and a description after it (``this Agreement, the Company``) is
    not enough."""
    word, key = token[2], token[3]
    if key in _NO_BRAND or not word.isalpha():
        return False
    if camel_case(word):
        return True
    if key.endswith("s") and context.flags.get(key[:-1], 0) & COMMON:
        return False  # a plural: "the Board of Directors"
    if not word[1:].islower() or at_sentence_start(context.text, token[0]):
        return False
    if strong and ends_with(tail, _BEFORE):
        return not tail.endswith(_TITLED_BY)
    return not token[4] & PLACE and starts_with(head, words.FIRM_ONLY_AFTER)


def camel_case(word: str) -> bool:
    """Whether a word of letters has a capital after its first letter and a small letter
    (``PayPal``, ``YouTube``; not ``IBM``)."""
    return not word[1:].islower() and not word.isupper() and len(word) > 3


def firm_only(tail: str, head: str) -> bool:
    """Whether the words around a run are ones only a firm has (``shares of X``, ``works at
    X``, ``X customer service``): a given and a family name there is a firm's name, but for
    a possessive (``works at Maria Lopez's salon``)."""
    if starts_with(head, words.FIRM_ONLY_AFTER):
        return True
    if head.startswith(("'s", "’s", "'", "’")):
        return False
    return ends_with(tail, words.FIRM_ONLY_BEFORE) or (
        tail.endswith(" at")
        and not ends_with(tail, _AT_A_PERSON)  # "the nurse smiled at X": X is a person
        and _AT_WORK.search(tail) is not None
    )


def described(head: str) -> bool:
    """Whether the text after a run describes it as an organisation (``X is a Dutch software
    company``, ``X's shareholders``); the noun must describe the run itself, not something it
    relates to (``X is a member of the Y Club``)."""
    if head.startswith(words.ORGANIZATION_POSSESSIVE):
        return True
    if not (head[:1] == "," or head.startswith((" is ", " was ", " has "))):
        return False
    found = words.ORGANIZATION_AFTER.match(head)
    return found is not None and _RELATING.search(found.group()) is None


def organization_context(context: Context, start: int, end: int, tail: str, head: str) -> int:
    """What the words around a run say of an organisation: 2 a phrase that names one whatever
    its words (``works at``, ``X is a ... company``), 1 a role that needs a proper word
    (``supplier X``), 0 nothing. The cheap tests come first; a regex runs only where a
    literal test says it can match."""
    if ends_with(tail, _BEFORE) or described(head):
        return 2
    if (
        tail.endswith((" at", " with"))
        and not ends_with(tail, _AT_A_PERSON)
        and (head.startswith(words.EMPLOYED_AS) or _AT_WORK.search(tail) is not None)
    ):
        return 2
    if context.listed(start, end) or context.listed_group(start):
        return 2
    if tail.rpartition(" ")[2] in _TITLES and context.text.startswith(", ", start - 2):
        return 2 if _YEAR.search(tail) or _YEAR.search(head) else 1  # "Analyst, X (2016-19)"
    if ("©" in tail or "copyright" in tail or "(c)" in tail) and words.COPYRIGHT.search(tail):
        return 2
    return int(
        _role_or_address(tail, head)
        or _after_a_person(context, start)
        or (head.startswith((", we ", ", our ")) and _at_opening(context.text, start, tail))
        or (tail.endswith(" for") and _FOR_WORK.search(tail) is not None)
        or (tail.endswith(" of") and tail[:-3].rpartition(" ")[2] in _TITLES_OF)
        or _called_its(context.text, end, tail)
        or (
            tail.endswith(_FROM)
            and (
                words.ORGANIZATION_DEALS.search(tail) is not None
                or words.ORGANIZATION_GOODS.search(tail) is not None
                or words.ORGANIZATION_LEFT.search(tail) is not None
                or words.ORGANIZATION_PAPERS.search(tail) is not None
            )
        )
        or (
            tail.endswith(" to")
            and (
                words.ORGANIZATION_SWITCH.search(tail) is not None
                or words.ORGANIZATION_AWARDED.search(tail) is not None
            )
        )
        or (tail.endswith(" at") and words.ORGANIZATION_AT.search(tail) is not None)
        or (tail.endswith(" between") and words.ORGANIZATION_BETWEEN.search(tail) is not None)
        or (
            (starts_with(head, words.ORGANIZATION_DEEDS) or ends_with(tail, _SENDS))
            and not _one_name(context, start, end)
        )
    )


def _at_opening(text: str, start: int, tail: str) -> bool:
    """Whether ``at`` comes right before the run, or opens it (``At Brontix, we value``)."""
    return tail.endswith(" at") or tail == "at" or text.startswith("At ", start)


def _after_a_person(context: Context, start: int) -> bool:
    """Whether the run follows a person's name and ``from``, or is in brackets after one
    (``Greta Lindholm from Polaris``, ``I'm Tom, from Socrata``, ``Jane Roe (Brontix)``):
    someone introduced by where they work (``Maria at Heathrow`` is where she is)."""
    if not context.persons:
        return False
    text = context.text
    before = text[max(0, start - 6) : start]
    if before.endswith(" from "):
        position = start - 6
    elif before.endswith(" (") and text.startswith(")", _word_end(text, start)):
        position = start - 2
    else:
        return False
    position -= text[position - 1 : position] == ","
    return any(found[1] == position for found in context.persons[-2:])


def _word_end(text: str, start: int) -> int:
    """Where the run of capitalised words at ``start`` ends, up to its closing bracket."""
    close = text.find(")", start, start + WINDOW)
    return close if close > 0 else start


def _one_name(context: Context, start: int, end: int) -> bool:
    """Whether the run is one word of the names table (a person's as often as a firm's)."""
    word = context.text[start:end]
    return " " not in word and bool(context.flag(word) & NAME)


def _role_or_address(tail: str, head: str) -> bool:
    """Whether a role names the run (``supplier X``, ``X's customers``) or an address follows
    it (``X, 14 Quay Street``)."""
    if (
        ends_with(tail, _ROLES)
        or starts_with(head, words.ORGANIZATION_FOLLOWED)
        or starts_with(head, words.ORGANIZATION_BESIDE)
        or ends_with(tail, words.ORGANIZATION_NEAR)
        or (head.startswith(("'s", "’s")) and starts_with(head[2:], words.ORGANIZATION_FOLLOWED))
    ):
        return True
    return (
        head.startswith(", ")
        and _ADDRESS_AFTER.match(head) is not None
        and words.AGE_AFTER.match(head) is None  # "Okonkwo, 42, was promoted"
        and not _DIGIT.search(tail.rpartition(",")[2])
    )


def _called_its(text: str, end: int, tail: str) -> bool:
    """Whether the clause after a run ending at ``end`` refers to it as ``its`` (``support
    Lumora in its mission``, ``Lumora in Kaunas in its``): no other capitalised word between
    but a place after ``in``, and the run itself no place after ``in`` and no defined term
    after an article (``the Shipper ... its``)."""
    head = text[end : end + WINDOW]
    at = head.find(" its ")
    if at < 0 or any(c in ".;!?\n" for c in head[:at]):
        return False
    between = head[:at].partition(" in ")[0]
    return (
        not any(c.isupper() for c in between)
        and tail.rpartition(" ")[2] != "in"
        and not ends_with(tail, _DETERMINERS)
    )


def person_context(tail: str, head: str) -> bool:
    """Whether the words around a run say it names a person (an age after it needs no word)."""
    if head[:2] in (" i", ", ") and words.AGE_AFTER.match(head) is not None:
        return True
    return ends_with(tail, words.PERSON_BEFORE) or starts_with(head, words.PERSON_AFTER)


def assigned(text: str, start: int, end: int) -> bool:
    """Whether the run at ``start`` to ``end`` is who a task in minutes or a to-do list goes
    to: it opens an item (a line, a bullet, a number or a label such as ``ACTION:``), and
    ``to`` and a verb follow it (``ACTION: Lars to send``, ``(2) Aisha to review``)."""
    if _TASK.match(text, end) is None:
        return False
    return _ITEM_OPENING.search(text, max(0, start - _ITEM_REACH), start) is not None


_TASK = re.compile(r" to (?!(?:the|a|an|my|his|her|our|their|your|its|this|that)\b)[a-z]{2,}\b")
_ITEM_OPENING = re.compile(
    r"(?:^|[\n;])[ \t]*(?:[-*•][ \t]*|\(?\d{1,2}[.)][ \t]*|[A-Za-z][A-Za-z ]{1,20}:[ \t]*){0,2}\Z"
)
_ITEM_REACH = 30


def placed(flags: int) -> bool:
    """Whether a word is a place's name and no more likely a person's (``Jordan`` alone)."""
    return bool(flags & PLACE) or not flags & NAME


def at_sentence_start(text: str, start: int) -> bool:
    """Whether ``start`` opens a sentence or a line (quotes and list markers aside)."""
    index = start - 1
    while index >= 0 and text[index] in " \t\"'“‘(>*-•?":
        index -= 1
    return index < 0 or text[index] in ".!?:\n"
