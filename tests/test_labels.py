"""Tests for label metadata: reading and cleaning labels, and trusting them only as far as the
policy's vocabulary (unknown labels reported, or blocked with ``on_unknown_label: block``)."""

from __future__ import annotations

from typing import Any

import pytest

from rag_guard_integrations import Chunk, Guard, parse_policy
from rag_guard_integrations.core.labels import (
    UNCLASSIFIED,
    clean_label,
    has_label_metadata,
    metadata_labels,
)

POLICY = """
version: 1
labels:
  financial: {description: money figures}
  person: {description: names of people}
rules:
  - name: money_and_names
    trigger: {all_present: [financial, person]}
  - name: deal_terms_warning
    action: warn
    trigger: {all_present: [deal_terms]}
"""


def guard(mode: str = "report", policy: str = POLICY) -> Guard:
    return Guard(parse_policy(policy + f"on_unknown_label: {mode}\n"))


def labelled(*labels: str) -> Chunk:
    return Chunk("text", {"classifications": list(labels)})


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        (" Financial  Data", "financial_data"),
        ("FINANCIAL", "financial"),
        ("f\u0456nancial", "financial"),
        ("fin\u200bancial\u00ad", "financial"),
        ("ｆｉｎａｎｃｉａｌ", "financial"),
        ("deal-terms", "deal_terms"),
    ],
)
def test_clean_label_folds_spelling_tricks(raw: str, clean: str) -> None:
    """Labels are case-folded, normalised and joined with underscores."""
    assert clean_label(raw) == clean


@pytest.mark.parametrize(
    ("metadata", "labels", "problem"),
    [
        ({}, set(), False),
        ({"classification": "Financial"}, {"financial"}, False),
        ({"classifications": ["a", "B "], "classification": "c"}, {"a", "b", "c"}, False),
        ({"classifications": ("a",)}, {"a"}, False),
        ({"classifications": ["", "  "]}, set(), False),
        ({"classification": 3}, {UNCLASSIFIED}, True),
        ({"classifications": ["a", ["b"]]}, {"a", UNCLASSIFIED}, True),
    ],
)
def test_metadata_labels(metadata: dict[str, Any], labels: set[str], problem: bool) -> None:
    """Strings and lists of strings are read; anything else adds ``unclassified`` and a problem."""
    found, why = metadata_labels(metadata)
    assert found == labels
    assert (why is not None) is problem


@pytest.mark.parametrize(
    ("value", "given"),
    [(None, False), ("", False), ([], False), ((), False), ("a", True), (["a"], True), (7, True)],
)
def test_has_label_metadata(value: object, given: bool) -> None:
    """Only a non-empty value counts as the chunk bringing labels of its own."""
    assert has_label_metadata({"classifications": value}) is given


def test_has_label_metadata_accepts_array_like_values() -> None:
    """An array-like value (which compares element-wise) is answered, not raised on."""
    import numpy as np

    assert has_label_metadata({"classifications": np.array(["a", "b"])})


def test_unknown_labels_are_reported_and_the_chunk_judged_on() -> None:
    """With ``report``, labels outside the vocabulary are listed and the chunk still passes."""
    result = guard("report").check("q", [labelled("financial", "Public", "Secret Stuff")])
    assert result.unknown_labels == {0: {"public", "secret_stuff"}}
    assert result.decisions[0].allowed
    assert result.to_dict()["unknown_labels"] == {"0": ["public", "secret_stuff"]}


def test_unknown_labels_block_the_chunk_in_block_mode() -> None:
    """With ``block``, a chunk carrying an unknown label is denied at stage ``labels``."""
    chunks = [labelled("financial", "public"), labelled("financial")]
    result = guard("block").check("q", chunks)
    assert result.unknown_labels == {0: {"public"}}
    first, second = result.decisions
    assert (first.allowed, first.stage) == (False, "labels")
    assert first.reason == "labels outside the vocabulary: public"
    assert second.allowed


def test_misspelt_label_cannot_dodge_a_rule_in_block_mode() -> None:
    """A label spelt so that no rule matches it is unknown, so block mode withholds it; a
    look-alike spelling is folded to the real label and the rule fires."""
    dodging = guard("block").check("q", [labelled("financail"), labelled("person")])
    assert [(d.allowed, d.stage) for d in dodging.decisions] == [
        (False, "labels"),
        (True, "passed"),
    ]
    disguised = guard("block").check("q", [labelled("FІNANCIAL\u200b"), labelled("person")])
    assert [v.rule for v in disguised.violations] == ["money_and_names"]
    assert disguised.unknown_labels == {}


def test_rule_labels_and_unclassified_belong_to_the_vocabulary() -> None:
    """Labels named only by a rule, and ``unclassified``, are not unknown."""
    result = guard("block").check("q", [labelled("deal_terms"), labelled("unclassified")])
    assert result.unknown_labels == {}
    assert [w.rule for w in result.warnings] == ["deal_terms_warning"]


def test_without_a_declared_vocabulary_no_label_is_unknown_when_reporting() -> None:
    """A policy without ``labels:`` that only reports does not judge metadata labels."""
    policy = "version: 1\nrules:\n  - name: r\n    trigger: {all_present: [a, b]}\n"
    result = guard("report", policy).check("q", [labelled("anything", "else")])
    assert result.unknown_labels == {}
    assert result.decisions[0].allowed


def test_blocking_unknown_labels_without_a_labels_section_blocks_all_but_rule_labels() -> None:
    """``on_unknown_label: block`` with rules alone: the rules' labels (and ``unclassified``)
    are the vocabulary, and a chunk claiming any other label is withheld."""
    policy = "version: 1\nrules:\n  - name: r\n    trigger: {all_present: [a, b]}\n"
    result = guard("block", policy).check("q", [labelled("top_secret"), labelled("a")])
    assert result.unknown_labels == {0: {"top_secret"}}
    assert [(d.allowed, d.stage) for d in result.decisions] == [(False, "labels"), (True, "passed")]
