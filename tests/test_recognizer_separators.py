"""Card, SSN and IBAN recognisers read the number however its groups are separated, and glued
to the word that names it; digit runs inside other identifiers stay apart."""

from __future__ import annotations

import pytest

from rag_guard_integrations.classify.pattern import PatternClassifier

pytestmark = pytest.mark.unit

CLASSIFIER = PatternClassifier(["credit_card", "us_ssn", "iban"], cache_size=0)


def found(text: str) -> set[str]:
    return {f.recognizer for f in CLASSIFIER.classify(text).findings}


@pytest.mark.parametrize("separator", [" ", "-", ".", "/", "_", ",", "\n", " - ", ". "])
def test_card_groups_split_by_any_usual_separator(separator: str) -> None:
    """A 4-4-4-4 card number is found whatever separates its groups."""
    number = separator.join(["5500", "0000", "0000", "0004"])
    assert found(f"Card on file: {number} (expires soon).") == {"credit_card"}


@pytest.mark.parametrize(
    "separator", ["--", " -- ", ":", " | ", "*", "+", ")(", "' '", "<br>", "<br/>", "\n\n"]
)
def test_card_groups_split_by_other_marks_or_a_tag_are_a_card(separator: str) -> None:
    """Doubled dashes, colons, bars, stars, brackets, quotes and an HTML line break between
    the groups still read as a card to a model: the recogniser reads them too."""
    number = separator.join(["5500", "0000", "0000", "0004"])
    assert found(f"Card on file: {number} (expires soon).") == {"credit_card"}


@pytest.mark.parametrize(
    "text",
    [
        "| card | 4539 1488 0343 6467 | 12/27 |",  # a table's next cell
        "1. Card 4539 1488 0343 6467\n2. Billing address",  # a list's next number
        "Card 4539 1488 0343 6467 (2)",  # a footnote
        "Card 4539 1488 0343 6467; 12 payments left",
        "Card 4539 1488 0343 6467 12 payments left",  # a number one space away
    ],
)
def test_a_card_followed_by_a_short_number_is_still_a_card(text: str) -> None:
    """The digits after a card are no short last group of it (a 15- or 19-digit card's): the
    card is found, and its span stops at its own digits where a mark sets the next apart."""
    (card,) = [f for f in CLASSIFIER.classify(text).findings if f.recognizer == "credit_card"]
    assert text[card.start : card.end].startswith("4539 1488 0343 6467")
    span = text[card.start : card.end]
    assert "|" not in span
    assert "\n" not in span


@pytest.mark.parametrize("separator", ["-", " ", ".", "/"])
def test_ssn_groups_split_by_one_separator(separator: str) -> None:
    """A 3-2-4 SSN is found with hyphens, spaces, dots or slashes between its groups."""
    assert found(f"Employee SSN: 219{separator}09{separator}9999.") == {"us_ssn"}


@pytest.mark.parametrize("text", ["card5500000000000004 on file", "SSN219-09-9999 noted"])
def test_a_number_glued_to_its_name_is_found(text: str) -> None:
    """``card4111...`` and ``SSN078-...`` are the number, not a word."""
    assert found(text)


@pytest.mark.parametrize("separator", ["-", "."])
def test_iban_groups_split_by_hyphens_or_dots(separator: str) -> None:
    """A printed IBAN with hyphens or dots between its groups passes the mod-97 check."""
    number = separator.join(["DE89", "3704", "0044", "0532", "0130", "00"])
    assert found(f"Pay to {number} by Friday.") == {"iban"}


@pytest.mark.parametrize(
    "text",
    [
        "Licence number X52928788557186 on the form.",  # digits inside another identifier
        "Revenue grew to 4,500,000,000,000 units.",  # thousands groups are not card groups
        "Meeting on 12/05/2024 at noon.",
    ],
)
def test_other_numbers_are_not_cards_or_ssns(text: str) -> None:
    """Digit runs inside identifiers, thousands groups and dates are not found."""
    assert not found(text)


@pytest.mark.parametrize("invisible", ["\u200b", "\u200c", "\u2060", "\ufeff"])
def test_invisible_characters_between_digit_groups_keep_the_groups(invisible: str) -> None:
    """``078<ZWSP>05<ZWSP>1120`` is the grouped SSN it shows, with its original offsets."""
    text = f"Employee: 219{invisible}09{invisible}9999 on file."
    [finding] = CLASSIFIER.classify(text).findings
    assert finding.recognizer == "us_ssn"
    assert text[finding.start : finding.end] == f"219{invisible}09{invisible}9999"


@pytest.mark.parametrize(
    "last", [" **0004**", "\n0004", " (0004)", ", 0004", "</td><td>0004", " - 0004", " / 0004"]
)
def test_a_card_whose_last_group_a_mark_sets_apart_is_read_whole(last: str) -> None:
    """Groups of four are read first, so three spaced groups are not taken alone (and failed
    by the checksum) when a mark sets the fourth apart."""
    assert found(f"Card on file: 5500 0000 0000{last} (expires soon).") == {"credit_card"}


def test_five_groups_of_four_are_one_longer_number_not_a_card() -> None:
    """A grouped number longer than a card is taken whole and rejected, not cut to a card."""
    assert found("Reference 5500 0000 0000 0004 1234 on the invoice.") == set()
