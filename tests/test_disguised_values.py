"""Values a reader (or a model) reads plainly are found however they are written: a format
character inside a digit group, an IBAN printed a group to a line, HTML character references,
and names restyled with combining marks, variation selectors, mathematical or circled letters,
tag characters or blanks. Through the ``default`` pack, each makes its combination fire."""

from __future__ import annotations

import pytest

from rag_guard_integrations import Guard

pytestmark = pytest.mark.unit

IBAN = "GB82 WEST 1234 5698 7654 32"
HOLDER = "held by Jane Roe, jane.roe@example.com"


@pytest.fixture(scope="module")
def guard() -> Guard:
    return Guard.from_policy("default")


def fired(guard: Guard, text: str) -> set[str]:
    """The rules that withheld the one chunk ``text`` (empty: it passed)."""
    result = guard.check("what is on file?", [{"text": text, "meta": {}}])
    return set() if result.decisions[0].allowed else {v.rule for v in result.violations}


@pytest.mark.parametrize("hidden", ["\u200b", "\u00ad", "\u200e", "\u2060", "\u202e", "\u180e"])
def test_a_format_character_inside_a_digit_group_hides_no_account_number(
    guard: Guard, hidden: str
) -> None:
    """``56⟨ZWSP⟩98`` is read as ``5698`` as well as a group break."""
    text = f"Account {IBAN.replace('5698', f'56{hidden}98')} {HOLDER}"
    assert "default_account_holder_contact" in fired(guard, text)


def test_an_iban_printed_a_group_to_a_line_is_found(guard: Guard) -> None:
    """One line break between every group: the mod-97 check keeps that from a chance match."""
    text = f"Account {IBAN.replace(' ', chr(10))} {HOLDER}"
    assert "default_account_holder_contact" in fired(guard, text)


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        ("Card on file &#52;111 1111 1111 1111 for customer Jane Roe", "default_cardholder"),
        ("Card on file &#x34;111 1111 1111 1111 for customer Jane Roe", "default_cardholder"),
        (f"Account {IBAN} held by Jane Roe, jane.roe&#64;example.com", None),
        ("db password&#61;Sup3rS3cret! on host db1.internal", "default_credentials"),
    ],
)
def test_html_character_references_are_read_as_their_characters(
    guard: Guard, text: str, rule: str | None
) -> None:
    """A model reads ``&#52;`` as ``4``: so does every recogniser."""
    assert fired(guard, text) >= ({rule} if rule else {"default_account_holder_contact"})


@pytest.mark.parametrize(
    "name",
    [
        "Ja\u0307ne Roe",  # a combining dot above
        "Ja\u034fne Ro\u034fe",  # combining grapheme joiner
        "Ja\ufe0fne Ro\ufe0fe",  # variation selector
        "\U0001d409\U0001d41a\U0001d427\U0001d41e \U0001d411\U0001d428\U0001d41e",  # bold
        "\u24bf\u24d0\u24dd\u24d4 \u24c7\u24de\u24d4",  # circled letters
        "Ja\U000e0041ne Roe",  # a tag character
        "Ja\u2800ne Roe",  # the Braille blank inside a word
    ],
)
def test_a_restyled_cardholder_name_still_makes_the_cardholder_rule_fire(
    guard: Guard, name: str
) -> None:
    """Card + person: the name is read as the plain ``Jane Roe`` it shows."""
    text = f"Card on file 4111 1111 1111 1111 for customer {name}"
    assert "default_cardholder" in fired(guard, text)


REDACT_ALL = """
version: 1
name: masks
labels: {financial: {}, contact_details: {}, person_name: {}}
classifiers:
  builtin: {credit_card: financial, email: contact_details, person: person_name}
rules:
  - {name: mask_cards, action: redact, trigger: {all_present: [financial]}}
  - {name: mask_mail, action: redact, trigger: {all_present: [contact_details]}}
  - {name: mask_people, action: redact, trigger: {all_present: [person_name]}}
"""


@pytest.mark.parametrize(
    ("text", "left"),
    [
        ("Card on file 4111 1111 1111 111&#49; thanks", "Card on file [FINANCIAL] thanks"),
        ("Card &copy4111111111111111 ok", "Card &copy[FINANCIAL] ok"),
        ("mail jo@example.co&#109; now", "mail [CONTACT_DETAILS] now"),
        ("customer Jane Ro&#101;, thanks", "customer [PERSON_NAME], thanks"),
    ],
)
def test_a_mask_covers_every_reference_the_value_was_written_with(text: str, left: str) -> None:
    """A value found in the decoded reading is masked from its first to its last reference: no
    reference's tail (``#49;``) is left to give a character away."""
    from rag_guard_integrations import parse_policy

    result = Guard(parse_policy(REDACT_ALL)).check("what is on file?", [{"text": text}])
    assert [chunk.text for chunk in result.allowed] == [left]


def test_a_name_joined_by_a_no_break_space_is_one_name() -> None:
    """``Jane&nbsp;Roe`` and ``Jane\\xa0Roe`` are read as ``Jane Roe``."""
    from rag_guard_integrations.classify.recognizers.proper_names import find_names

    for text in ("customer Jane&nbsp;Roe, thanks", "customer Jane\xa0Roe, thanks"):
        found = find_names(text)
        assert [text[s:e] for s, e in found.persons] == [text[9:-8]]
