"""PatternClassifier: construction, policies, vocabulary binding, caching, async and failure."""

from __future__ import annotations

import asyncio
import pickle
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rag_guard_integrations.classify import pattern_scan
from rag_guard_integrations.classify.base import Classification, Classifier, Finding
from rag_guard_integrations.classify.pattern import PatternClassifier
from rag_guard_integrations.classify.recognizers import BUILTIN_RECOGNIZERS, Recognizer
from rag_guard_integrations.core.errors import PolicyError
from rag_guard_integrations.core.labels import UNCLASSIFIED
from rag_guard_integrations.policy.loader import parse_policy
from rag_guard_integrations.policy.schema import LabelSpec

MIXED = "Mail jo@example.com, card 4111 1111 1111 1111, DOB: 04/07/1986, dx E11.9"

POLICY = """
version: 1
labels:
  financial: {description: money}
  personal: {description: people}
classifiers:
  patterns:
    - {name: staff_card, label: financial, regex: '\\b(?:\\d[ -]?){13,19}\\b', validator: luhn}
    - {name: badge, label: personal, regex: '\\bbdg-\\d{6}\\b', context: [badge]}
  builtin:
    email: personal
    icd10: health
"""


def test_default_runs_every_builtin_with_default_labels() -> None:
    """With no arguments every built-in but the names ones runs and gives its default label."""
    classifier = PatternClassifier()
    assert [r.name for r in classifier.recognizers] == [
        name for name in BUILTIN_RECOGNIZERS if name not in {"person", "organization"}
    ]
    result = classifier.classify(MIXED)
    assert result.labels == {"pii", "financial", "health"}
    assert [f.recognizer for f in result.findings] == [
        "email",
        "credit_card",
        "date_of_birth",
        "icd10",
    ]
    assert isinstance(classifier, Classifier)


def test_recognizers_by_name_or_object() -> None:
    """Built-ins can be named; custom recognisers are objects; unknown names and twins fail."""
    badge = Recognizer("badge", "personal", r"\bbdg-\d{6}\b")
    classifier = PatternClassifier(["email", badge])
    result = classifier.classify("badge BDG-123456 for jo@example.com")
    assert result.findings == (
        Finding("badge", "personal", 6, 16),
        Finding("email", "pii", 21, 35),
    )
    with pytest.raises(ValueError, match="'emial' is not a built-in recognizer"):
        PatternClassifier(["emial"])
    with pytest.raises(ValueError, match="'email' is given twice"):
        PatternClassifier(["email", BUILTIN_RECOGNIZERS["email"].with_label("x")])


def test_from_policy_uses_patterns_and_mapped_builtins() -> None:
    """Policy patterns keep their validator and context; built-ins take the policy's labels."""
    classifier = PatternClassifier.from_policy(parse_policy(POLICY))
    assert [r.name for r in classifier.recognizers] == ["staff_card", "badge", "email", "icd10"]
    result = classifier.classify("jo@example.com paid 4111 1111 1111 1111; BDG-123456")
    assert [(f.recognizer, f.label) for f in result.findings] == [
        ("email", "personal"),
        ("staff_card", "financial"),
    ]  # the badge number has no "badge" word near it
    assert classifier.classify("badge BDG-123456").labels == {"personal"}
    assert classifier.classify("card 4111 1111 1111 1112").labels == frozenset()  # bad Luhn


def test_from_policy_without_builtins_runs_only_its_patterns() -> None:
    """An empty ``builtin`` map means the policy's own patterns and nothing else."""
    policy = parse_policy(POLICY.split("  builtin:", maxsplit=1)[0])
    classifier = PatternClassifier.from_policy(policy)
    assert [r.name for r in classifier.recognizers] == ["staff_card", "badge"]
    assert classifier.classify("jo@example.com").findings == ()


@pytest.mark.parametrize(
    ("regex", "text"),
    [
        (r"\bdiabète\b", "Le patient est suivi pour un diabète de type 2."),
        (r"\bDIABÈTE\b", "suivi pour un diabète"),
        (r"пароль: \S{6,}", "Ваш пароль: hunter2xyz"),
        (r"contraseña: \S{6,}", "La contraseña: hunter2xyz"),
        (r"straße \d+", "Hauptstraße 5"),
    ],
)
def test_a_pattern_written_with_letters_beyond_ascii_matches_them(regex: str, text: str) -> None:
    """Text is folded before matching (accents dropped, ``ß`` as ``ss``, look-alikes read as
    Latin letters), and so are a policy pattern's letters: it matches as written."""
    policy = parse_policy(
        f"classifiers:\n  patterns: [{{name: p, label: secret, regex: '{regex}'}}]\n"
    )
    assert PatternClassifier.from_policy(policy).classify(text).labels == {"secret"}


@pytest.mark.parametrize(
    ("yaml", "message"),
    [
        ("builtin: {passport: pii}", r"classifiers\.builtin\.passport .* use one of email"),
        ("patterns: [{name: x, label: ' ', regex: x}]", r"classifiers\.patterns\[0\]: .*label"),
        (
            "patterns: [{name: email, label: pii, regex: x}]\n  builtin: {email: pii}",
            r"classifiers: recognizer name 'email' is given twice",
        ),
    ],
)
def test_from_policy_rejects_bad_recognisers(yaml: str, message: str) -> None:
    """Unknown built-ins, empty labels and duplicate names are PolicyErrors naming the key."""
    policy = parse_policy(f"classifiers:\n  {yaml}\n")
    with pytest.raises(PolicyError, match=message):
        PatternClassifier.from_policy(policy)


def test_bind_restricts_to_the_vocabulary_and_records_dropped() -> None:
    """A bound copy keeps labels of the vocabulary and records the others as dropped."""
    classifier = PatternClassifier()
    bound = classifier.bind({"financial": LabelSpec(), UNCLASSIFIED: LabelSpec()})
    result = bound.classify(MIXED)
    assert result.labels == {"financial"}
    assert [f.recognizer for f in result.findings] == ["credit_card"]
    assert result.dropped == {"pii", "health"}
    assert classifier.classify(MIXED).labels == {"pii", "financial", "health"}  # unchanged


def test_labels_given_outlive_bind() -> None:
    """A classifier given ``labels=`` keeps them when a guard binds it to its vocabulary."""
    classifier = PatternClassifier(labels=["pii"])
    assert classifier.bind({"financial": LabelSpec()}) is classifier
    result = classifier.classify(MIXED)
    assert result.labels == {"pii"}
    assert result.dropped == {"financial", "health"}


def test_results_are_cached_per_text_and_bounded() -> None:
    """The same text is answered from the cache; the cache forgets the least recent text."""
    classifier = PatternClassifier(cache_size=1)
    first = classifier.classify(MIXED)
    assert classifier.classify(MIXED) is first
    classifier.classify("another text")
    again = classifier.classify(MIXED)
    assert again is not first
    assert again == first
    uncached = PatternClassifier(cache_size=0)
    assert uncached.classify(MIXED) is not uncached.classify(MIXED)


def test_only_recognisers_the_set_matched_are_scanned(monkeypatch: pytest.MonkeyPatch) -> None:
    """One RE2 set pass decides; text that matches nothing is never scanned per recogniser,
    and a recogniser with context words is scanned only where one of them occurs."""
    scanned: list[str] = []
    real = pattern_scan.span_finder

    def spying(regex: Any) -> Any:
        spans = real(regex)

        def spy(data: bytes, stop: int) -> list[tuple[int, int]]:
            scanned.append(regex.pattern)
            return spans(data, stop)

        return spy

    monkeypatch.setattr(pattern_scan, "span_finder", spying)
    classifier = PatternClassifier(cache_size=0)
    assert classifier.classify("nothing sensitive here at all").findings == ()
    assert scanned == []
    classifier.classify("write to jo@example.com")
    assert scanned == [BUILTIN_RECOGNIZERS["email"].regex]
    scanned.clear()
    classifier.classify("the account is closed")  # a context word: its recogniser only
    assert scanned == [BUILTIN_RECOGNIZERS["account_number"].regex]


@pytest.mark.parametrize(
    "classifier",
    [
        PatternClassifier(),
        PatternClassifier().bind({"financial": LabelSpec()}),
        PatternClassifier(["email"], labels=["pii"]),
    ],
)
def test_pickles_for_other_processes(classifier: PatternClassifier) -> None:
    """A pickled copy (as a batch worker receives it) answers and binds like the original."""
    copy = pickle.loads(pickle.dumps(classifier))
    assert copy.classify(MIXED) == classifier.classify(MIXED)
    assert copy.vocabulary == classifier.vocabulary
    vocabulary = {"health": LabelSpec()}
    assert copy.bind(vocabulary).classify(MIXED) == classifier.bind(vocabulary).classify(MIXED)


async def test_async_equals_sync() -> None:
    """``aclassify_many`` gives the same results as ``classify_many``, small batch or large."""
    classifier = PatternClassifier(cache_size=0)
    small = [MIXED, "nothing", "ip 10.0.0.1"]
    large = [f"{MIXED} {i}" * 40 for i in range(20)]
    for texts in (small, large):
        assert await classifier.aclassify_many(texts) == classifier.classify_many(texts)
    both = await asyncio.gather(classifier.aclassify_many(small), classifier.aclassify_many(large))
    assert list(both) == [classifier.classify_many(small), classifier.classify_many(large)]


def test_bad_input_fails_closed_without_raising() -> None:
    """A non-string or a recogniser that breaks gives ``unclassified`` with the reason."""

    def broken(_: str) -> bool:
        raise RuntimeError("checksum table missing")

    classifier = PatternClassifier([Recognizer("fragile", "pii", r"\d+", validator=broken)])
    result = classifier.classify("order 42")
    assert result == Classification.failed(
        "pattern classifier: RuntimeError: checksum table missing"
    )
    assert classifier.classify(None).labels == {UNCLASSIFIED}  # type: ignore[arg-type]
    assert classifier.classify_many(["no digits", "1"])[0].error is None


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=300))
def test_never_raises_and_spans_index_the_original(text: str) -> None:
    """Any text gets a result, and every finding lies inside the original text."""
    result = PatternClassifier(cache_size=0).classify(text)
    assert result.error is None
    for finding in result.findings:
        assert 0 <= finding.start < finding.end <= len(text)


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.sampled_from(["\u200b", "\u200d", "\u00ad", "\ufeff"]), min_size=15, max_size=15)
)
def test_invisible_characters_between_digits_do_not_hide_a_card(marks: list[str]) -> None:
    """Format characters between the digits of a card number never hide it."""
    digits = "4111111111111111"
    text = "card " + "".join(d + m for d, m in zip(digits, [*marks, ""], strict=True))
    findings = PatternClassifier(cache_size=0).classify(text).findings
    assert [(f.recognizer, text[f.start : f.end]) for f in findings] == [("credit_card", text[5:])]


@settings(max_examples=150, deadline=None)
@given(
    st.text(alphabet=st.sampled_from("λΩжЯ中語한😀é ß"), max_size=12),
    st.text(alphabet=st.sampled_from("λΩжЯ中語한😀é ß"), max_size=12),
)
def test_spans_after_characters_beyond_ascii_index_the_original(before: str, after: str) -> None:
    """Characters of other scripts, wider than one byte in UTF-8, before and after a value do
    not shift its span."""
    text = f"{before} mail jo@example.com or call +44 20 7946 0958 {after}"
    found = {
        f.recognizer: text[f.start : f.end]
        for f in PatternClassifier(cache_size=0).classify(text).findings
    }
    assert found == {"email": "jo@example.com", "phone": "+44 20 7946 0958"}
