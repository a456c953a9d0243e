"""Names as records write them: family names that are also English words (Brown, King,
Green) after a given name, and a name followed by the next field's name (``Jane Roe SSN``),
so the rules that pair a person with a card, an id or a diagnosis fire."""

from __future__ import annotations

import pytest
from names_support import persons

from rag_guard_integrations import Guard
from rag_guard_integrations.classify.recognizers.proper_names import find_names


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Cardholder: John Brown", "John Brown"),
        ("Employee: Sarah King", "Sarah King"),
        ("I spoke with Michael White today.", "Michael White"),
        ("Emma Young called back.", "Emma Young"),
        ("From: Peter Green <peter.green@example.com>", "Peter Green"),
    ],
)
def test_a_given_name_before_a_worded_family_name_is_a_person(text: str, name: str) -> None:
    """A given name that is no word or place makes the word after it a family name."""
    assert persons(text) == [name]


@pytest.mark.parametrize(
    "text",
    [
        "Will Power is a film.",
        "Georgia Power raised its rates.",
        "Grace Hill Road is closed.",
        "Victoria Station was busy.",
        "I ordered spare parts from Okonkwo Brothers last month.",
        "Mark Down the price.",
    ],
)
def test_words_places_and_firm_relations_make_no_person(text: str) -> None:
    """A first word that is itself a word or a place, a street or station word, and a
    family firm's relation (Brothers, Sons) keep the run from being a person."""
    assert persons(text) == []


def test_a_card_beside_a_worded_family_name_is_withheld() -> None:
    """The cardholder rule fires on ``John Brown`` as it does on ``John Roe``."""
    text = "Cardholder: John Brown\nCard: 4111 1111 1111 1111"
    result = Guard.from_policy("default").check("Summarise the account.", [{"text": text}])
    assert "default_cardholder" in {v.rule for v in result.violations}
    assert result.allowed == []


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Jane Roe SSN 078-05-1120", "Jane Roe"),
        ("Cardholder: Jane Roe VISA 4111 1111 1111 1111", "Jane Roe"),
        ("Jane Roe Card 4111 1111 1111 1111", "Jane Roe"),
        ("Jane Roe Diagnosed with diabetes", "Jane Roe"),
    ],
)
def test_a_field_name_after_a_name_leaves_the_name(text: str, name: str) -> None:
    """An acronym or a capitalised common word that opens the next field of a record ends
    the name before it."""
    assert persons(text) == [name]


def test_a_firm_word_after_a_name_keeps_the_firm() -> None:
    """``Foundation`` after a name is the firm's own word, not a field."""
    text = "Grants from the Jane Roe Foundation rose."
    assert persons(text) == []
    assert [text[s:e] for s, e in find_names(text).organizations] == ["Jane Roe Foundation"]


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Name on card: JANE ROE\nNumber: 4111 1111 1111 1111", "JANE ROE"),
        ("4111111111111111|04/27|123|JANE ROE", "JANE ROE"),
        ("cust_name=Jane_Roe card_no=4111111111111111", "Jane_Roe"),
        ("pan=4111111111111111&name=Jane+Roe", "Jane+Roe"),
    ],
)
def test_a_name_in_capitals_or_joined_into_a_field_is_a_person(text: str, name: str) -> None:
    """Cards and forms print names in capitals; fields join them with ``_`` or ``+``."""
    assert persons(text) == [name]
    result = Guard.from_policy("default").check("Summarise the account.", [{"text": text}])
    assert "default_cardholder" in {v.rule for v in result.violations}


@pytest.mark.parametrize(
    "text",
    ["TERMS AND CONDITIONS APPLY", "PSC 1234, BOX 5678, APO AP 96201", "IBM SSN RESET"],
)
def test_headings_codes_and_acronyms_in_capitals_name_nobody(text: str) -> None:
    """Capitals alone are no name: two name words of three letters or more must stand there."""
    assert persons(text) == []


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("jane roe card 4111 1111 1111 1111", ["jane roe"]),
        ("i met maria garcia yesterday", ["maria garcia"]),
        ("will smith was on tv", []),  # "will" is a word
        ("we stayed at the paris hilton", []),  # "paris" is a place
    ],
)
def test_a_full_name_in_lower_case_text_is_a_person(text: str, found: list[str]) -> None:
    """Chat and logs write names in lower case: a given and a family name that are no common
    word or place are still a person's."""
    assert persons(text) == found


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("ROE, Jane - card 4111 1111 1111 1111", ["ROE, Jane"]),
        ("Employee: Roe, Jane", ["Roe, Jane"]),
        ("Cardholder ROE, Jane", ["ROE, Jane"]),  # a field's name before it, no colon
        ("Thanks, Maria", ["Maria"]),  # a word before the comma: the given name alone
    ],
)
def test_a_family_name_then_a_comma_then_a_given_name_is_one_person(
    text: str, found: list[str]
) -> None:
    """Directories and forms write the family name first: ``ROE, Jane`` is one name."""
    assert persons(text) == found


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("Smith, John (DOB 1980) was admitted on 3 May.", ["Smith, John"]),
        ("Parker, Lucy\tExt 4411", ["Parker, Lucy"]),
        ("Attendees: Smith, John; Patel, Priya.", ["Smith, John", "Patel, Priya"]),
        ("Name: Garcia, Maria Elena (DOB 1980)", ["Garcia, Maria Elena"]),
        ("Nguyen, Thi Lan", ["Nguyen, Thi Lan"]),
        ("Sheila, Donna and Mary came.", ["Sheila", "Donna", "Mary"]),  # a list goes on
        ("Riku Andou, Jeremy Hartmann and Impi Nummelin", ["Riku Andou", "Jeremy Hartmann"]),
    ],
)
def test_a_family_name_that_is_also_a_given_name_leads_a_name_where_a_field_ends(
    text: str, found: list[str]
) -> None:
    """``Smith`` and ``Patel`` are given names too: before a comma and a given name they are
    a family name where a record's field ends after them, unless the word before them ends
    another name."""
    assert persons(text)[: len(found)] == found


@pytest.mark.parametrize(
    "text", ["escalated by Morgan, Priya approved it", "after Taylor, Kim is next in line"]
)
def test_two_given_names_around_a_comma_in_a_sentence_are_not_one_name(text: str) -> None:
    """In running text ``Morgan, Priya approved`` is two people, never ``Morgan, Priya``."""
    assert not any(", " in found for found in persons(text))


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Nguyễn Văn An called about the refund.", "Nguyễn Văn An"),
        ("Customer Trần Thị Mai paid the invoice.", "Trần Thị Mai"),
        ("Le Van Thanh signed the form.", "Le Van Thanh"),
        ("Đặng Văn An called twice.", "Đặng Văn An"),  # a mark the plain reading keeps
        ("Lê Thị Hồng Nhung works here.", "Lê Thị Hồng Nhung"),
    ],
)
def test_a_vietnamese_family_and_middle_name_open_a_person(text: str, name: str) -> None:
    """A Vietnamese name opens with its family name and a marking middle name (``Văn``,
    ``Thị``); its last word may be a common word elsewhere (``An``, ``Mai``)."""
    assert persons(text) == [name]


@pytest.mark.parametrize(
    "text",
    [
        "Do Van Morrison songs play.",
        "Ho Chi Minh City is large.",
        "We live on Nguyen Van Linh street.",
    ],
)
def test_an_english_word_or_a_street_makes_no_vietnamese_name(
    text: str,
) -> None:
    """``Do`` and ``Ho`` are words: without Vietnamese marks they open no name; a name that
    goes on as a street's is the street."""
    assert persons(text) == []
