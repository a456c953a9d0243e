"""Tests for printable(): every control, format, separator and surrogate character is escaped
the JSON way, everything else is kept, and every table and JSON the CLI prints goes through it."""

from __future__ import annotations

import io
import json
import sys
import unicodedata
from contextlib import redirect_stdout

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rag_guard_integrations.cli.console import print_json, table
from rag_guard_integrations.core.display import escape
from rag_guard_integrations.core.printable import UNSAFE_RANGES, printable

pytestmark = pytest.mark.unit

UNSAFE_CATEGORIES = {"Cc", "Cf", "Zl", "Zp", "Cs"}


def test_the_ranges_are_exactly_the_unsafe_categories() -> None:
    """UNSAFE_RANGES holds every code point of Cc, Cf, Zl, Zp and Cs, and nothing else."""
    listed = {code for low, high in UNSAFE_RANGES for code in range(low, high + 1)}
    wanted = {
        code
        for code in range(sys.maxunicode + 1)
        if unicodedata.category(chr(code)) in UNSAFE_CATEGORIES
    }
    assert listed == wanted


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("\x1b[2J", "\\u001b[2J"),  # C0: ESC
        ("\x7f", "\\u007f"),  # DEL
        ("\x9b31m", "\\u009b31m"),  # C1: CSI
        ("\u202egnp.exe", "\\u202egnp.exe"),  # bidi override
        ("a\u2066b\u2069", "a\\u2066b\\u2069"),  # bidi isolates
        ("one\u2028two\u2029", "one\\u2028two\\u2029"),  # line and paragraph separators
        ("zero\u200bwidth", "zero\\u200bwidth"),
        ("lone\ud800", "lone\\ud800"),  # a surrogate no encoder can write
        ("tag\U000e0041", "tag\\udb40\\udc41"),  # astral: a UTF-16 pair, as JSON writes it
        ("tab\tnew\nline", "tab\\u0009new\\u000aline"),
    ],
)
def test_unsafe_characters_are_escaped(raw: str, shown: str) -> None:
    """Each kind of unsafe character becomes a \\uXXXX escape."""
    assert printable(raw) == shown


@given(st.text(alphabet=st.characters(exclude_categories=("Cc", "Cf", "Zl", "Zp", "Cs"))))
def test_printable_text_is_kept_as_it_is(text: str) -> None:
    """Letters, marks, symbols, spaces and emoji of any script are untouched."""
    assert printable(text) == text


@given(st.text(alphabet=st.characters(exclude_characters='"\\')))
def test_escaped_text_reads_back_as_json(text: str) -> None:
    """The escapes are JSON's: the printable form, read as a JSON string, is the text again
    (lone surrogates included), and it holds nothing unsafe."""
    shown = printable(text)
    assert json.loads(f'"{shown}"') == text
    assert not any(unicodedata.category(c) in UNSAFE_CATEGORIES for c in shown)


@given(st.dictionaries(st.text(max_size=5), st.text(max_size=10), max_size=4))
def test_print_json_stays_json_and_prints_nothing_unsafe(data: dict[str, str]) -> None:
    """JSON output parses back to the same data and its lines hold no unsafe character."""
    with redirect_stdout(io.StringIO()) as captured:
        print_json(data)
    out = captured.getvalue()
    assert json.loads(out) == data
    assert not any(unicodedata.category(c) in UNSAFE_CATEGORIES for c in out.replace("\n", ""))


def test_table_cells_and_html_cells_are_escaped() -> None:
    """A table row and an HTML cell show a hostile id escaped, on one line."""
    text = table(["id"], [["\x1b[31mred\nrow"]])
    assert text.splitlines()[-1] == "\\u001b[31mred\\u000arow"
    assert escape("<b>\u202egnp</b>") == "&lt;b&gt;\\u202egnp&lt;/b&gt;"
