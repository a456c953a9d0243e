"""The recognisers' scanner finds exactly what the plain per-recogniser RE2 reference finds, on
the evaluation corpora and on generated text, in work linear in the text's length."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import phonenumbers
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pattern_reference import reference_findings
from work_counter import growth, lines_run

from rag_guard_integrations.classify.pattern import PatternClassifier
from rag_guard_integrations.classify.pattern_digits import digits_end, needs_digit
from rag_guard_integrations.classify.pattern_fold import fold_for_matching
from rag_guard_integrations.classify.pattern_scan import PatternScanner
from rag_guard_integrations.classify.recognizers import DEFAULT_RECOGNIZERS, Recognizer
from rag_guard_integrations.classify.recognizers.validators import luhn
from rag_guard_integrations.core.patterns import compile_pattern

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from pathlib import Path

REGEX_RECOGNIZERS = [r for r in DEFAULT_RECOGNIZERS if isinstance(r, Recognizer)]
SCANNER = PatternScanner(REGEX_RECOGNIZERS)

# Pieces of text the recognisers read: digits of several scripts (ASCII, Arabic-Indic,
# Devanagari, full-width, mathematical), letters read as digits, the separators numbers are
# written with, invisible format characters, letters, context words and value prefixes.
DIGITS = "0123456789\u0663\u096b\uff13\U0001d7d9"
SEPARATORS = [" ", "  ", "-", ".", "/", "(", ")", "+", "\t", "\n", "\u200b", "\u00a0", ","]
WORDS = [
    "phone", "tel", "call", "mobile", "fax", "card", "visa", "iban", "ssn", "account", "acct",
    "dob", "born", "patient", "mrn", "diagnosis", "icd", "company no.", "ltd", "ip", "ext",
    "x", "$", "eur", "gb", "de", "@", "jo@example.com", "e11.9", "0044", "+1", "19", "20",
]  # fmt: skip
LETTERS = "aeZqé\u0436\u4e2d"
PIECES = st.one_of(
    st.text(alphabet=DIGITS, min_size=1, max_size=6),
    st.text(alphabet="0123456789", min_size=1, max_size=12),
    st.text(alphabet="0123456789lIoO", min_size=1, max_size=6),  # digits' look-alikes
    st.sampled_from(SEPARATORS),
    st.sampled_from(WORDS),
    st.text(alphabet=LETTERS, min_size=1, max_size=4),
)
GENERATED = st.lists(PIECES, max_size=40).map("".join)


def scanned(scanner: PatternScanner, text: str) -> list[tuple[str, int, int]]:
    """The scanner's findings as ``(recogniser, start, end)``."""
    return [(f.recognizer, f.start, f.end) for f in scanner.classify(text).findings]


@pytest.mark.parametrize("name", ["pii_samples.jsonl", "cuad_clauses.jsonl"])
def test_scanner_finds_what_the_reference_finds_on_the_corpora(
    name: str, shared_data: Callable[[str], Path]
) -> None:
    """On every text of the PII sentences and the CUAD excerpts, the scanner's findings are
    the reference's, span for span."""
    with shared_data(name).open(encoding="utf-8") as handle:
        texts = [json.loads(line)["text"] for line in handle if line.strip()]
    differing = [
        t for t in texts if scanned(SCANNER, t) != reference_findings(REGEX_RECOGNIZERS, t)
    ]
    assert differing == []
    assert sum(bool(scanned(SCANNER, t)) for t in texts) > 0  # the corpus does exercise it


@settings(max_examples=600, deadline=None)
@given(GENERATED)
def test_scanner_finds_what_the_reference_finds_on_generated_text(text: str) -> None:
    """Text mixing digits of any script, separators, invisible characters, letters and
    context words gets the reference's findings from every built-in recogniser."""
    assert scanned(SCANNER, text) == reference_findings(REGEX_RECOGNIZERS, text)


CUSTOM = [
    Recognizer("badge", "pii", r"\bbdg-\d{3,6}\b", context=("badge", "staff id"), window=12),
    Recognizer("staff_card", "financial", r"\b(?:\d[ -]?){13,19}\b", validator=luhn),
    Recognizer(
        "ticket",
        "pii",
        r"\b\d{4,8}\b",
        context=("ticket",),
        window=5,
        standalone=lambda value: value.startswith("9"),
        standalone_regex=r"\b9\d{3,7}\b",
    ),
]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(PIECES, st.sampled_from(["bdg-", "badge", "staff id", "ticket"]))))
def test_custom_recognisers_with_context_and_standalone_match_the_reference(
    pieces: list[str],
) -> None:
    """Recognisers a policy defines (context words, a window, a standalone gate, a validator)
    get the reference's findings too."""
    text = "".join(pieces)
    assert scanned(PatternScanner(CUSTOM), text) == reference_findings(CUSTOM, text)


def _record(index: int) -> str:
    return (
        f"Customer {index}: call 020 7946 {index % 10_000:04d} or mail u{index}@example.com; "
        f"card 4111 1111 1111 1111, IBAN GB82 WEST 1234 5698 7654 32, ip 10.0.{index % 250}.1. "
    )


@pytest.mark.parametrize("recognizers", [None, [r.name for r in REGEX_RECOGNIZERS[:3]]])
def test_scanning_work_grows_linearly_with_the_text(recognizers: Sequence[str] | None) -> None:
    """Twice the text (twice the values) costs about twice the executed lines, not four times."""

    def work(records: int) -> int:
        text = "".join(_record(i) for i in range(records))
        classifier = PatternClassifier(recognizers, cache_size=0)
        return lines_run(lambda: classifier.classify(text))

    assert 1.6 < growth(work, 200) < 2.3


def _written_numbers() -> list[str]:
    """Valid example numbers of many regions, written nationally and internationally."""
    formats = (
        phonenumbers.PhoneNumberFormat.NATIONAL,
        phonenumbers.PhoneNumberFormat.INTERNATIONAL,
    )
    out = []
    for region in sorted(phonenumbers.SUPPORTED_REGIONS)[::3]:
        for kind in (phonenumbers.PhoneNumberType.FIXED_LINE, phonenumbers.PhoneNumberType.MOBILE):
            number = phonenumbers.example_number_for_type(region, kind)
            if number is not None:
                out.extend(phonenumbers.format_number(number, f) for f in formats)
    return out


NUMBERS = _written_numbers()


@settings(max_examples=600, deadline=None)
@given(
    st.lists(st.one_of(PIECES, st.sampled_from(NUMBERS)), max_size=8),
    st.sampled_from(["", " ", "-", ".", "  ", "\u200b", "/", "--", " - "]),
)
def test_real_phone_numbers_written_any_way_match_the_reference(
    pieces: list[str], separator: str
) -> None:
    """Valid numbers of many regions, with or without their prefix, their groups joined by
    any separator and with other text around them, get the reference's findings."""
    text = " ".join(pieces)
    if separator:
        text = text.replace(" ", separator)
    assert scanned(SCANNER, text) == reference_findings(REGEX_RECOGNIZERS, text)


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        (r"\b\d{3}-\d{4}\b", True),
        (r"(?:card|no)\s*[0-9]{2,}", True),
        (r"(?:19|20)\d\d|[3-5]x", True),
        (r"\b(?:tel|\d+)\b", False),
        (r"\d*", False),
        (r"[^a-z]+", False),
        (r"[0-9a]", False),
        (r"\pN+", False),  # RE2 syntax the parser does not read: no saving claimed
        (r"(?:\d)?x", False),
    ],
)
def test_a_pattern_needs_a_digit_only_when_every_match_holds_one(
    pattern: str, expected: bool
) -> None:
    """Only patterns each of whose matches holds an ASCII digit are said to need one."""
    assert needs_digit(pattern) is expected


NUMERIC = sorted(
    {
        p
        for r in DEFAULT_RECOGNIZERS
        if isinstance(r, Recognizer)
        for p in (r.regex, r.context_regex, r.standalone_regex)
        if p is not None and needs_digit(p)
    }
)


@settings(max_examples=300, deadline=None)
@given(st.lists(PIECES, max_size=30).map("".join))
def test_patterns_said_to_need_a_digit_never_match_past_the_last_one(text: str) -> None:
    """Past a text's last ASCII digit, no built-in pattern said to need a digit matches: the
    scanner may stop searching there."""
    data = fold_for_matching(text)[1]
    tail = data[digits_end(data) :]
    assert [p for p in NUMERIC if compile_pattern(p).search(tail)] == []
