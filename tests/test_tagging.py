"""Record tagging shared by the CLI and batch engines: labels added, input kept, failing closed."""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

import pytest

from rag_guard_integrations.classify.base import Classification
from rag_guard_integrations.classify.pattern import PatternClassifier
from rag_guard_integrations.classify.tagging import batches, labelled, tag_batch, tag_records

if TYPE_CHECKING:
    from collections.abc import Sequence

RECORDS: list[dict[str, Any]] = [
    {"id": 1, "text": "mail jo@example.com"},
    {"id": 2, "page_content": "card 4111 1111 1111 1111", "meta": {"source": "a"}},
    {"id": 3, "text": "jo@example.com", "metadata": {"classification": "public"}},
    {"id": 4, "metadata": {"source": "b"}},
    {"id": 5, "text": "nothing here"},
]


class Broken:
    """A classifier whose batch call raises, or answers with too few results."""

    def __init__(self, short: bool = False) -> None:
        self.short = short

    def classify_many(self, texts: Sequence[str]) -> list[Classification]:
        if self.short:
            return []
        raise ConnectionError("model server went away")


def test_labels_go_under_the_records_own_metadata_key() -> None:
    """Labels and findings go under ``metadata`` or ``meta``, whichever the record uses."""
    out = list(tag_records(RECORDS, PatternClassifier()))
    assert out[0]["metadata"] == {
        "classifications": ["pii"],
        "findings": [{"recognizer": "email", "label": "pii", "start": 5, "end": 19}],
    }
    assert out[1]["meta"]["source"] == "a"
    assert out[1]["meta"]["classifications"] == ["financial"]
    assert "metadata" not in out[1]
    assert out[4]["metadata"] == {"classifications": [], "findings": []}


def test_records_with_labels_are_kept_unless_overwrite() -> None:
    """A labelled record passes through unchanged; ``overwrite`` replaces its labels."""
    kept = list(tag_records(RECORDS, PatternClassifier()))[2]
    assert kept == RECORDS[2]
    replaced = list(tag_records(RECORDS, PatternClassifier(), overwrite=True))[2]
    assert replaced["metadata"]["classifications"] == ["pii"]
    assert "classification" not in replaced["metadata"]


def test_input_is_not_mutated_and_order_is_kept() -> None:
    """Tagging returns new records in input order and leaves the input as it was."""
    before = copy.deepcopy(RECORDS)
    out = list(tag_records(RECORDS, PatternClassifier(), batch_size=2))
    assert before == RECORDS
    assert [r["id"] for r in out] == [1, 2, 3, 4, 5]


def test_record_without_text_is_unclassified() -> None:
    """A record with no text string carries ``unclassified`` and says why."""
    metadata = list(tag_records(RECORDS, PatternClassifier()))[3]["metadata"]
    assert metadata["classifications"] == ["unclassified"]
    assert metadata["classification_error"] == "record has no 'text' string"
    assert metadata["source"] == "b"


@pytest.mark.parametrize(
    ("classifier", "reason"),
    [
        (Broken(), "classifier failed: ConnectionError: model server went away"),
        (Broken(short=True), "classifier returned 0 results for 1 text"),
    ],
)
def test_failing_classifier_fails_closed(classifier: Broken, reason: str) -> None:
    """A classifier that raises or miscounts, in the batch and then for each text alone,
    leaves every pending record ``unclassified`` with the reason."""
    tagged = tag_batch(RECORDS, classifier)  # type: ignore[arg-type]
    failed = [t for t in tagged if t.classification is not None and t.classification.error]
    assert [t.record["id"] for t in failed] == [1, 2, 4, 5]
    errors = {t.classification.error for t in failed if t.classification is not None}
    assert errors == {reason, "record has no 'text' string"}


def test_dropped_labels_are_recorded() -> None:
    """Labels a bound classifier dropped are listed next to the ones it kept."""
    record = labelled({"text": "x"}, Classification(frozenset(), dropped=frozenset({"pii"})))
    assert record["metadata"]["dropped_labels"] == ["pii"]


def test_batches_are_bounded() -> None:
    """Batches hold at most ``size`` items and a size below one is refused."""
    assert [len(b) for b in batches(range(5), 2)] == [2, 2, 1]
    with pytest.raises(ValueError, match="batch_size=0"):
        list(batches(range(5), 0))


def test_one_bad_record_costs_only_its_own_labels() -> None:
    """When the batch call fails, each text is classified alone: only the bad one fails."""

    class FailsOn(PatternClassifier):
        def classify_many(self, texts: Sequence[str]) -> list[Classification]:
            if any("poison" in t for t in texts):
                raise ValueError("cannot read this one")
            return super().classify_many(texts)

    records = [{"id": 1, "text": "mail a@example.com"}, {"id": 2, "text": "poison"}]
    tagged = tag_batch(records, FailsOn())
    assert [t.classification.labels if t.classification else None for t in tagged] == [
        frozenset({"pii"}),
        frozenset({"unclassified"}),
    ]
