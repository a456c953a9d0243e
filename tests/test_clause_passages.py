"""The passages a chunk is cut into before the semantic fingerprint scores it."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from rag_guard_integrations.core.normalize import normalize
from rag_guard_integrations.guards.clause_passages import WINDOW_WORDS, passages


def test_a_one_sentence_clause_is_one_normalised_passage() -> None:
    """A single sentence is scored as it stands, case-folded and with zero-width marks gone."""
    assert passages("Ohio LAW gov\u200berns this Agreement.") == [
        "ohio law governs this agreement."
    ]


def test_sentences_their_pairs_and_the_whole_text_are_passages() -> None:
    """Three sentences give each sentence, each neighbouring pair and the whole text."""
    text = "Either party may assign. The assignee is bound. Notice is required."
    assert passages(text) == [
        "either party may assign.",
        "the assignee is bound.",
        "notice is required.",
        "either party may assign. the assignee is bound.",
        "the assignee is bound. notice is required.",
        "either party may assign. the assignee is bound. notice is required.",
    ]


def test_periods_that_end_no_sentence_do_not_split_it() -> None:
    """Section numbers, decimals and abbreviations stay inside their sentence."""
    text = "Under Section 8.3, Acme Inc. may charge 1.5% interest on late invoices."
    assert passages(text) == [normalize(text)]


def test_a_heading_joins_the_sentence_after_it() -> None:
    """A fragment shorter than a sentence ("12. Notices.") is read with what follows."""
    assert passages("12. Insurance. Supplier shall carry liability insurance.")[0] == (
        "12. insurance. supplier shall carry liability insurance."
    )


def test_a_long_sentence_is_also_read_in_overlapping_word_windows() -> None:
    """A sentence longer than the window is read whole and in half-overlapping windows."""
    words = [f"w{i}" for i in range(60)]
    found = passages(" ".join(words) + ".")
    windows = [p for p in found if len(p.split()) == WINDOW_WORDS]
    assert windows[0].split()[0] == "w0"
    assert windows[1].split()[0] == f"w{WINDOW_WORDS // 2}"
    assert found[-1].split()[-1] == "w59."


@given(st.lists(st.sampled_from(["notice", "days", "terminate", "the", "party", "."]), max_size=80))
def test_passages_cover_the_text_with_its_own_words_only(tokens: list[str]) -> None:
    """Every word of a text is in some passage, no passage holds a word the text lacks, and
    the number of passages grows linearly with the text."""
    text = " ".join(tokens)
    found = passages(text)
    words = set(normalize(text).split())
    seen = {word for passage in found for word in passage.split()}
    assert seen == words
    sentences = max(1, text.count("."))
    assert len(found) <= 3 * sentences + 2 * len(tokens) // (WINDOW_WORDS // 2) + 2
