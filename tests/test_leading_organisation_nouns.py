"""Names that open with the noun of what they are, as French, Spanish, German and other
languages write them (``Hotel Kaiserhof``, ``Grupo Bimbo``, ``Institut Pasteur``): an
organisation when a proper word follows; a post at one (``Club Secretary``, ``Hotel
Receptionist``) or common words only (``Bank Holiday``) name none."""

from __future__ import annotations

import pytest
from names_support import names


@pytest.mark.parametrize(
    ("text", "organization"),
    [
        ("Your stay at Hotel Kaiserhof is confirmed for 2 nights.", "Hotel Kaiserhof"),
        ("We booked two rooms at the Hotel Miramar in Nice.", "Hotel Miramar"),
        ("He was admitted to Hospital Sant Pau on Monday.", "Hospital Sant Pau"),
        ("The match against Club Brugge ended 2-2.", "Club Brugge"),
        ("The Institut Pasteur published the study.", "Institut Pasteur"),
        ("FC Porto won again.", "FC Porto"),
        ("We landed in Vienna. Hotel Kaiserhof sent a car.", "Hotel Kaiserhof"),
    ],
)
def test_a_leading_noun_before_a_proper_word_opens_an_organisations_name(
    text: str, organization: str
) -> None:
    """No context phrase is needed: the noun says what the name is."""
    assert names(text)[1] == [organization]


def test_a_leading_noun_makes_a_firm_of_words_that_read_as_a_persons_name() -> None:
    """``Grupo Bimbo`` is a company, not a person called Bimbo."""
    assert names("She joined Grupo Bimbo as a trainee.") == ([], ["Grupo Bimbo"])


@pytest.mark.parametrize(
    "text",
    [
        "Happy Bank Holiday Monday everyone!",
        "Please book a Hotel Room for the visitors.",
        "The Hotel Receptionist will call you.",
        "Ask the Hospital Chaplain.",
        "Contact the Bank Manager today.",
        "The Oxford Street Bank Leeds branch.",
    ],
)
def test_a_leading_noun_before_common_words_a_post_or_inside_a_longer_run_names_none(
    text: str,
) -> None:
    """Common words, a person's post at the place, or a noun that is a piece of a longer
    capitalised run (a street, then a branch) open no organisation's name."""
    assert names(text)[1] == []


def test_a_post_at_a_club_leaves_the_person_named_after_it() -> None:
    """``The Club Secretary, John Smith``: one person, no organisation."""
    assert names("The Club Secretary, John Smith, will attend.") == (["John Smith"], [])


@pytest.mark.parametrize(
    ("text", "person"),
    [
        ("Hotel Manager Tom Hale resigned.", "Tom Hale"),
        ("Club Captain Ana Silva scored twice.", "Ana Silva"),
    ],
)
def test_a_post_at_a_place_before_a_name_leaves_the_person_alone(text: str, person: str) -> None:
    """A leading noun, a post, then a person's name: the person, and no firm around them."""
    assert names(text) == ([person], [])
