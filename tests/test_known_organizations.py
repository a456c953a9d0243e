"""Listed companies named with no cue around them: a run that is exactly a listed company's
name is an organisation; a listed name that is also a person's name, a common word or a place
is left to the rules that read the words around it; the shipped table is what its generator
builds from the installed packages."""

from __future__ import annotations

from pathlib import Path

import pytest
from names_support import names
from tools_support import tool_module

from rag_guard_integrations.classify.recognizers import known_organizations


@pytest.mark.parametrize(
    ("text", "organization"),
    [
        ("Can't believe Amazon lost my parcel again.", "Amazon"),
        ("Allianz confirms receipt of the travel insurance claim.", "Allianz"),
        ("Your mortgage application with Barclays has been approved.", "Barclays"),
        ("Has anyone noticed Airbnb's cleaning fees going up?", "Airbnb"),
        ("The deal was advised by Goldman Sachs and closed in May.", "Goldman Sachs"),
        ("IBM agrees that, for a period of two years, it will not solicit.", "IBM"),
    ],
)
def test_a_listed_companys_name_alone_is_an_organisation(text: str, organization: str) -> None:
    """No legal form, organisation noun or context phrase is needed for a listed name."""
    assert names(text)[1] == [organization]


def test_a_listed_name_inside_a_persons_name_stays_the_persons() -> None:
    """``Maria Lopez`` is a person beside ``Goldman Sachs``, not part of a firm."""
    assert names("Goldman Sachs hired Maria Lopez last year.") == (
        ["Maria Lopez"],
        ["Goldman Sachs"],
    )


@pytest.mark.parametrize(
    "text",
    [
        "Ford said the results would come on Friday.",  # a family name too
        "Shell out the money before Target day.",  # common words, left out by the tool
        "The Investor shall pay the Purchase Price.",  # an English word, left out by the tool
    ],
)
def test_a_listed_name_that_reads_as_something_else_is_no_organisation_alone(text: str) -> None:
    """Names, common words and places need the cues the other rules read."""
    assert names(text)[1] == []


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("She is a former Apple engineer.", (["Apple"], [])),  # a given name too
        ("Aviva customers can claim online.", (["Aviva"], [])),
        ("Jane Apple works here.", ([], ["Jane Apple"])),  # a person's name holds it
        ("Apple pie recipes from Grandma.", ([], [])),  # no word of a firm's around it
    ],
)
def test_a_listed_name_that_reads_as_something_else_is_the_firm_a_cue_names(
    text: str, found: tuple[list[str], list[str]]
) -> None:
    """A word after it that says a firm's (``engineer``, ``customers``) names the listed
    company, even when its name is also a given name or a common word."""
    organizations, persons = found
    assert names(text) == (persons, organizations)


def test_the_table_keeps_one_word_names_only_when_nothing_else_reads_the_same() -> None:
    """Listed one-word names that the names table flags, or that a rule reads as a title or a
    month, are not known alone; names of several words are."""
    listed = set(known_organizations.listed_names())
    known = known_organizations.known_organizations()
    assert {"Apple", "Bayer"} <= listed
    assert not {"Apple", "Bayer"} & known
    assert {"Allianz", "Airbnb", "Goldman Sachs", "Ford Motor"} <= known


@pytest.mark.parametrize(
    ("listed", "plain"),
    [
        ("Adobe Inc.", "Adobe"),
        ("AES Corporation", "AES"),
        ("ADMA Biologics, Inc.", "ADMA Biologics"),
        ("Alphabet Inc. (Class A)", "Alphabet"),
        ("Rolls-Royce Holdings plc", "Rolls-Royce"),
        ("Group", "Group"),
    ],
)
def test_the_generator_drops_legal_forms_and_notes_from_a_listed_name(
    listed: str, plain: str
) -> None:
    """A text names ``Adobe`` more often than ``Adobe Inc.``; a name that is only a form stays."""
    assert tool_module("gen_organizations").plain_name(listed) == plain


def test_the_shipped_table_is_what_the_generator_builds() -> None:
    """``data/organizations.txt`` is up to date with the installed packages."""
    generator = tool_module("gen_organizations")
    shipped = Path(known_organizations.__file__).parent / "data" / "organizations.txt"
    assert generator.render(generator.build()) == shipped.read_text(encoding="utf-8")
