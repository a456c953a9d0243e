"""A name written with look-alike letters of another script inside a Latin word (``Jаne``
with a Cyrillic ``а``) is the name it shows, in the given name as in the family name."""

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
