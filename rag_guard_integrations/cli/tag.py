"""``rag-guard tag``: label the records of a JSONL corpus, streaming and resumable."""

from __future__ import annotations

import json
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rag_guard_integrations.classify.factory import build_classifier
from rag_guard_integrations.classify.tagging import batches, metadata_key, tag_batch
from rag_guard_integrations.cli.output import parse_line, print_json, progress, table
from rag_guard_integrations.cli.tag_ray import add_engine_arguments, run_ray, uses_ray
from rag_guard_integrations.core.errors import ChunkError, InputError
from rag_guard_integrations.core.labels import metadata_labels

if TYPE_CHECKING:
    import argparse
    from collections.abc import Iterator

    from rag_guard_integrations.classify.base import Classification
    from rag_guard_integrations.policy.schema import Policy

CLASSIFIERS = ("pattern", "embedding", "llm")
BATCH_SIZE = 32


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


def register(commands: argparse._SubParsersAction[Any]) -> None:
    """Add the ``tag`` sub-command."""
    parser = commands.add_parser(
        "tag",
        help="label the records of a JSONL corpus",
        description=(
            "Add metadata.classifications and metadata.findings to every record of IN that "
            "has no labels yet (all of them under 'classify: always'). Records already in OUT "
            "(by id, else line number) are skipped, so an interrupted run can be resumed. "
            "Exit 1 when some record could not be classified."
        ),
    )
    parser.add_argument("input", type=Path, metavar="IN.jsonl", help="records, one JSON per line")
    parser.add_argument(
        "--out",
        type=Path,
        required=True,
        metavar="OUT.jsonl",
        help="output JSONL; appended to, so a run can resume",
    )
    parser.add_argument("--policy", help="built-in name or YAML path: recognisers and labels")
    parser.add_argument(
        "--classifier",
        choices=CLASSIFIERS,
        default="pattern",
        help="pattern: regex recognisers (default); embedding: zero-shot on label "
        "descriptions; llm: a chat model served by Ollama",
    )
    parser.add_argument("--model", help="Ollama chat model for --classifier llm (e.g. llama3.2)")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    add_engine_arguments(parser)  # --engine, --address, --num-cpus (cli/tag_ray.py)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Tag IN into OUT and print the summary; 1 when a record could not be classified."""
    source: Path = args.input
    out: Path = args.out
    if not source.is_file():
        raise FileNotFoundError(f"{source}: no such input file; pass a JSONL file of records")
    if not out.parent.is_dir():
        raise FileNotFoundError(f"--out {out}: folder {out.parent} does not exist; create it")
    if out.resolve() == source.resolve():
        raise ValueError(f"--out {out} is the input file; write the labels to another file")
    if uses_ray(args):  # the Ray Data engine (cli/tag_ray.py)
        return run_ray(args)
    policy = _policy(args.policy)
    classifier = build_classifier(args.classifier, args.model, policy)
    overwrite = policy is not None and policy.classify == "always"
    done = done_ids(out)
    summary = Summary()
    total = _count_lines(source)
    with out.open("a", encoding="utf-8") as sink:
        todo = unseen_records(progress(read_records(source), total, "tag"), done, summary)
        for batch in batches(todo, BATCH_SIZE):
            for tagged in tag_batch(batch, classifier, overwrite=overwrite):
                sink.write(json.dumps(tagged.record, ensure_ascii=False) + "\n")
                count_record(summary, tagged.record, tagged.classification)
            sink.flush()
    print_report(summary, args, out)
    return 1 if summary.failed else 0


def done_ids(out: Path) -> set[str]:
    """Ids of the records already in ``out``; a line cut off by an interrupted run is removed."""
    done: set[str] = set()
    if not out.exists():
        return done
    with out.open("r+b") as handle:
        good = 0
        for number, line in enumerate(handle, start=1):
            if not line.endswith(b"\n"):
                break  # the last write of an interrupted run: drop it, it is done again
            if line.strip():
                record = _parse(line, out, number)
                done.add(record_id(record, number))
            good += len(line)
        handle.truncate(good)
    return done


def record_id(record: dict[str, Any], line: int) -> str:
    """The key a record is resumed by: its ``id`` (as JSON), else its line number."""
    value = record.get("id")
    return json.dumps(line if value is None else value, sort_keys=True)


def _policy(ref: str | None) -> Policy | None:
    if ref is None:
        return None
    from rag_guard_integrations.policy.loader import load_policy  # noqa: PLC0415

    return load_policy(ref)


def read_records(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    with path.open("rb") as handle:
        for number, line in enumerate(handle, start=1):
            if line.strip():
                yield number, _parse(line, path, number)


def unseen_records(
    records: Iterator[tuple[int, dict[str, Any]]], done: set[str], summary: Summary
) -> Iterator[dict[str, Any]]:
    """The records of IN not yet in OUT. Two records of IN with one key (a repeated id, or a
    line number that another record uses as its id) are an error: one of them would be lost."""
    seen: dict[str, int] = {}
    for number, record in records:
        summary.read += 1
        key = record_id(record, number)
        if key in seen:
            raise InputError(
                f"line {number}: its id {key} is also the id of line {seen[key]} (a record "
                "without an id takes its line number); give every record a unique id"
            )
        seen[key] = number
        if key in done:
            summary.skipped += 1
            continue
        # The line number becomes the id, so that the output can be resumed from.
        yield record if "id" in record and record["id"] is not None else {"id": number, **record}


def _parse(line: bytes, path: Path, number: int) -> dict[str, Any]:
    where = f"{path}:{number}"
    record = parse_line(line, where)
    if not isinstance(record, dict):
        kind = type(record).__name__
        raise InputError(f"{where}: a JSON {kind}, not an object; one record per line")
    try:
        metadata_key(record, where)
    except ChunkError as error:
        raise InputError(str(error)) from None
    return record


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
        summary.failed += classification.error is not None
    summary.labels.update(labels)
    summary.unlabelled += not labels


def _count_lines(path: Path) -> int:
    with path.open("rb") as handle:
        return sum(1 for line in handle if line.strip())


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
    if summary.dropped:
        print(
            f"labels outside the vocabulary, dropped: {', '.join(sorted(summary.dropped))}",
            file=sys.stderr,
        )
