"""A blocklisted word respelled (digits for letters, spelt out, split in two) is still out of
the domain, even beside an identifier of the collection; the respelled reading only ever
rejects."""

from __future__ import annotations

import pytest

from rag_guard_integrations import Guard
from rag_guard_integrations.data import load_corpus

pytestmark = pytest.mark.unit

STEEL = [c for c in load_corpus("bis") if c.metadata.get("standard") == "IS 2062"]


@pytest.fixture(scope="module")
def guard() -> Guard:
    return Guard.from_policy("bis")


@pytest.mark.parametrize(
    "query",
    ["IS 2062 b1tc0in", "IS 2062 b-i-t-c-o-i-n", "IS 2062 b i t c o i n", "IS 2062 bit coin"],
)
def test_a_respelled_blocklisted_word_is_rejected_beside_an_identifier(
    guard: Guard, query: str
) -> None:
    decision = guard.check(query, STEEL).query
    assert (decision.allowed, decision.tier) == (False, "blocklist")


@pytest.mark.parametrize(
    "query", ["IS 2062 requirements", "is fe 500d steel covered by IS 2062", "IS 2062 e250 grade"]
)
def test_grades_and_identifiers_are_no_respelling(guard: Guard, query: str) -> None:
    """Letters and digits in a grade (``fe 500d``, ``e250``) are left as written."""
    assert guard.check(query, STEEL).query.allowed


@pytest.mark.parametrize("query", ["IS 2062 bit-coin", "IS 2062 bit co in", "IS 2062 crypt0"])
def test_split_and_symbol_respellings_are_rejected_too(guard: Guard, query: str) -> None:
    assert guard.check(query, STEEL).query.tier == "blocklist"
