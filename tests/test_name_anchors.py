"""The names scanner's one pass: the RE2 scan for where a name can be finds every kind of sign
and nothing in text that names nobody, and the work of the whole scan grows linearly with the
text (Python lines executed and characters copied, counted at three sizes)."""

from __future__ import annotations

from itertools import pairwise

import pytest
from work_counter import CountedText, lines_run

from rag_guard_integrations.classify.recognizers import (
    name_anchors,
    name_blocks,
    name_context,
    name_rules,
    proper_names,
)
from rag_guard_integrations.classify.recognizers.name_anchors import anchors
from rag_guard_integrations.classify.recognizers.proper_names import find_names

NAME_MODULES = (name_anchors, name_blocks, name_context, name_rules, proper_names)
GROWTH = 2.3  # each size doubles the last; linear work at most doubles, plus constants
PARAGRAPH = (
    "Dear Ms. Okafor,\nThank you for your letter. Our supplier, Brantley Textiles, raised "
    "prices.\nKind regards,\n\nTomás Herrera\nHead of Procurement\nVantor Logistics\n"
    "14 Quay Street, Galway\n"
    "The Supplier shall deliver the Goods to the Customer within thirty (30) days, and the "
    "Licensee may not sublicense the Licensed Software.\n"
    "She joined Northvale in 2021 after eight years at Corvid Labs; ask Bea about it.\n"
)


@pytest.mark.parametrize(
    "text",
    [
        "Card on file for customer Jane Roe",
        "Please ask Dr. Okafor to call back.",
        "Minutes: J. Okafor attended.",
        "Payment is due from Tarvo Ltd. within 30 days.",
        "I used to work for Initech before the merger.",
        "Streetcred is an Icelandic software company.",
        "Reach me at jonas@orbitalfoods.io today.",
        "Kind regards,\nTom",
        "Hartmann & Söhne ship on Mondays.",
        "Ingrid Solberg\nStrandgata 22\n5013 Bergen",
    ],
)
def test_the_scan_finds_where_a_name_can_be(text: str) -> None:
    """A given name, an honorific, initials, a legal form, a context phrase, a description,
    a mail address, a closing line, an ampersand and an address line each give an anchor."""
    assert anchors(text.encode())


@pytest.mark.parametrize(
    "text",
    [
        "The Supplier shall deliver the Goods to the Customer within thirty (30) days.",
        "Confidential Information does not include information that is publicly available.",
        "TERMS AND CONDITIONS OF SALE",
        "Either Party may terminate this Agreement upon ninety (90) days' written notice.",
        "Please review the attached invoice and let us know by Friday.",
    ],
)
def test_text_that_names_nobody_gives_no_anchor(text: str) -> None:
    """Defined terms, headings and plain sentences cost the one scan and nothing more."""
    assert anchors(text.encode()) == []
    assert find_names(text) == proper_names.Names(text, (), ())


def scan_work(size: int) -> tuple[int, int]:
    """Python lines run by the names scanner and characters it copies, over ``size``
    paragraphs of letters, signatures and contract clauses."""
    text = CountedText(PARAGRAPH * size)
    lines = lines_run(lambda: find_names(text), *NAME_MODULES)
    return lines, text.copied


def test_the_scan_work_grows_linearly_with_the_text() -> None:
    """Doubling the text at most doubles the lines run and the characters copied (plus
    constants): no window, lookup or overlap test grows with the text's length."""
    find_names(PARAGRAPH)  # the table and the scan are built once, at the first text
    counts = [scan_work(size) for size in (8, 16, 32)]
    for (lines, copied), (more_lines, more_copied) in pairwise(counts):
        assert more_lines <= GROWTH * lines, counts
        assert more_copied <= GROWTH * copied, counts


def test_names_found_in_a_paragraph_are_found_in_a_long_document() -> None:
    """The same names, in the same places, whatever the length of the text around them."""
    one = find_names(PARAGRAPH)
    many = find_names(PARAGRAPH * 40)
    width = len(PARAGRAPH)
    assert {(s % width, e % width) for s, e in many.persons} == set(one.persons)
    assert {(s % width, e % width) for s, e in many.organizations} == set(one.organizations)
