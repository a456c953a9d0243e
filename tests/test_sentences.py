"""Sentence windows for fingerprints: only periods that end a sentence stop a window."""

from __future__ import annotations

import pytest

from rag_guard_integrations import AccessContext, Chunk, Guard
from rag_guard_integrations.core.sentences import INNER_PERIOD, clause_text


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        ("Section 8.3 applies", "section 8·3 applies"),
        ("a fee of 2.5% a year", "a fee of 2·5% a year"),
        ("Acme Inc. and Beta Ltd. agree", "acme inc· and beta ltd· agree"),
        ("in the U.S. and e.g. Canada", "in the u·s· and e·g· canada"),
        ("see No. 4 and Sec. 1.2.3", "see no· 4 and sec· 1·2·3"),
    ],
)
def test_periods_inside_a_sentence_are_masked(text: str, masked: str) -> None:
    """Section numbers, decimals and abbreviations keep their sentence together."""
    assert clause_text(text) == masked


@pytest.mark.parametrize("text", ["It ends here. Then", "paid in 30 days. The", "by 2026. No"])
def test_sentence_ends_are_kept(text: str) -> None:
    """A period after a word or a number, before the next sentence, still ends the window."""
    assert INNER_PERIOD not in clause_text(text)
    assert "." in clause_text(text)


def test_clause_guard_matches_across_a_section_number() -> None:
    """An assignment clause that cites "Section 8.3" mid-sentence matches its fingerprint."""
    guard = Guard.from_policy("contracts")
    chunk = Chunk(
        "Except as provided in Section 8.3, Acme Inc. may not assign this Agreement without "
        "the prior written consent of the other party.",
        {"clause_id": "ASSIGNMENT", "contract_type": "MSA"},
    )
    result = guard.check(
        "Can we assign the contract?", [chunk], access=AccessContext(contract_type={"MSA"})
    )
    assert result.allowed == [chunk]
