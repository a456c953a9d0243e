"""More ways text names an organisation with no legal form: a public body's common words
after ``the`` or before its city, a firm said to be based somewhere, the people who work for
it, the plural a collective takes, a description after a comma, and, in lower case, a listed
company or a firm's trade after its own word; and the same shapes that name none."""

from __future__ import annotations

import pytest
from names_support import names

from rag_guard_integrations.classify.recognizers.known_organizations import lower_case_listed


@pytest.mark.parametrize(
    ("text", "organization"),
    [
        ("The Financial Conduct Authority opened an inquiry.", "Financial Conduct Authority"),
        ("Rates were held by the Swiss National Bank on Thursday.", "Swiss National Bank"),
        ("She applied to the Royal Horticultural Society in May.", "Royal Horticultural Society"),
        ("He lectures at Technical University Munich now.", "Technical University Munich"),
        ("The Salvation Army runs a soup kitchen on Tuesdays.", "Salvation Army"),
        ("Donations to the Woodland Trust rose again.", "Woodland Trust"),
        ("The Premier League fined both sides.", "Premier League"),
    ],
)
def test_a_public_bodys_common_words_name_it_after_the_or_before_its_city(
    text: str, organization: str
) -> None:
    """Common words ending in an institution's noun, after ``the`` or with the city after."""
    assert organization in names(text)[1]


@pytest.mark.parametrize(
    "text",
    [
        "The Customer Service team will call you back.",
        "Give the Board of Directors a week.",
        "Financial Management will be billed monthly by the Vendor.",
        "The Student Council meets on Fridays.",
        "The Disclosing Party shall notify the Receiving Party.",
        "Book Club starts at six in the library.",
    ],
)
def test_common_words_before_a_noun_that_is_no_body_name_none(text: str) -> None:
    """A team, a board, a defined term, a students' body: no institution's noun, or a
    person's role among the words."""
    assert names(text)[1] == []


@pytest.mark.parametrize(
    ("text", "organization"),
    [
        ("Lisbon-based Veltrix, led by Ana Sousa, raised a seed round.", "Veltrix"),
        ("A former Korvana engineer told us the story.", "Korvana"),
        ("Dravonix drivers stopped work at noon.", "Dravonix"),
        ("Pelloria have announced a second tour date.", "Pelloria"),
        ("We tried Snippo, an app that splits bills.", "Snippo"),
        ("Talvera, founded by Mia Kraus, makes bikes.", "Talvera"),
    ],
)
def test_where_it_is_based_who_works_for_it_and_what_it_does_name_a_firm(
    text: str, organization: str
) -> None:
    """``X-based``, ``a former X engineer``, ``X drivers``, ``X have announced``, ``X, an
    app``, ``X, founded by``."""
    assert organization in names(text)[1]


def test_a_persons_fans_and_a_person_said_to_be_somewhere_stay_persons() -> None:
    """A full name before ``fans`` is the person's; so is one before a plural verb."""
    assert names("Taylor Swift fans queued all night.") == (["Taylor Swift"], [])
    assert names("Jane Roe have been informed.")[1] == []


@pytest.mark.parametrize(
    ("text", "organization"),
    [
        ("ordered trainers from zalando last week", "zalando"),
        ("my card from deutsche bank stopped working", "deutsche bank"),
        ("please forward this to korvane freight by friday", "korvane freight"),
        ("the invoice from dralmo ltd is wrong", "dralmo ltd"),
    ],
)
def test_in_lower_case_a_listed_company_or_a_firms_trade_names_it(
    text: str, organization: str
) -> None:
    """A listed company's name, or a word the names table lacks before a trade or legal form."""
    assert organization in names(text)[1]


@pytest.mark.parametrize(
    "text",
    [
        "that was the best buy of the year",
        "write to jo@netflix.com or visit netflix.com",
        "i recieved services from them yesterday",
        "the general electric heater broke",
    ],
)
def test_in_lower_case_common_words_addresses_and_typos_name_none(text: str) -> None:
    """A listed name of common words only, a name inside an address, a misspelt word before a
    generic noun."""
    assert names(text)[1] == []
    assert lower_case_listed(text) == ()


@pytest.mark.parametrize(
    ("text", "organization"),
    [
        ("Nets practice at Pembroke Cricket Club is cancelled tonight.", "Pembroke Cricket Club"),
        ("The interview aired on Dunmore Radio last night.", "Dunmore Radio"),
        ("The review ran in the Dunmore Gazette on Sunday.", "Dunmore Gazette"),
    ],
)
def test_a_clubs_a_broadcasters_or_a_papers_noun_after_a_proper_word_names_it(
    text: str, organization: str
) -> None:
    """Clubs, leagues, cafés, newspapers and broadcasters end their names in their noun, as
    firms do in ``Software`` or ``Bank``."""
    assert organization in names(text)[1]
