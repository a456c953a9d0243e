"""What both ``rag-guard tag`` engines share: reading and resuming records, and the summary."""

from __future__ import annotations

import json
import sys
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rag_guard_integrations.classify.tagging import metadata_key
from rag_guard_integrations.cli.console import print_json, table
from rag_guard_integrations.core.errors import ChunkError, DataError
from rag_guard_integrations.core.labels import metadata_labels
from rag_guard_integrations.data.jsonl import parse_line

if TYPE_CHECKING:
    import argparse
    from collections.abc import Iterator
    from pathlib import Path

    from rag_guard_integrations.classify.base import Classification


@dataclass
class Summary:
    """What one run did, for the closing report."""

    read: int = 0
    skipped: int = 0
    tagged: int = 0
    kept: int = 0
    failed: int = 0
    unlabelled: int = 0
    labels: Counter[str] = field(default_factory=Counter)
    dropped: Counter[str] = field(default_factory=Counter)
    first_error: str | None = None  # why the classifier failed on the first record it did

    def to_dict(self) -> dict[str, Any]:
        """The summary as JSON-ready data."""
        return {
            "records": self.read,
            "skipped": self.skipped,
            "tagged": self.tagged,
            "kept": self.kept,
            "unclassified": self.failed,
            "unlabelled": self.unlabelled,
            "labels": dict(sorted(self.labels.items())),
            "dropped": dict(sorted(self.dropped.items())),
        }


def done_ids(out: Path) -> set[str]:
    """Ids of the records already in ``out``. A line cut off by an interrupted run, and a
    record the classifier failed on (it carries ``classification_error``), are removed from
    ``out``: they are tagged again."""
    done: set[str] = set()
    if not out.exists():
        return done
    kept: list[bytes] = []
    retried = False
    with out.open("r+b") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.endswith(b"\n"):
                retried = True  # the last write of an interrupted run: it is done again
                break
            if line.strip():
                record = parse_line(line, out, number)
                if _failed(record):
                    retried = True
                    continue
                done.add(record_id(record, number))
            kept.append(line)
        if retried:
            handle.seek(0)
            handle.write(b"".join(kept))
            handle.truncate()
    return done


def _failed(record: dict[str, Any]) -> bool:
    """Whether the classifier failed on this tagged record (it is ``unclassified`` for now)."""
    try:
        metadata = record.get(metadata_key(record))
    except ChunkError:
        return False
    return isinstance(metadata, dict) and "classification_error" in metadata


def record_id(record: dict[str, Any], line: int) -> str:
    """The key a record is resumed by: its ``id`` (as JSON), else its line number."""
    value = record.get("id")
    return json.dumps(line if value is None else value, sort_keys=True)


def unseen_records(
    records: Iterator[tuple[int, dict[str, Any]]], done: set[str], summary: Summary
) -> Iterator[dict[str, Any]]:
    """The records of IN not yet in OUT. A record whose shape the guard would refuse (two texts,
    two metadata, metadata that is no mapping), or two records of IN with one key (a repeated
    id, or a line number another record uses as its id, so one would be lost) are an error."""
    seen: dict[str, int] = {}
    for number, record in records:
        summary.read += 1
        try:
            metadata_key(record, f"line {number}")
        except ChunkError as error:
            raise DataError(f"{error}; fix the record") from None
        key = record_id(record, number)
        if key in seen:
            raise DataError(
                f"line {number}: its id {key} is also the id of line {seen[key]} (a record "
                "without an id takes its line number); give every record a unique id"
            )
        seen[key] = number
        if key in done:
            summary.skipped += 1
            continue
        # The line number becomes the id, so that the output can be resumed from.
        yield record if "id" in record and record["id"] is not None else {"id": number, **record}


def count_record(
    summary: Summary, record: dict[str, Any], classification: Classification | None
) -> None:
    if classification is None:
        summary.kept += 1
        metadata = record.get(metadata_key(record)) or {}
        labels, _ = metadata_labels(metadata)
    else:
        summary.tagged += 1
        labels = classification.labels
        summary.dropped.update(classification.dropped)
        if classification.error is not None:
            summary.failed += 1
            summary.first_error = summary.first_error or classification.error
    summary.labels.update(labels)
    summary.unlabelled += not labels


def print_report(summary: Summary, args: argparse.Namespace, out: Path) -> None:
    data = summary.to_dict()
    if args.json:
        print_json(
            {"input": str(args.input), "output": str(out), "classifier": args.classifier, **data}
        )
        return
    rows = sorted(summary.labels.items(), key=lambda item: (-item[1], item[0]))
    print(table(("label", "records"), rows or [("(none)", 0)]))
    counts = [
        ("read", summary.read),
        ("skipped (already in output)", summary.skipped),
        ("tagged", summary.tagged),
        ("kept (already labelled)", summary.kept),
        ("unclassified (classifier failed)", summary.failed),
        ("no label found", summary.unlabelled),
    ]
    print()
    print(table(("records", "count"), counts))
    if summary.failed:
        print(
            f"{summary.failed} record(s) could not be classified ({summary.first_error}); they "
            "carry 'unclassified' and are tagged again when the command is run again",
            file=sys.stderr,
        )
    if summary.dropped:
        print(
            f"labels outside the vocabulary, dropped: {', '.join(sorted(summary.dropped))}",
            file=sys.stderr,
        )
