"""The phone recogniser: unambiguous numbers without a phone word, context as a boost, no
house numbers, money or years, and offsets into the original text."""

from __future__ import annotations

import pytest

from rag_guard_integrations.classify.pattern import PatternClassifier
from rag_guard_integrations.classify.recognizers import Recognizer
from rag_guard_integrations.classify.recognizers.phone import (
    plausible_phone,
    unambiguous_phone,
)

CLASSIFIER = PatternClassifier(["phone"], cache_size=0)


def phones(text: str) -> list[str]:
    """The original-text spans of the phone findings in ``text``."""
    result = CLASSIFIER.classify(text)
    assert result.error is None
    return [text[f.start : f.end] for f in result.findings]


@pytest.mark.parametrize(
    ("text", "span"),
    [
        ("Questions go to +44 20 7946 0958 before noon.", "+44 20 7946 0958"),
        ("Send it to 0044 20 7946 0958 today.", "0044 20 7946 0958"),
        ("The front desk is (202) 555-0173.", "(202) 555-0173"),
        ("Our London line is 020 7946 0958.", "020 7946 0958"),
        ("Ask for Ravi at +91 98765 43210.", "+91 98765 43210"),
        ("Leave word at 202-555-0173 x12 if closed.", "202-555-0173 x12"),
    ],
)
def test_unambiguous_number_needs_no_phone_word(text: str, span: str) -> None:
    """International numbers and valid, separated national numbers count with no context."""
    assert phones(text) == [span]


@pytest.mark.parametrize(
    ("text", "span"),
    [
        ("They're not answering at 374 780 163", "374 780 163"),
        ("Phone: 467 3395", "467 3395"),
        ("fax 60-56-85-91", "60-56-85-91"),
    ],
)
def test_phone_word_boosts_a_number_no_region_validates(text: str, span: str) -> None:
    """A plausible digit run that no default region validates counts next to a phone word."""
    assert not unambiguous_phone(span)
    assert phones(text) == [span]


@pytest.mark.parametrize(
    "text",
    [
        "The order 5403926876 shipped.",  # bare digits: an id, not a number to dial
        "Wire from account 004417723 today.",  # "00" and bare digits: an account number
        "Reference 555-123-4567 is closed.",  # not valid in any default region
        "Quinta de Sao Tiago 3610-114 is the postcode.",  # valid only where lengths vary
        "Please call the office 1200 on the first floor.",  # a room number
        "Call us at Suite 400 2100 Main Street.",  # a suite and a house number
        "Contact: 636 1812 Rue De La Gare, Lyon.",  # a house number before the street
        "Call about the fee of $ 202 555 0173 today.",  # money
        "Call about the 1998-2004 seasons.",  # a year range
        "Call 12 34 when you can.",  # too few digits
    ],
)
def test_not_a_phone_number(text: str) -> None:
    """House and room numbers, money, year ranges and ids are not phone numbers."""
    assert phones(text) == []


def test_offsets_index_the_original_text() -> None:
    """Zero-width and full-width characters before the number do not shift its span."""
    text = "C\u200bALL ＮＯＷ: +44 20 7946 0958"
    result = CLASSIFIER.classify(text)
    assert [text[f.start : f.end] for f in result.findings] == ["+44 20 7946 0958"]


def test_validators_accept_what_they_document() -> None:
    """plausible_phone filters shapes; unambiguous_phone needs international or valid form."""
    assert plausible_phone("020 7946 0958")
    assert not plausible_phone("suite 400 2100")
    assert unambiguous_phone("+1 202 555 0173")
    assert not unambiguous_phone("2027946")


def test_standalone_needs_its_regex() -> None:
    """A recogniser with a standalone validator and no standalone_regex is a definition error."""
    with pytest.raises(ValueError, match="standalone and standalone_regex together"):
        Recognizer("x", "pii", r"\d+", standalone=bool)


@pytest.mark.parametrize(
    ("text", "span"),
    [
        ("Ruf: 0171 1234567", "0171 1234567"),
        ("Rufnummer 089 4455667 (Zentrale)", "089 4455667"),
        ("Telefon: 040 3344556", "040 3344556"),
        ("Handy 0152 9988776", "0152 9988776"),
        ("Mobil: 0176 55443322", "0176 55443322"),
        ("Téléphone : 04 72 11 22 33", "04 72 11 22 33"),
        ("portable 07 61 22 33 44", "07 61 22 33 44"),
        ("Teléfono 915 44 33 22", "915 44 33 22"),
        ("móvil: 655 443 322", "655 443 322"),
        ("celular (21) 98877-6655", "(21) 98877-6655"),
        ("Phone no. 0161 496 0321", "0161 496 0321"),
    ],
)
def test_phone_words_in_other_languages_boost_a_number(text: str, span: str) -> None:
    """German, French, Spanish and Portuguese phone words work as context like English ones."""
    assert phones(text) == [span]


@pytest.mark.parametrize(
    "text",
    [
        "Credit note CN-2025-004417 was issued.",
        "Raise PO-2022-118734 before delivery.",
        "Purchase order no. 2023-774411 is approved.",
        "Invoice #2024-0005519 is overdue.",
        "Claim ref: 2025 448812 closed.",
        "Ticket 2023-555-0142 reopened.",
        "Document 2024-339911 was filed.",  # a year and a serial
    ],
)
def test_document_ids_are_not_phone_numbers(text: str) -> None:
    """Year-prefixed ids glued to a code or after an id word are not phone numbers."""
    assert phones(text) == []


@pytest.mark.parametrize(
    ("text", "span"),
    [
        ("Order desk: +44 161 496 0321", "+44 161 496 0321"),
        ("Invoice queries: call 0161 496 0321", "0161 496 0321"),
        ("Ref: +1 202 555 0188", "+1 202 555 0188"),
        ("Reservations: 0161 496 0321", "0161 496 0321"),  # a plural names a desk
        ("Call 2024-118822 for the desk.", "2024-118822"),  # a phone word is near
    ],
)
def test_id_words_leave_international_and_called_numbers_alone(text: str, span: str) -> None:
    """A number in international form after an id word, or next to a phone word, is found."""
    assert phones(text) == [span]


@pytest.mark.parametrize(
    ("text", "span"),
    [
        ("Tel-202-456-1111", "202-456-1111"),
        ("Account: 202-456-1111", "202-456-1111"),
        ("account 617-253-1000", "617-253-1000"),
        ("Reservation: 202-456-1111", "202-456-1111"),
        ("Booking: 020 7946 0958", "020 7946 0958"),
        ("Confirmation (212) 736-5000", "(212) 736-5000"),
        ("Order 5512 202-456-1111 call back please", "202-456-1111"),
        ("Booking ref 22 (212) 736-5000", "(212) 736-5000"),
        ("Item 4 020 7946 0958", "020 7946 0958"),
        ("Ticket 2023-555 617-253-1000", "617-253-1000"),
    ],
)
def test_a_phone_after_an_id_or_a_desk_word_is_found(text: str, span: str) -> None:
    """A phone word glued by a hyphen, a desk word, or an id with its own digits before a
    separated phone number leaves the phone number to be read on its own."""
    assert phones(text) == [span]


@pytest.mark.parametrize(
    "text",
    [
        "INV-2024-000123 was paid.",
        "Raise PO-2023-004512 today.",
        "Order no. 2024-118822 shipped.",
        "Booking 2024-118822 confirmed.",  # no longer an id word; a year and a serial
        "Call about INV-2024-000123 today.",  # a code glued to a year: an id beside "call"
    ],
)
def test_year_prefixed_ids_are_not_phones_without_an_id_word(text: str) -> None:
    """A year and a serial after any word, or glued to a code even beside a phone word, are
    not phone numbers."""
    assert phones(text) == []
