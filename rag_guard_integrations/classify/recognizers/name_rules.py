"""The rules that decide one run of capitalised words: a person (a given and a family name,
an honorific, a context phrase, a given name inside a sentence), an organisation (a legal form
or an organisation noun after a proper word, a context phrase, the domain it spells), or
neither. A token carries its lower-case key and names-table flags, looked up once."""

from __future__ import annotations

import itertools
import re
import unicodedata

from rag_guard_integrations.classify.recognizers import name_words as words
from rag_guard_integrations.classify.recognizers.known_organizations import (
    every_listed_name,
    known_organizations,
)
from rag_guard_integrations.classify.recognizers.name_context import (
    UPPER,
    WINDOW,
    Context,
    Token,
    assigned,
    at_sentence_start,
    described,
    firm_only,
    name_flags,
    nameable,
    organization_context,
    person_context,
    proper,
    starts_with,
)
from rag_guard_integrations.classify.recognizers.names_table import (
    COMMON,
    FAMILY,
    GIVEN,
    NAME,
    PLACE,
)

_LEGAL_AFTER = re.compile(
    r",? ?(?:inc|llc|ltd|plc|gmbh|corp|co|ag|s\.a|b\.v|n\.v|s\.r\.o|d\.o\.o|e\.v"
    r"|(?:et|e|y|und|&) (?:fils|figli|hijos|söhne|cie))(?![\w-])\.?"  # "Delacroix et Fils"
)
_LEGAL_OPENINGS = (", ", *(f" {letter}" for letter in "ilpgcasbneyud"))
# Partners' names listed before "X & Y": "Goldberg, Stein & Ortiz".
_LISTED_BEFORE = re.compile(rf"(?:[{UPPER}][^\W\d_]*(?:['’-][^\W\d_]+)*, )+$")
_HONORIFICS_BEFORE = tuple(f"{h}." for h in ("mr", "mrs", "ms", "miss", "dr"))
_COORDINATED = re.compile(
    rf" and ([{UPPER}](?:[^\W\d_]|['’-](?=[^\W\d_]))*)(?![^\W\d_]| [{UPPER}])"
)
_SHARED_FAMILY = re.compile(rf" and ([{UPPER}][^\W\d_]+) ([{UPPER}][^\W\d_]+)\b")
_VOCATIVE = (", can", ", could", ", would", ", will", ", please", ", do", ", are", ", i ")
_CUE_NOUNS = frozenset(p for p in words.PERSON_BEFORE if " " not in p and p.isalpha())
# English nouns that lead a name ("Hotel Miramar") and a person's post ("Hospital Chaplain"):
# a word that ends as a post's name does is read as one.
_ENGLISH_LEADS = frozenset({"hotel", "hospital", "club", "bank"})
_AGENT_ENDINGS = ("er", "or", "ist", "ian", "ant", "ent", "ee", "ain")
_PEOPLES_WORDS = words.JOB_TITLES | words.TITLED_JOBS | words.PERSON_ROLES | words.HONORIFICS
_OPENERS = words.GREETINGS | words.DETERMINERS | _CUE_NOUNS | words.TITLED_JOBS | words.PERSON_ROLES
_CONTRACTION = re.compile(r"[^\W\d_]+['’](?:m|s|re|ve|ll|d|t)")
_FAMILY_PREFIXES = ("o'", "o’", "mc", "mac", "fitz", "d'", "d’")
_FAMILY_SUFFIXES = (
    "wicz", "ewski", "owski", "escu", "poulos", "opoulos", "enko", "dóttir", "sson", "ović",
    "ovich", "ishvili", "idze", "yan", "ian", "oglu", "oğlu",
)  # fmt: skip
_ABBREVIATED_FIRM = (" inc", " llc", " ltd", " co", " corp")
_NEVER_FAMILY = (
    words.ORGANIZATION_NOUNS | words.LEGAL_FORMS | words.STREET_WORDS | words.PLACE_WORDS
)
# Words after a family name that make it a firm's (``Okonkwo Brothers``), not a person's.
_FIRM_RELATIONS = frozenset({"brothers", "bros", "sons", "sisters", "daughters", "partners"})
_NOT_BEFORE_A_NAME = (
    words.DETERMINERS | words.PLACE_PREPOSITIONS | {"of", "on", "for", "by", "or", "as"}
)
_YEAR = re.compile(r"(?:19|20)\d\d")
_OPENING_WORDS = words.DETERMINERS | words.QUESTION_WORDS | {"at"}
_NOT_A_FIRM = words.ROLE_TERMS | words.LEGAL_FORMS | words.HONORIFICS | words.PARTICLES
# A family name then a comma right before a given name: "ROE, Jane", "Roe, Jane".
_FAMILY_COMMA = re.compile(rf"(?<![\w'’-])([{UPPER}][^\W\d_]*(?:['’-][^\W\d_]+)*), $")
# Where a record's "Family, Given" ends: the text's or a line's end, a field's separator or a
# bracket, maybe after a middle initial ("Smith, John A.", "Smith, John (DOB ...)").
_FIELD_ENDS = re.compile(rf"(?: [{UPPER}]\.?)?[ \t]*(?:$|[;|()\n\t/]|\.(?:\s|$))")
_NOT_IN_A_NAME = words.STREET_WORDS | words.ORGANIZATION_NOUNS | words.LEGAL_FORMS
# A family name as it is capitalised: "Smith", "O'Brien", "McAllister", "Lloyd-Jones".
_FAMILY_FORM = re.compile(r"(?:O['’]|Ma?c)?[A-Z][a-z]+(?:-[A-Z][a-z]+)?")
_SENTENCE_WORDS = re.compile(r"(?<![^\W\d_])[a-z]+(?![^\W\d_])")


def judge(context: Context, tokens: list[Token]) -> None:
    """Decide one run of capitalised words and record what it names. A given and a family
    name is a person's even where a company could stand (``works for Maria Lopez``), unless
    the text goes on to describe it as one (``Kimberly Clark is an American company``)."""
    honorific, core = _strip_opening(tokens)
    trailing = _field_words_after(context, core)
    if trailing:  # "Jane Roe SSN ...", "Jane Roe Card ...": the name, then a field's name
        judge(context, tokens[:-trailing])
        return
    if not honorific and (
        _listed(context, core)
        or _led_by_a_noun(context, tokens)
        or _institution(context, tokens)
        or _based(context, tokens)
    ):
        return
    start, end = tokens[0][0], tokens[-1][1]
    head, tail = context.head(end), context.tail(start)
    if (
        not honorific
        and len(core) > 1
        and (_vietnamese(core, head) or _full_name(context, core))
        and not described(head)
        and _legal_form_after(head) is None
        and not firm_only(tail, head)
    ):
        before = tail if core[0][0] == start else context.tail(core[0][0])
        # a place, a street: "in Santa Clara", "12 Anna Rd", "on Nguyen Van Linh street"
        street = before.endswith(" on") and _next_word(head) in words.STREET_WORDS
        if not (_after_a_number(context, core[0][0], before) or before.endswith(" in") or street):
            context.person(core)
            # "Nguyen, Thi Lan" is one name; "Riku Andou, Jeremy Hartmann" two.
            if all(t[4] & GIVEN for t in core):
                _inverted(context, core[0][0], core[-1][1])
        return
    # An honorific names a person whatever the words around say ("Mrs. Nowak hired").
    org = 0 if honorific else organization_context(context, start, end, tail, head)
    written = [t[2] for t in tokens]
    if org and "and" in written and _one_firm(context, tokens, head):
        return
    if org and "and" in written:  # a list: "Globex and Initech"; "Compliance And Risks" is one
        _judge_parts(context, tokens, written.index("and"))
    elif org and _named(context, tokens, tail, head, org):
        return
    elif core:
        _unnamed(context, tokens, core, honorific, head)
    elif not _registered(context, tokens, head):
        _named_place(context, tokens)  # common words only: "Department of Education"


def _listed(context: Context, core: list[Token]) -> bool:
    """Record the run as an organisation when it is exactly a listed company's name
    (:mod:`.known_organizations`): ``Allianz``, ``Goldman Sachs``."""
    if not core:
        return False
    span = (core[0][0], core[-1][1])
    if context.text[span[0] : span[1]] not in known_organizations():
        return False
    context.organization(span)
    return True


def _led_by_a_noun(context: Context, tokens: list[Token]) -> bool:
    """Record the run as an organisation when it opens, after an article or a greeting, with a
    noun that leads a firm's or an institution's name (:data:`~.name_words.LEADING_NOUNS`)
    and goes on with a proper word: ``Hotel Kaiserhof``, ``the Institut Pasteur``, ``Grupo
    Bimbo`` (no person's name, however its words read)."""
    index = 0
    while index < len(tokens) - 1 and tokens[index][3] in _OPENERS:
        index += 1
    lead, rest = tokens[index], tokens[index + 1 :]
    if lead[3] not in words.LEADING_NOUNS or not rest or not lead[2][:1].isupper():
        return False
    before = context.text[max(0, lead[0] - WINDOW) : lead[0]].rstrip().rpartition(" ")[2]
    if before[:1].isupper() and before[-1:] not in ".!?:;," and not index:
        return False  # a piece of a longer run: "Oxford Street Bank Leeds branch"
    english = lead[3] in _ENGLISH_LEADS
    if (
        all(t[2].isupper() for t in rest)
        or any(t[3] in _PEOPLES_WORDS for t in rest)
        or not any(
            proper(context, t[3]) and not (english and t[3].endswith(_AGENT_ENDINGS)) for t in rest
        )
    ):
        return False  # "Club Secretary", "Hotel Receptionist": a person's post at one
    context.organization((lead[0], rest[-1][1]))
    return True


def _field_words_after(context: Context, core: list[Token]) -> int:
    """How many words end the run as a record's field names after a name (``Jane Roe SSN``,
    ``Jane Roe Card``, ``Wayne Enterprises EBITDA``): acronyms, or common words that are no
    name, after at least two words; common words only after a full personal name. None of
    them may be a firm's, a street's or a place's word (``Jane Roe Foundation``), nor a legal
    form in capitals (``Halvorsen Shipping AS``)."""
    count, acronyms = 0, True
    for token in reversed(core):
        word, key, flags = token[2], token[3], token[4]
        if key in _NEVER_FAMILY or word in words.CAPITAL_FORMS:
            break
        if word.isupper() and len(key) > 1 and key.isalpha():
            count += 1
        elif flags & COMMON and not flags & NAME and word[1:].islower():
            count, acronyms = count + 1, False
        else:
            break
    rest = core[: len(core) - count]
    if not count or len(rest) < 2:
        return 0
    return count if acronyms or _full_name(context, rest) else 0


def _one_firm(context: Context, tokens: list[Token], head: str) -> bool:
    """Record partners' names joined by ``and`` that a singular verb describes as one
    organisation (``Smith, Jones and Brown is a law firm``; ``Globex and Initech are rivals``
    names two)."""
    if not head.startswith((" is ", " was ")) or not described(head):
        return False
    if not any(proper(context, t[3]) for t in tokens) or any(
        t[3] in words.ROLE_TERMS for t in tokens
    ):
        return False
    start = _partners_before(context, tokens[0][0])
    context.organization((start, tokens[-1][1]))
    return True


def _legal_form_after(head: str) -> re.Match[str] | None:
    """The legal form that follows the run, if one does (``Jana Novak s.r.o.``: a firm named
    after a person)."""
    return _LEGAL_AFTER.match(head) if head[:2] in _LEGAL_OPENINGS else None


def _judge_parts(context: Context, tokens: list[Token], cut: int) -> None:
    for part in (tokens[:cut], tokens[cut + 1 :]):
        if part:
            judge(context, part)


def _named(context: Context, tokens: list[Token], tail: str, head: str, org: int) -> bool:
    """Record the run as the organisation a context phrase points at, if it can be one. A
    given name alone needs a strong phrase or a word of a firm's after it (``Gorjan
    support``): ``supplier Jane`` or ``Jane said its fine`` (for "it's") names a person as
    often as a firm."""
    named = _without_opening(tokens)
    flags = named[0][4]
    listed = context.text[named[0][0] : tokens[-1][1]] in every_listed_name()
    if (
        not listed
        and org == 1
        and len(named) == 1
        and flags & GIVEN
        and not flags & COMMON
        and not starts_with(head, words.ORGANIZATION_FOLLOWED)
    ):
        return False
    if not (listed or nameable(context, named, tail, strong=org == 2, head=head)):
        return False
    legal = _legal_form_after(head)
    context.organization((named[0][0], tokens[-1][1] + (legal.end() if legal else 0)))
    return True


def _without_opening(tokens: list[Token]) -> list[Token]:
    """The run without the article, question word or ``At`` that opens it (``The``, ``Is``),
    keeping its last word."""
    index = 0
    while index < len(tokens) - 1 and tokens[index][3] in _OPENING_WORDS:
        index += 1
    return tokens[index:]


def _unnamed(
    context: Context, tokens: list[Token], core: list[Token], honorific: bool, head: str
) -> None:
    """A run no context phrase names: a legal form or organisation noun, an honorific, a
    person's context phrase or a single name word."""
    if (
        _registered(context, tokens, head)
        or _organization(context, core, head)
        or _named_place(context, tokens)
    ):
        return
    tail = context.tail(core[0][0])
    if honorific or tail.endswith(_HONORIFICS_BEFORE) or _titled(tokens, core):
        context.person(core[:4])
        return
    written = [t[2] for t in core]
    if any(t[2].isupper() and len(t[3]) > 1 for t in core):
        return  # acronyms and headings
    if "and" in written:
        _judge_parts(context, core, written.index("and"))
    elif "&" not in written:
        _person(context, core, tail, head)


def _titled(tokens: list[Token], core: list[Token]) -> bool:
    """Whether a job written as a title opens the run right before up to three words that
    are no common words, two of them or one of the names table (``Manager Lindqvist``,
    ``Agent Siobhán``; ``Manager Dashboard`` is none)."""
    opened = len(tokens) - len(core)
    if not opened or not _named_after_title(core):
        return False
    title = tokens[opened - 1]
    return title[3] in words.TITLED_JOBS and title[2][:1].isupper()


def _named_after_title(core: list[Token]) -> bool:
    """Whether the words after a title can be a name: up to three, no common word, and two
    or more of them or one the names table holds."""
    if len(core) > 3 or any(t[4] & COMMON for t in core):
        return False
    return len(core) > 1 or bool(core[0][4] & NAME)


def _person(context: Context, tokens: list[Token], tail: str, head: str) -> None:
    """Record the run as a person when a context phrase, a coordinated name or the sentence
    around it marks its name words as one."""
    previous = tail.rpartition(" ")[2]
    numbered = _after_a_number(context, tokens[0][0], tail)
    if numbered or previous == "in" or previous in words.DETERMINERS:
        return  # a street after its house number, a place after "in", "the Smiths"
    if _worded_full_name(tokens) and person_context(tail, context.head(tokens[-1][1])):
        context.person(tokens)  # "Patient Grace Field", "customer Mark Green"
        return
    if any(t[4] & COMMON for t in tokens):
        return
    if len(tokens) == 1 and tokens[0][4] & PLACE and not tokens[0][4] & GIVEN:
        return  # a place's name: "Belgium signed the treaty"
    if len(tokens) <= 3 and (
        person_context(tail, context.head(tokens[-1][1]))
        or (
            _named_after_title(tokens)
            and (
                previous in words.PERSON_ROLES  # a role written as a title: "Caller X"
                or (
                    not any(t[4] & PLACE for t in tokens)
                    and assigned(context.text, tokens[0][0], tokens[-1][1])
                )
            )
        )
    ):
        context.person(tokens)
    elif len(tokens) == 1:
        _single(context, tokens[0], previous, head)


def _after_a_number(context: Context, start: int, tail: str) -> bool:
    """Whether a number stands right before the run at ``start`` (``tail``, its lower-case
    text before), as a house number stands before a street (``12 Anna Rd``); a numbered
    field's label or item is not one (``Passenger 1: Neha Sharma``, ``(3) Tendai to``)."""
    return tail[-1:].isdigit() and context.text[max(0, start - 3) : start].rstrip()[-1:] not in (
        ":",
        ")",
    )


def _strip_opening(tokens: list[Token]) -> tuple[bool, list[Token]]:
    """Drop the run's opening words that are no part of a name (greetings, articles, common
    words before another word, a person's role such as ``Customer``, contractions such as
    ``I'm``); whether an honorific was among them."""
    honorific, index = False, 0
    while index < len(tokens):
        _, _, word, key, flags = tokens[index]
        if key in words.HONORIFICS:
            honorific = True
        elif (len(key) == 1 and word.endswith(".")) or key in words.PARTICLES:
            break  # an initial or a particle opens the name: "T. Aaltonen", "van der Berg"
        elif index == len(tokens) - 2 and _worded_full_name(tokens[index:]):
            break  # a given name that is a word too, then a family name: "Mark Smith"
        elif not (
            key in _OPENERS
            or (flags & COMMON and (not flags & NAME or index < len(tokens) - 1))
            or _CONTRACTION.fullmatch(key)
        ):
            break
        index += 1
    return honorific, tokens[index:]


def _full_name(context: Context, tokens: list[Token]) -> bool:
    """A given name and a family name, maybe initials, particles or more names between
    (``Kate M Begum``, ``Ludwig van Beethoven``, ``Mei Lin Zhou``), or two proper words around
    an initial (``Alvir D. Pušaver``). The family name may be one the table lacks, so long as
    it is no common word, place, role or organisation noun (``Gareth Pryce``)."""
    first, last, middle = tokens[0], tokens[-1], tokens[1:-1]
    # Checked first: most runs open with a common word.
    if (first[4] & COMMON and len(first[3]) > 1) or any(t[3] in ("&", "and") for t in middle):
        return not middle and _worded_given_and_family(first, last)
    if any(len(t[3]) == 1 and t[3].isalpha() for t in middle):
        return _around_initials(context, tokens)
    if first[3] in words.PLACE_PREFIXES or (not first[4] & GIVEN and len(first[3]) > 1):
        return False
    if any(t[3] in words.PARTICLES for t in middle) and not last[4] & COMMON:
        return True  # a given name, a particle, a capitalised word: Ludwig van Beethoven
    if not (_family(context, last) or _given_and_worded_family(first, last, middle)):
        return False
    return all(
        t[3] in words.PARTICLES or (not t[4] & COMMON and (t[4] & NAME or proper(context, t[3])))
        for t in middle
    )


def _worded_given_and_family(first: Token, last: Token) -> bool:
    """A given name that is a common word too (:data:`~.name_words.WORDED_GIVEN_NAMES`), then a
    family name of the names table that is no common word or place, both capitalised as names
    are (``Mark Smith``, ``Faith O'Brien``, ``Jack McAllister``, ``Grace Lloyd-Jones``; not
    ``Rose Garden``, ``Mark Lane`` or a word the table lacks: ``Rose Quartz``)."""
    flags = _worded_family(first, last)
    return bool(flags) and not flags & COMMON


def _worded_full_name(tokens: list[Token]) -> bool:
    """Two words: a given name that is a word too, then a family name of the table, a word
    too or not (``Grace Field``, ``Mark Smith``). One that is a word is a name only where a
    person's context phrase says so."""
    return len(tokens) == 2 and bool(_worded_family(*tokens))


def _worded_family(first: Token, last: Token) -> int:
    """The names-table flags of ``last`` when ``first`` is a given name that is a word too and
    ``last`` a family name of the table that is no place or street, both capitalised as names
    are; else 0."""
    # The table writes "O'Brien" without its apostrophe.
    flags = last[4] or name_flags().get(last[3].replace("'", "").replace("’", ""), 0)
    if (
        first[3] in words.WORDED_GIVEN_NAMES
        and flags & FAMILY
        and not flags & PLACE
        and first[2][1:].islower()
        and _FAMILY_FORM.fullmatch(last[2]) is not None
        and last[3] not in _NEVER_FAMILY
    ):
        return flags
    return 0


def _around_initials(context: Context, tokens: list[Token]) -> bool:
    """A run with an initial inside: two proper words around it (``Alvir D. Pušaver``), or
    initials written apart before a family name of the names table (``K. A. Mensah``;
    ``U.S. Jones`` is a country's abbreviation, ``B. A. Honours`` a degree)."""
    first, last = tokens[0], tokens[-1]
    initials = tokens[:-1]
    if all(len(t[3]) == 1 and t[2].endswith(".") for t in initials) and all(
        later[0] > earlier[1] for earlier, later in itertools.pairwise(initials)
    ):
        return bool(last[4] & FAMILY) and _family(context, last)
    given = first[4] & GIVEN or not (first[4] | last[4]) & COMMON
    return len(first[3]) > 1 and len(last[3]) > 1 and bool(given)


def _vietnamese(tokens: list[Token], head: str) -> bool:
    """A Vietnamese name: a family name, a marking middle name, one or two more words, each
    capitalised as a name is (``Nguyễn Văn An``, ``Le Thi Mai``), read without their marks
    (``Đặng`` as ``dang``). A family name that is an English word (``Do``, ``Ho``) counts only
    in a run written with Vietnamese marks; a run that goes on as a street, a firm or a
    hospital (``Nguyen Van Linh street``, ``Le Thi Rieng Hospital``) is no person."""
    if not 3 <= len(tokens) <= 4 or _unmarked(tokens[1][3]) not in words.VIETNAMESE_MIDDLE:
        return False
    if _unmarked(tokens[0][3]) not in words.VIETNAMESE_FAMILY or not all(
        t[2][1:].islower() and t[2][:1].isupper() and t[3] not in _NOT_IN_A_NAME for t in tokens
    ):
        return False
    if _next_word(head) in _NOT_IN_A_NAME:
        return False
    return (
        not tokens[0][4] & COMMON or tokens[0][3] == "le" or not all(t[2].isascii() for t in tokens)
    )


def _next_word(head: str) -> str:
    """The word right after a run, in lower case, without the punctuation after it."""
    return head[1:].partition(" ")[0].lower().rstrip(".,;:!?") if head[:1] == " " else ""


def _unmarked(word: str) -> str:
    """``word`` without its combining marks, ``đ`` read as ``d`` (``đặng`` -> ``dang``)."""
    plain = unicodedata.normalize("NFD", word.replace("đ", "d").replace("Đ", "D"))
    return "".join(c for c in plain if not unicodedata.combining(c))


def _given_and_worded_family(first: Token, last: Token, middle: list[Token]) -> bool:
    """A given name that is no common word or place, then a family name that is also an
    English word, capitalised as a name is (``John Brown``, ``Sarah King``): many family
    names are words, and a given name before one makes it a name (``Georgia Power`` and
    ``Will Power`` open with a place and a word)."""
    word, key, flags = last[2], last[3], last[4]
    return (
        not middle
        and first[4] & (GIVEN | COMMON | PLACE) == GIVEN
        and bool(flags & FAMILY)
        and word[1:].islower()
        and key not in _NEVER_FAMILY
        and key not in _FIRM_RELATIONS
    )


def _family(context: Context, token: Token) -> bool:
    """Whether a word can end a personal name: a name word, or a proper word that is no
    place (``Pryce``), or of a family name's form (``O'Neill``, ``McAllister``, ``-wicz``)."""
    _, _, word, key, flags = token
    if flags & COMMON or len(key) < 2 or key in _NEVER_FAMILY:
        return False
    if flags & NAME:
        return True
    if key.startswith(_FAMILY_PREFIXES) and len(key) > 4 and word[-1].islower():
        return True
    if key.endswith(_FAMILY_SUFFIXES) and len(key) > 5:
        return True
    return not flags & PLACE and word[1:].islower() and proper(context, key)


def _single(context: Context, token: Token, previous: str, head: str) -> None:
    """One proper word: a person when coordinated with another name (``Torpy and Salinas``),
    addressed (``Aloisia, can I...``), speaking (``Kenji: done``) or a given name in the
    middle of a sentence (``ask Bea whether``); a firm when it joins two family names
    (``Weber-Santana``)."""
    start, end, word, _, flags = token
    if previous not in words.PLACE_PREPOSITIONS and _coordinated(context, token, head):
        return
    if flags & (GIVEN | COMMON | PLACE) == GIVEN and _shares_a_family_name(context, end):
        context.person([token])
        return
    if flags & GIVEN and not flags & (COMMON | PLACE) and _inverted(context, start, end):
        return
    opening = at_sentence_start(context.text, start)
    if (opening and flags & NAME and head.startswith(_VOCATIVE)) or (
        flags & GIVEN and word[1:].islower() and _speaks_or_is_told(context, token, opening)
    ):
        context.person([token])
        return
    parts = word.split("-")
    if len(parts) == 2 and not opening and all(context.flag(p) == FAMILY for p in parts):
        context.organization((start, end))


def _inverted(context: Context, start: int, end: int) -> bool:
    """Record ``ROE, Jane``, ``Roe, Jane`` or ``Nguyen, Thi Lan`` (a directory's or a form's
    order: the family name, a comma, the given names) as one person, when the word before the
    comma is a family name and no common word or place; one that is also a given name
    (``Smith, John``) only where a record's field ends after it (``Sheila, Donna and Mary``
    are three, ``I told Riley, Sam would call`` two). The caller has checked that the words
    after are given names."""
    before = _FAMILY_COMMA.search(context.text, max(0, start - 40), start)
    if before is None:
        return False
    written, family = before.group(1), context.flag(before.group(1))
    if not family & FAMILY or family & (COMMON | PLACE):
        return False
    if any(p[0] < before.start(1) < p[1] for p in context.persons):
        return False  # it ends a full name: a list, "Mohammed Al-Farsi, Chloé Dubois"
    if family & GIVEN and not written.isupper() and not _FIELD_ENDS.match(context.text, end):
        return False  # "escalated by Morgan, Priya approved it": two persons
    context.widen_person((before.start(1), end))  # the family name may be found alone already
    return True


def _coordinated(context: Context, token: Token, head: str) -> bool:
    """Record two single name words joined by ``and`` as two persons."""
    other = _COORDINATED.match(context.text, token[1])
    if other is None or any(
        head[other.end() - token[1] :].startswith(f) for f in _ABBREVIATED_FIRM
    ):
        return False
    first, second = token[4], context.flag(other.group(1))
    if second & COMMON or not (first | second) & NAME or first & second & PLACE:
        return False
    context.person([token])
    context.person([(other.start(1), other.end(1), other.group(1), "", second)])
    return True


def _shares_a_family_name(context: Context, end: int) -> bool:
    """Whether a given name ending at ``end`` is joined by ``and`` to another given name and
    the family name they share (``Dwayne and Latoya Jackson``)."""
    other = _SHARED_FAMILY.match(context.text, end)
    if other is None:
        return False
    given, family = context.flag(other.group(1)), context.flag(other.group(2))
    return given & (GIVEN | COMMON) == GIVEN and family & (FAMILY | COMMON) == FAMILY


def _speaks_or_is_told(context: Context, token: Token, opening: bool) -> bool:
    """A given name as a speaker's label (``Kenji: done``), or inside a sentence after a word
    in lower case that is no article or preposition (``ask Bea whether``)."""
    text, start = context.text, token[0]
    if text[token[1] : token[1] + 1] == ":":
        return start == 0 or text[start - 1] == "\n"
    if opening or token[4] & PLACE or start < 2 or text[start - 1] != " ":
        return False
    if not text[start - 2].islower() or text[token[1] + 1 : token[1] + 2].isupper():
        return False
    previous = text[max(0, start - 16) : start - 1].rpartition(" ")[2].lower()
    return previous not in _NOT_BEFORE_A_NAME and _in_a_sentence(text, start)


def _organization(context: Context, tokens: list[Token], head: str) -> bool:
    """Record the run as an organisation when it ends in a legal form (``Healthpocket Inc``),
    in an organisation noun after a proper word (``Streetcred Software``), maybe followed
    by its city (``Trinity College Dublin``), or joins two capitalised words with ``&``
    (``Vellum & Pike``) one of them proper."""
    last, end = tokens[-1], tokens[-1][1]
    if len(tokens) > 2 and last[4] & PLACE and tokens[-2][3] in words.INSTITUTIONS:
        last = tokens[-2]  # the city after an institution's noun, "University College London"
    legal = _legal_form_after(head)
    if legal:
        end += legal.end()
    elif len(tokens) > 1 and last[2] in words.CAPITAL_FORMS:
        pass  # "AS", "AG": a period after one ends the sentence
    elif len(tokens) > 1 and last[3] in words.LEGAL_FORMS:
        end += context.text[end : end + 1] == "."  # "Ltd.", "Inc.": the abbreviation's
    elif not (
        len(tokens) > 1
        and (last[3] in words.ORGANIZATION_NOUNS or any(t[3] == "&" for t in tokens[1:-1]))
        and not all(t[2].isupper() for t in tokens)
    ):
        return False
    # Checked last: most runs end in no legal form or organisation noun at all.
    if not any(proper(context, t[3]) for t in tokens) or _numbered(context, tokens):
        return False
    context.organization((_firm_start(context, tokens), end))
    return True


def _registered(context: Context, tokens: list[Token], head: str) -> bool:
    """Record the run as an organisation when it ends in a registered company's abbreviated
    form after capitalised words, common ones too (``Golden Harvest Ltd``, ``Bright Horizons
    Inc.``): only an opening article, greeting or cue word is left out."""
    if tokens[-1][3] not in words.REGISTERED_FORMS or not tokens[-1][2][:1].isupper():
        return False
    index = 0
    while index < len(tokens) - 1 and (
        tokens[index][3] in _OPENERS or _CONTRACTION.fullmatch(tokens[index][3])
    ):
        index += 1
    firm = tokens[index:]
    if len(firm) < 2 or all(t[2].isupper() for t in firm) or firm[0][3] in _NOT_A_FIRM:
        return False
    end = firm[-1][1] + (context.text[firm[-1][1] : firm[-1][1] + 1] == ".")
    context.organization((_firm_start(context, firm), end))
    return True


def _firm_start(context: Context, tokens: list[Token]) -> int:
    """Where a firm's name starts: with the partners' names listed before one that joins two
    with ``&`` or ``and`` (``Goldberg, Stein & Ortiz``, ``Johnson, Lee and Patel LLP``)."""
    start = tokens[0][0]
    if any(t[3] in ("&", "and") for t in tokens[1:-1]):
        return _partners_before(context, start)
    return start


def _numbered(context: Context, tokens: list[Token]) -> bool:
    """Whether a house number (no year) comes right before a run that ends in an organisation
    noun: a street of that name (``149 Monika Union``), not a firm."""
    if tokens[-1][3] not in words.ORGANIZATION_NOUNS:
        return False
    before = context.text[max(0, tokens[0][0] - 6) : tokens[0][0]].rstrip().rpartition(" ")[2]
    return before.isdigit() and _YEAR.fullmatch(before) is None


def _partners_before(context: Context, start: int) -> int:
    """Where a firm named ``X & Y`` starts when partners' family names are listed before it
    (``Goldberg, Stein & Ortiz``); a common word there opens the sentence instead (``Thanks,
    Smith & Wesson``)."""
    listed = _LISTED_BEFORE.search(context.text, max(0, start - 80), start)
    if listed is None:
        return start
    names = context.text[listed.start() : start].split(", ")[:-1]
    if all(proper(context, name) and name.lower() not in words.GREETINGS for name in names):
        return listed.start()
    return start


def _named_place(context: Context, tokens: list[Token]) -> bool:
    """Record an organisation noun, ``of`` and a proper word or a place as an organisation
    (``University of Leeds``, ``The Bank of Valletta``); after a public body's noun the words
    may be common ones (``Ministry of Health``, ``Department of Education``)."""
    if len(tokens) > 3 and tokens[0][3] in words.DETERMINERS:
        tokens = tokens[1:]
    if len(tokens) < 3 or tokens[1][3] != "of" or tokens[0][3] not in words.ORGANIZATION_NOUNS:
        return False
    if tokens[0][3] in words.INSTITUTIONS:
        if any(t[2].isupper() for t in tokens[2:]):
            return False  # a heading: "Department of FINANCE"
    elif not any(proper(context, t[3]) for t in tokens[2:]):
        return False
    context.organization((tokens[0][0], tokens[-1][1]))
    return True


def _based(context: Context, tokens: list[Token]) -> bool:
    """Record the words after a place's ``-based`` as an organisation (``Berlin-based
    Nexaro``, ``a Leeds-based Brightwave Analytics``): people are said to live somewhere."""
    if len(tokens) < 2 or not tokens[0][3].endswith("-based") or tokens[1][3] in _OPENERS:
        return False
    context.organization((tokens[1][0], tokens[-1][1]))
    return True


def _institution(context: Context, tokens: list[Token]) -> bool:
    """Record capitalised words that end in a public body's or an institution's noun as an
    organisation, common words as they may be: after ``the`` (``the European Central Bank``,
    ``The Data Protection Authority``), or with the city after the noun (``University College
    Dublin``). No heading in capitals, no person's post among them, two words at least."""
    if tokens[0][3] == "the":
        tokens = tokens[1:]
        after_the = True
    else:
        before = context.text[max(0, tokens[0][0] - 4) : tokens[0][0]]
        after_the = before.lower().endswith("the ")
    if len(tokens) < 2:
        return False
    if len(tokens) > 2 and tokens[-1][4] & PLACE and tokens[-2][3] in words.INSTITUTIONS:
        noun = tokens[-2]  # the city after the noun names the body: "University College Dublin"
    elif after_the:
        noun = tokens[-1]
    else:
        return False
    if noun[3] not in words.INSTITUTIONS or noun is tokens[0]:
        return False
    if any(t[2].isupper() for t in tokens) or any(t[3] in _PEOPLES_WORDS for t in tokens):
        return False
    context.organization((tokens[0][0], tokens[-1][1]))
    return True


def _in_a_sentence(text: str, start: int) -> bool:
    """Whether the line around ``start`` reads as a sentence: three words in lower case or
    more, and no digit (an address line is none)."""
    low = max(text.rfind("\n", max(0, start - 120), start) + 1, start - 120, 0)
    high = text.find("\n", start, start + 120)
    line = text[low : start + 120 if high < 0 else high]
    return not any(c.isdigit() for c in line) and len(_SENTENCE_WORDS.findall(line)) >= 3
