"""Labelling corpus records: the per-record logic shared by ``rag-guard tag`` and batch engines.

A record is a JSON object with the text under ``text`` (or ``page_content``) and its metadata
under ``metadata`` (or ``meta``), one of each, as the guard reads them. Tagging adds
``classifications`` (sorted labels) and ``findings`` to that metadata; ``classification_error``
and ``dropped_labels`` appear only when there is something to say. Records that already carry
labels are kept as they are unless ``overwrite`` is set (the policy's ``classify: always``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import islice
from typing import TYPE_CHECKING, Any

from rag_guard_integrations.classify.base import Classification
from rag_guard_integrations.core.arguments import a_type
from rag_guard_integrations.core.chunk import record_keys
from rag_guard_integrations.core.errors import ArgumentError, ChunkError
from rag_guard_integrations.core.labels import LABEL_KEYS, has_label_metadata

if TYPE_CHECKING:
    from rag_guard_integrations.classify.base import Classifier

DEFAULT_BATCH_SIZE = 64


@dataclass(frozen=True, slots=True)
class Tagged:
    """One output record and the classification it got (None: kept with its own labels);
    ``retried`` when its batch call failed and it was classified alone."""

    record: dict[str, Any]
    classification: Classification | None
    retried: bool = False


def metadata_key(record: Mapping[str, Any], where: str = "record") -> str:
    """The key the guard reads the record's metadata from, so labels are written there.

    Raises:
        ChunkError: the record has both ``meta`` and ``metadata`` (or both text keys), or its
            metadata is not a mapping.
    """
    key = record_keys(record, where)[1]
    value = record.get(key)
    if value is not None and not isinstance(value, Mapping):
        raise ChunkError(f"{where} {key} is {a_type(value)}; it must be a mapping of metadata")
    return key


def needs_labels(record: Mapping[str, Any], overwrite: bool = False) -> bool:
    """True when the record is to be classified: it has no labels yet, or ``overwrite``."""
    metadata = record.get(metadata_key(record))
    return overwrite or not isinstance(metadata, Mapping) or not has_label_metadata(metadata)


def labelled(record: Mapping[str, Any], classification: Classification) -> dict[str, Any]:
    """A copy of ``record`` whose metadata carries ``classification`` (the input is untouched)."""
    key = metadata_key(record)
    metadata = {
        name: value
        for name, value in (record.get(key) or {}).items()
        if name not in LABEL_KEYS  # new labels replace old ones rather than merge with them
    }
    metadata["classifications"] = sorted(classification.labels)
    metadata["findings"] = [
        {"recognizer": f.recognizer, "label": f.label, "start": f.start, "end": f.end}
        for f in classification.findings
    ]
    if classification.error is not None:
        metadata["classification_error"] = classification.error
    if classification.dropped:
        metadata["dropped_labels"] = sorted(classification.dropped)
    return {**record, key: metadata}


def tag_batch(
    records: Sequence[Mapping[str, Any]], classifier: Classifier, *, overwrite: bool = False
) -> list[Tagged]:
    """Classify the records of one batch that need labels (one ``classify_many`` call).

    Fails closed: a record without a text string, or a classifier that raises or answers with
    the wrong number of results, gives ``unclassified`` with the reason.
    """
    texts = {i: _text(r) for i, r in enumerate(records) if needs_labels(r, overwrite)}
    readable = {i: text for i, text in texts.items() if text is not None}
    found, retried = classify_each_on_failure(list(readable.values()), classifier)
    results = dict(zip(readable, found, strict=True))
    missing = Classification.failed("record has no 'text' string")
    tagged: list[Tagged] = []
    for i, record in enumerate(records):
        if i in texts:
            classification = results.get(i, missing)
            tagged.append(Tagged(labelled(record, classification), classification, retried))
        else:
            tagged.append(Tagged(dict(record), None))
    return tagged


def tag_records(
    records: Iterable[Mapping[str, Any]],
    classifier: Classifier,
    *,
    overwrite: bool = False,
    batch_size: int = DEFAULT_BATCH_SIZE,
) -> Iterator[dict[str, Any]]:
    """Yield each record with labels added, in order, holding one batch in memory at a time.

    Example:
        >>> from rag_guard_integrations.classify.pattern import PatternClassifier
        >>> rows = [{"id": 1, "text": "mail jo@example.com"}]
        >>> next(tag_records(rows, PatternClassifier()))["metadata"]["classifications"]
        ['pii']
    """
    for batch in batches(records, batch_size):
        for tagged in tag_batch(batch, classifier, overwrite=overwrite):
            yield tagged.record


def batches(items: Iterable[Any], size: int) -> Iterator[list[Any]]:
    """Consecutive lists of at most ``size`` items."""
    if size < 1:
        raise ArgumentError(f"batch_size={size!r} must be at least 1")
    iterator = iter(items)
    while batch := list(islice(iterator, size)):
        yield batch


def _text(record: Mapping[str, Any]) -> str | None:
    value = record.get(record_keys(record)[0])
    return value if isinstance(value, str) else None


def classify_each_on_failure(
    texts: Sequence[str], classifier: Classifier
) -> tuple[list[Classification], bool]:
    """One batch call; when it raises or miscounts, each text is classified alone, so one bad
    record costs only its own labels. Returns the results and whether it fell back."""
    if not texts:
        return [], False
    try:
        found = list(classifier.classify_many(texts))
    except Exception:  # each text is tried again alone just below
        found = []
    if len(found) == len(texts):
        return found, False
    return [_classify_alone(text, classifier) for text in texts], True


def _classify_alone(text: str, classifier: Classifier) -> Classification:
    try:
        found = list(classifier.classify_many([text]))
    except Exception as error:  # a failing classifier must not leave a record unlabelled
        return Classification.failed(f"classifier failed: {type(error).__name__}: {error}")
    if len(found) != 1:
        return Classification.failed(f"classifier returned {len(found)} results for 1 text")
    return found[0]
