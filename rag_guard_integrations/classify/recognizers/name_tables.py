"""Names in a table written as text (a CSV or TSV export, a pasted spreadsheet): the cells
under a header that names a person's or an organisation's column (``first_name``,
``Surname``, ``employer``), which a table's layout gives no sentence to judge by. A cell
counts when it is written as a name is (each word capitalised, no word in capitals but a
firm's acronym) and is no placeholder: a person's holds no common word and, when it is one
word, one of the names table (``Vacant``, ``Finance Team``, ``TBD`` are none); a firm's is no
single common word (``Cash``, ``Retired``, ``Self-employed``).

Example:
    >>> text = "id,first_name,last_name,employer\\n4471,Arjun,Mehta,Infosys\\n4472,Thi Ha,Pham,"
    >>> persons, organizations = table_names(text)
    >>> [text[s:e] for s, e in persons], [text[s:e] for s, e in organizations]
    (['Arjun', 'Mehta', 'Thi Ha', 'Pham'], ['Infosys'])
    >>> table_names("name,amount\\nRefund,12.50")  # "name" alone may be a product's
    ((), ())
    >>> table_names("owner,company\\nUnassigned,Cash\\nTBD,Retired")
    ((), ())
"""

from __future__ import annotations

import re

from rag_guard_integrations.classify.recognizers import name_words as words
from rag_guard_integrations.classify.recognizers.names_table import COMMON, NAME, word_flags

Span = tuple[int, int]

_DELIMITERS = (",", "\t", ";", "|")
# A header cell: a field's name, as exports write one (letters, digits, spaces, _ and -).
_FIELD = re.compile(r"[^\W\d_][\w -]{0,40}")
_PERSON_FIELDS = frozenset(
    {
        "fullname", "firstname", "givenname", "forename", "forenames", "middlename",
        "lastname", "surname", "familyname", "customer", "customername", "client",
        "clientname", "contact", "contactname", "employee", "employeename", "patient",
        "patientname", "accountholder", "cardholder", "holder", "holdername", "owner",
        "ownername", "guest", "guestname", "passenger", "passengername", "applicant",
        "student", "studentname", "member", "membername", "manager", "assignee", "reporter",
        "agent", "agentname", "author", "recipient", "recipientname", "nextofkin",
    }
)  # fmt: skip
_ORGANIZATION_FIELDS = frozenset(
    {
        "company", "companyname", "employer", "organisation", "organization", "org",
        "orgname", "organisationname", "organizationname", "firm", "business",
        "businessname", "bank", "insurer", "school", "university", "supplier", "vendor",
        "vendorname", "suppliername", "accountname", "merchant", "merchantname",
    }
)  # fmt: skip
# A cell that can hold a name: letters first, then letters, marks, spaces, ' . - &; no digit.
_NAME_CELL = re.compile(r"[^\W\d_][^\W\d_ '’.&-]*(?:[ '’.&-]+[^\W\d_][^\W\d_'’.&-]*){0,6}\.?")
_MAX_CELL = 80


def table_names(text: str) -> tuple[tuple[Span, ...], tuple[Span, ...]]:
    """The person and organisation cells of every table in ``text``: a header line of two or
    more field names split by one delimiter (``,``, a tab, ``;`` or ``|``), at least one of
    them a person's or an organisation's field, then the rows below it with as many cells."""
    if "\n" not in text:
        return (), ()
    persons: list[Span] = []
    organizations: list[Span] = []
    lines = _lines(text)
    index = 0
    while index < len(lines):
        header = _header(text, *lines[index])
        if header is None:
            index += 1
            continue
        delimiter, kinds = header
        index += 1
        while index < len(lines):
            cells = _cells(text, *lines[index], delimiter)
            if len(cells) != len(kinds):
                break  # the table ends: the next line may be another table's header
            for (start, end), kind in zip(cells, kinds, strict=True):
                if kind == "person" and _person_cell(text[start:end]):
                    persons.append((start, end))
                elif kind == "organization" and _firm_cell(text[start:end]):
                    organizations.append((start, end))
            index += 1
    return tuple(persons), tuple(organizations)


def _lines(text: str) -> list[Span]:
    out: list[Span] = []
    start = 0
    for line in text.split("\n"):
        out.append((start, start + len(line.rstrip("\r"))))
        start += len(line) + 1
    return out


def _header(text: str, start: int, end: int) -> tuple[str, list[str | None]] | None:
    """The delimiter and each column's kind (``person``, ``organization`` or None) of a
    header line, or None when the line is no header naming a person's or a firm's column."""
    line = text[start:end]
    for delimiter in _DELIMITERS:
        if delimiter not in line:
            continue
        fields = [field.strip().strip('"') for field in line.split(delimiter)]
        if len(fields) < 2 or not all(_FIELD.fullmatch(field) for field in fields):
            continue
        kinds = [_kind(field) for field in fields]
        if any(kinds):
            return delimiter, kinds
    return None


def _kind(field: str) -> str | None:
    key = re.sub(r"[\s_-]+", "", field.lower())
    if key in _PERSON_FIELDS:
        return "person"
    if key in _ORGANIZATION_FIELDS:
        return "organization"
    return None


def _cells(text: str, start: int, end: int, delimiter: str) -> list[Span]:
    """The spans of a row's cells, each without the spaces and quotes around it."""
    cells: list[Span] = []
    position = start
    while True:
        stop = text.find(delimiter, position, end)
        cell_end = end if stop < 0 else stop
        low, high = position, cell_end
        while low < high and text[low] in ' "\t':
            low += 1
        while high > low and text[high - 1] in ' "\t':
            high -= 1
        cells.append((low, high))
        if stop < 0:
            return cells
        position = stop + 1


def _person_cell(cell: str) -> bool:
    words = _written_as_name(cell)
    if not words or any(word.isupper() and len(word) > 1 for word in words):
        return False
    flags = [_flags(word) for word in words]
    if any(flag & COMMON and not flag & NAME for flag in flags):
        return False
    return len(words) > 1 or (bool(flags[0] & NAME) and not flags[0] & COMMON)


def _firm_cell(cell: str) -> bool:
    words = _written_as_name(cell)
    return bool(words) and (len(words) > 1 or not _flags(words[0]) & COMMON)


def _written_as_name(cell: str) -> list[str]:
    """The words of a cell that can hold a name, each capitalised but the joiners between
    (``van``, ``de``, ``of``, ``&``); none when it cannot."""
    if not 0 < len(cell) <= _MAX_CELL or _NAME_CELL.fullmatch(cell) is None:
        return []
    words = cell.split()
    if any(not word[:1].isupper() and word.lower() not in _JOINERS for word in words):
        return []
    return [word for word in words if word.lower() not in _JOINERS]


def _flags(word: str) -> int:
    """The names-table flags of a word; a hyphened one has those of its first part as well."""
    key = word.lower().strip(".'’")
    flags = word_flags()
    return flags.get(key, 0) | (flags.get(key.partition("-")[0], 0) if "-" in key else 0)


# The lower-case words a name's cell may hold: a personal name's particles, a firm's joiners.
_JOINERS = words.PARTICLES | {"of", "and", "&", "the", "for", "y", "e"}
