"""A lone brand: one capitalised word no table knows, in a lower-case sentence about trade."""

from __future__ import annotations

import pytest
from names_support import names

from rag_guard_integrations.classify.recognizers.name_lone import lone_brands
from rag_guard_integrations.classify.recognizers.names_table import english_words


@pytest.mark.parametrize(
    ("text", "brand"),
    [
        ("honestly Quillbury customer service is a joke these days", "Quillbury"),
        ("we cancelled our plan with Tessworth after the prices went up again", "Tessworth"),
        ("rumour is that Vantrelle is cutting staff before the merger", "Vantrelle"),
        ("the app keeps crashing and Ombrix support never answers the tickets", "Ombrix"),
        ("i think Drovena's pricing is fair for a small shop like ours", "Drovena"),
    ],
)
def test_an_unknown_word_in_a_sentence_about_trade_is_an_organisation(
    text: str, brand: str
) -> None:
    """No table knows the word, the sentence is in lower case and speaks of customers,
    plans, prices, staff, support or a shop."""
    assert brand in names(text)[1]


@pytest.mark.parametrize(
    "text",
    [
        "we stayed two nights in Quillbury and the hotel prices were fine",  # a place
        "my cousin moved to Tessworth for a new job last spring",  # a place
        "the song was written by Kasimir Vantrelle for the album",  # a person's name
        "please write to ombrix.support@example.com about your account",  # an address
        "the Licensee shall pay the fees to the Licensor each quarter",  # defined terms
        "we had a lovely walk along the river near Drovena yesterday evening",  # no trade
        "Quillbury customers complain",  # too short to read as a sentence
        "Our Board Approved The Quillbury Budget For Customers",  # a heading in capitals
    ],
)
def test_a_place_a_person_an_address_a_defined_term_or_no_trade_is_no_lone_brand(
    text: str,
) -> None:
    """After ``in``, ``to`` or ``near``, after another capitalised word, in an address, an
    English word, a sentence without trade, a short line or a title-cased heading."""
    assert lone_brands(text, []) == []


def test_the_english_words_hold_words_not_brands() -> None:
    """Words written in lower case more often than capitalised are in; brands and peoples
    are out."""
    found = english_words()
    assert {"licensee", "shipper", "reseller"} <= found
    assert not {"spotify", "dutch", "thursday"} & found
