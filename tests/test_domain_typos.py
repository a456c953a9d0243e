"""Misspelt domain roots: one edit from a root and no English word, they count as the root."""

from __future__ import annotations

import pytest
from work_counter import growth, lines_run

from rag_guard_integrations import Chunk, load_policy
from rag_guard_integrations.guards import domain_terms, domain_typos
from rag_guard_integrations.guards.domain import DomainGuard
from rag_guard_integrations.guards.domain_terms import TermMatcher
from rag_guard_integrations.guards.domain_typos import Typos, english_words

SPEC = load_policy("bis").domain
assert SPEC is not None
ROOTS = TermMatcher(SPEC.roots, compounds=True, typos=True)


@pytest.mark.parametrize(
    ("query", "root"),
    [
        ("cemnt soundness", "cement"),  # a letter left out
        ("helmat impact", "helmet"),  # a letter changed
        ("geysars safety", "geyser"),  # a letter changed, plural
        ("car tyers", "tyre"),  # two letters swapped
        ("cylindeer testing", "cylinder"),  # a letter added
        ("lithum cells", "lithium"),
    ],
)
def test_a_word_one_edit_from_a_root_counts_as_the_root(query: str, root: str) -> None:
    """Deletions, substitutions, insertions and swaps of one letter are read as the root."""
    assert root in [term for _, term in ROOTS.find(query)]


@pytest.mark.parametrize(
    "query",
    ["what is the charge on my card", "a pocket knife", "battle royale", "stitch a button",
     "an air cooler", "a coffee table", "the witch", "cable car", "tired of waiting"],
)  # fmt: skip
def test_english_words_near_a_root_are_not_misspellings(query: str) -> None:
    """ "charge", "pocket", "battle", "stitch", "cooler", "table" and "witch" are words of the
    model's vocabulary, so they never stand for "charger", "socket", "bottle", "switch",
    "cooker", "cable" or "switch"; roots found are only those written exactly."""
    exact = TermMatcher(SPEC.roots, compounds=True)
    assert ROOTS.find(query) == exact.find(query)


def test_exact_matches_win_and_are_not_read_again() -> None:
    """A root written exactly (or inside a multi-word root) is found once, as written."""
    assert ROOTS.find("pressure cooker and cookers") == [(0, "pressure cooker"), (20, "cooker")]
    assert ROOTS.replace("presure cooker helmat", "product") == "presure product product"


def test_without_a_word_list_no_word_is_a_misspelling() -> None:
    """Without the model's vocabulary to tell words from misspellings, nothing is guessed."""
    assert Typos({"cement": "cement"}, frozenset()).find("cemnt", []) == []
    assert "charge" in english_words()
    assert "cemnt" not in english_words()


def test_typos_are_off_unless_the_policy_asks() -> None:
    """``root_typos`` defaults to off; the bis policy turns it on."""
    plain = TermMatcher(["cement"], compounds=True)
    assert plain.find("cemnt") == []
    assert SPEC.root_typos is True


def test_a_misspelt_root_next_to_a_regulatory_word_decides_tier_three() -> None:
    """ "helmat isi standard" passes at tier 3 like "helmet isi standard"."""
    guard = DomainGuard(SPEC.model_copy(update={"retriever_scores": "cosine"}))
    decision = guard.decide("helmat isi standard", [Chunk("x", {}, score=0.3)])
    assert (decision.tier, decision.evidence["root"]) == ("root", "helmet")


def test_reading_misspellings_is_linear_in_the_query() -> None:
    """Doubling a query of misspelt and unknown words at most doubles the work."""

    def work(repeats: int) -> int:
        query = "cemnt helmat qwertyuiopasdfghjklzxcvbnm geysar " * repeats
        return lines_run(lambda: ROOTS.find(query), domain_terms, domain_typos)

    assert growth(work, 200) < 2.3
