"""Names that capitals cannot find: a Latin word with look-alike letters of another script
(``Jаne`` with a Cyrillic ``а``), in the given name as in the family name, and names in scripts
without capitals after a label that names a person (``Customer: 张伟``)."""

from __future__ import annotations

import pytest

from rag_guard_integrations import Guard
from rag_guard_integrations.classify.recognizers.proper_names import find_names


@pytest.mark.parametrize(
    "name",
    [
        "J\u0430ne Roe",  # Cyrillic a
        "J\u043ehn Smith",  # Cyrillic o
        "\u03a1eter Parker",  # Greek capital rho
        "Jane R\u043ee",  # in the family name
    ],
)
def test_a_lookalike_letter_in_a_name_hides_no_cardholder(name: str) -> None:
    """The cardholder rule fires whichever letter of the name is a look-alike."""
    text = f"{name} card 4111 1111 1111 1111"
    result = Guard.from_policy("default").check("Summarise the account.", [{"text": text}])
    assert "default_cardholder" in {v.rule for v in result.violations}


def test_a_name_wholly_in_another_script_keeps_its_letters() -> None:
    """A Cyrillic name is read as written, its span covering it."""
    text = "\u0418\u0432\u0430\u043d \u041f\u0435\u0442\u0440\u043e\u0432 called."
    assert [text[s:e] for s, e in find_names(text).persons] == [text[:11]]


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Customer: \u5f20\u4f1f, Visa 4012888888881881", "\u5f20\u4f1f"),
        (
            "Employee: \u0645\u062d\u0645\u062f \u0639\u0644\u064a\nSSN: 078-05-1120",
            "\u0645\u062d\u0645\u062f \u0639\u0644\u064a",
        ),
        ("Name: \u7530\u4e2d \u592a\u90ce", "\u7530\u4e2d \u592a\u90ce"),
    ],
)
def test_a_name_in_a_script_without_capitals_after_a_persons_label_is_a_person(
    text: str, name: str
) -> None:
    """Han, Kana and Arabic names have no capitals to find them by; the record's label does."""
    found = find_names(text)
    assert [text[s:e] for s, e in found.persons] == [name]


def test_a_script_without_capitals_names_nobody_without_a_label() -> None:
    """Text in those scripts alone, or after a label that names no person, is no name."""
    assert find_names("\u5317\u4eac\u516c\u53f8 revenue rose").persons == ()
    assert find_names("Product: \u5317\u4eac\u516c\u53f8").persons == ()
