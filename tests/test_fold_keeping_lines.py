"""fold_keeping_lines: each character folded once, as the fold table says, whatever the script."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from rag_guard_integrations.core.normalize import _LINE_FOLDS, fold_keeping_lines

# Letters and marks of several scripts, line breaks and white space beyond ASCII, characters that
# fold to several (ﬁ, ß) or to none (zero-width, soft hyphen), and full-width forms.
SAMPLES = (
    "aZ09 .-\n\t\r"
    "éÉßøÅñÑçİı"
    "ΑαΝνΡρΣσςΩ"
    "АаЕеОоРрСсЯя"
    "中文日本語한국"
    "０９ＡＺ－"
    "\u00a0\u2028\u2029\u0085\u3000"
    "\u200b\u00ad\ufeff\u0301"
    "ﬁ€£¥₹😀"
)


def reference(text: str) -> str:
    """Every character through the fold table, one by one."""
    return "".join(_LINE_FOLDS[ord(char)] for char in text)


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=st.sampled_from(SAMPLES), max_size=60))
def test_text_whose_characters_fold_to_one_each_keeps_its_offsets(text: str) -> None:
    """Where every character folds to exactly one, the fold is the table's, offsets the identity;
    otherwise the offsets say where each folded character came from."""
    folded, offsets = fold_keeping_lines(text)
    expected = reference(text)
    if all(len(_LINE_FOLDS[ord(char)]) == 1 for char in text):
        assert (folded, offsets) == (expected, None)
    else:
        assert offsets is not None
        assert len(offsets) == len(folded)
        assert offsets == sorted(offsets)


def test_mixed_case_of_one_script_folds_on_the_fast_path() -> None:
    """A capital and its small letter in one text (Greek, Cyrillic) fold the same way."""
    assert fold_keeping_lines("ΑΘΗΝΑ αθηνα") == (reference("ΑΘΗΝΑ αθηνα"), None)
    assert fold_keeping_lines("Москва МОСКВА\u2028x") == (reference("Москва МОСКВА\u2028x"), None)
