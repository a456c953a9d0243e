"""Linking values: one identifier written several ways links its chunks, so a rule over linked
chunks cannot be dodged by how an index happened to type the id."""

from __future__ import annotations

from typing import Any

import pytest

from rag_guard_integrations import Guard

pytestmark = pytest.mark.unit

GUARD = Guard.from_policy("finance")


def linked(first: Any, second: Any, key: str = "account_id") -> bool:
    """Whether the finance pack's linked rule fires on a balance and a client record."""
    chunks = [
        {"text": "Balance figures.", "metadata": {"classification": "financial", key: first}},
        {"text": "Client record.",
         "metadata": {"classification": "entity_identifier", "account_id": second}},
    ]  # fmt: skip
    result = GUARD.check("q", chunks)
    return any(v.rule == "finance_client_balances_linked" for v in result.violations)


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("77", "77"),
        (77, "77"),
        (77.0, 77),
        ("077", 77),
        ("ACC-77", "acc 77"),
        ("ACC_77", "acc.77"),
        ("ACC77 ", "ACC77"),
        (["77", "99"], "77"),
    ],
)
def test_one_identifier_however_typed_links(first: Any, second: Any) -> None:
    """Numbers, leading zeros, case, separators and spacing do not split one identifier."""
    assert linked(first, second)


def test_the_linking_key_is_read_without_regard_to_case() -> None:
    """``Account_ID`` in one chunk's metadata is the policy's ``account_id``."""
    assert linked("77", "77", key="Account_ID")


@pytest.mark.parametrize(("first", "second"), [("77", "78"), ("acc-77", "acc-771"), (77.5, 77)])
def test_different_identifiers_do_not_link(first: Any, second: Any) -> None:
    """Only the spelling is forgiven: other values stay apart."""
    assert not linked(first, second)
