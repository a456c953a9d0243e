"""Values written to slip past a scraper but not a reader: letters for digits inside a number
(``4lll llll``, ``l23-45-6789``, ``37O4``), read with them as digits, and an address with its
``@`` and dots spelled out. Words beside numbers (``2019 oil``, ``io 12``), a table's ``|``
and a plain ``at`` before a site stay what they are."""

from __future__ import annotations

import pytest

from rag_guard_integrations import Guard
from rag_guard_integrations.classify.pattern import PatternClassifier

pytestmark = pytest.mark.unit

CLASSIFIER = PatternClassifier(cache_size=0)


def found(text: str) -> list[tuple[str, str]]:
    return [(f.recognizer, text[f.start : f.end]) for f in CLASSIFIER.classify(text).findings]


@pytest.mark.parametrize(
    ("text", "recognizer", "value"),
    [
        ("Card 4lll llll llll llll on file", "credit_card", "4lll llll llll llll"),
        ("Card 4III IIII IIII IIII on file", "credit_card", "4III IIII IIII IIII"),
        ("Amex 3782 822463 1OOO5 on file", "credit_card", "3782 822463 1OOO5"),
        (
            "Amex 3782 822463 1\u041e\u041e\u041e5 (Cyrillic O)",
            "credit_card",
            "3782 822463 1\u041e\u041e\u041e5",
        ),
        ("SSN l23-45-6789 on record", "us_ssn", "l23-45-6789"),
        ("IBAN DE89 37O4 OO44 O532 O13O OO please", "iban", "DE89 37O4 OO44 O532 O13O OO"),
    ],
)
def test_a_number_with_letters_for_digits_is_found(text: str, recognizer: str, value: str) -> None:
    """``l`` and ``I`` read as 1, ``O`` (any script's) as 0, where they touch a digit in a run
    long enough to be a number; the span is the text as written."""
    assert (recognizer, value) in found(text)


@pytest.mark.parametrize(
    "text",
    [
        "In 2019 oil prices rose by 12 percent.",
        "| 19.253.176.22 | 10.0.0.1 |",
        "Flight lo-fi 2 io 12 left at 9.",
    ],
)
def test_words_beside_numbers_and_table_borders_are_no_digits(text: str) -> None:
    """Look-alikes are read as digits only inside a run of nine or more that a digit touches,
    and ``|`` never is."""
    assert [v for _, v in found(text) if set(v) & set("lIioO|")] == []


def test_the_default_pack_withholds_a_cardholders_card_written_with_letters() -> None:
    """``Cardholder Jane Roe, card number 4lll llll llll llll`` reaches no model."""
    text = "Cardholder Jane Roe, card number 4lll llll llll llll."
    result = Guard.from_policy("default").check("Which card is on file?", [{"text": text}])
    assert "default_cardholder" in {v.rule for v in result.violations}
    assert result.allowed == []


@pytest.mark.parametrize(
    "text",
    [
        "Write to jo [at] example [dot] com today.",
        "Write to jo(at)example.com today.",
        "Write to JO AT EXAMPLE DOT COM today.",
        "Write to jo{at}example{dot}co{dot}uk today.",
        "Write to jo%40example.com today.",
    ],
)
def test_an_address_with_its_at_and_dots_spelled_out_is_an_address(text: str) -> None:
    """A reader takes ``jo [at] example [dot] com`` for the address; so does the recogniser."""
    assert [r for r, _ in found(text)] == ["email"]


@pytest.mark.parametrize(
    "text", ["Sign up at example.com today.", "Look at the data dot com bubble."]
)
def test_a_plain_at_before_a_site_is_no_address(text: str) -> None:
    """A plain ``at`` counts only with a spelled-out ``dot``: a site named after it is none."""
    assert found(text) == []


@pytest.mark.parametrize("separator", [",", " | ", "** **", "\n", " - ", "</td><td>", " · "])
def test_letters_for_digits_apart_by_a_cards_group_breaks_are_read(separator: str) -> None:
    """The look-alike reading joins groups as a card's groups may be joined."""
    text = "Card " + separator.join(["4lll", "llll", "llll", "llll"]) + " on file"
    assert "credit_card" in {r for r, _ in found(text)}


@pytest.mark.parametrize(
    "text", ["They aimed at red dot sights.", "The lab was founded at Bell dot labs."]
)
def test_a_plain_at_and_dot_need_a_common_top_level_domain(text: str) -> None:
    """``X at Y dot Z`` is an address only when ``Z`` is a common top-level domain."""
    assert found(text) == []
