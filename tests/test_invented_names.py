"""Firms' invented one-word names (two common words run together, a software firm's ending)
and the words that only look like one: dictionary words, camel case, a person's family name,
a street."""

from __future__ import annotations

from importlib import resources

import pytest
from names_support import names
from tools_support import tool_module

from rag_guard_integrations.classify import PatternClassifier
from rag_guard_integrations.classify.recognizers.name_compounds import (
    compound_words,
    invented_names,
)


@pytest.mark.parametrize(
    ("text", "firm"),
    [
        ("We got a refund after Hollowfield apologised.", "Hollowfield"),
        ("Did Scoutbeam ever send over the signed NDA?", "Scoutbeam"),
        ("Has anyone used Hollowfield for screen repairs?", "Hollowfield"),
        ("Regulators questioned Scoutbeam's handling of user data.", "Scoutbeam"),
        ("We moved our payroll to Ultrasync last spring.", "Ultrasync"),
        ("Our dashboards now run on Zenlytics.", "Zenlytics"),  # a brand's ending
        ("Our status page shows Quillstack down again.", "Quillstack"),
    ],
)
def test_an_invented_name_written_alone_is_a_firm(text: str, firm: str) -> None:
    """Two common words run together, or a software firm's ending, that no dictionary or
    names table holds, with no name word or title before it, at a sentence's start or inside
    it."""
    assert firm in names(text)[1]


@pytest.mark.parametrize(
    "text",
    [
        "The Workflow section lists every Lakeside office.",  # dictionary compounds
        "PaymentService threw an error at noon.",  # camel case: code
        "Send it to 12 Hollowfield, Leeds.",  # a street after its house number
        "Mr. Hollowfield will call back.",  # a title before it
        "Our Hollowing process is patented.",  # a derived word, not two
        "Magnify the chart before you print it.",  # a dictionary word with a brand's ending
        "Open the Runbook before you page the on-call engineer.",  # a common noun: after "the"
        "Create a Subtask for each acceptance criterion.",
        "Webhooks are retried three times.",  # in the plural
        "Offboarding must revoke badge access.",  # a gerund
        "Healthcheck endpoint cost us $200 in egress.",  # opening a line: jargon as often
        "Sales of Homeware rose; Fintech startups raised more.",  # a sector's noun
        "I grew up in Lowfield before moving to Leeds.",  # a village
    ],
)
def test_words_that_only_look_invented_are_no_firm(text: str) -> None:
    """Dictionary words, code's camel case, a street, a title's name, a derived word, and the
    capitalised compound nouns of technical and office writing."""
    assert invented_names(text) == ()


@pytest.mark.parametrize(
    "text", ["Jane Tallybrook called about Scoutbeam.", "Rose Tallybrook called about Scoutbeam."]
)
def test_a_family_name_after_a_given_name_stays_the_persons(text: str) -> None:
    """Even a given name that is a common word (``Rose``) makes the word after it a
    family name."""
    persons, organizations = names(text)
    assert organizations == ["Scoutbeam"]
    assert all("Tallybrook" not in firm for firm in organizations)
    if text.startswith("Jane"):
        assert persons == ["Jane Tallybrook"]


def test_the_organization_recognizer_labels_an_invented_name() -> None:
    text = "Got a refund from Hollowfield in the end."
    result = PatternClassifier(["organization"], cache_size=0).classify(text)
    assert [(f.recognizer, text[f.start : f.end]) for f in result.findings] == [
        ("organization", "Hollowfield")
    ]


def test_the_shipped_compound_words_are_dictionary_words_that_read_as_two() -> None:
    known = compound_words()
    assert {"workflow", "lakeside", "deerskin", "magnify"} <= known
    assert not {"hollowfield", "scoutbeam", "ultrasync"} & known


@pytest.mark.integration
def test_the_shipped_compound_words_are_what_the_generator_builds() -> None:
    """``data/compound_words.txt.gz`` is up to date with the pinned spacy-lookups-data and
    the names table."""
    pytest.importorskip("spacy_lookups_data", reason="the dev extra is not installed")
    generator = tool_module("gen_compound_words")
    shipped = resources.files("rag_guard_integrations.classify.recognizers").joinpath(
        "data/compound_words.txt.gz"
    )
    assert generator.render(generator.build()) == shipped.read_bytes()
