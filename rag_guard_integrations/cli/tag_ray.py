"""``rag-guard tag --engine ray``: the same labels and summary as the local engine, on Ray Data."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rag_guard_integrations.classify.base import Classification
from rag_guard_integrations.classify.tagging import metadata_key
from rag_guard_integrations.cli.console import print_json, progress, table
from rag_guard_integrations.cli.tag_corpus import (
    Summary,
    count_record,
    done_ids,
    unseen_records,
)
from rag_guard_integrations.cli.tag_corpus import print_report as local_report
from rag_guard_integrations.core.errors import ArgumentError, InputError
from rag_guard_integrations.data.jsonl import json_line, read_jsonl
from rag_guard_integrations.scale import (
    DEFAULT_BATCH_SIZE,
    KEPT,
    RETRIED,
    ClassifierSpec,
    RayEngineError,
    ray_session,
    tag_dataset,
)
from rag_guard_integrations.scale_worker import records_of, table_of

if TYPE_CHECKING:
    import argparse
    from collections.abc import Iterator
    from pathlib import Path


PARQUET_SUFFIXES = (".parquet", ".pq")
RECORD, STATUS = "record", "status"


def add_engine_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``--engine``, ``--address`` and ``--num-cpus`` to the ``tag`` parser."""
    parser.add_argument(
        "--engine",
        choices=("local", "ray"),
        default="local",
        help="local: this process; ray: Ray Data workers (JSONL or .parquet in and out)",
    )
    parser.add_argument(
        "--address", help="Ray cluster to run on (ray://HOST:10001, or auto); default: a local one"
    )
    parser.add_argument(
        "--num-cpus", type=int, metavar="N", help="CPUs of the local Ray instance (default: all)"
    )


def uses_ray(args: argparse.Namespace) -> bool:
    """True when the run goes to :func:`run_ray` (which rejects Ray options without the engine)."""
    return bool(args.engine == "ray" or args.address is not None or args.num_cpus is not None)


def run_ray(args: argparse.Namespace) -> int:
    """Tag IN into OUT on Ray and print the summary; 1 when a record could not be classified.

    A JSONL OUT is appended to and resumed like the local engine's; a Parquet OUT is written
    whole at the end. Records travel to the workers as JSON text (JSONL input), so that
    records of differing shape come back exactly as the local engine writes them, or as
    Arrow rows (Parquet input).
    """
    if args.engine != "ray":
        raise ArgumentError("--address and --num-cpus apply to --engine ray; add --engine ray")
    if args.num_cpus is not None and (args.address is not None or args.num_cpus < 1):
        hint = "drop it with --address" if args.address else "use 1 or more"
        raise ArgumentError(f"--num-cpus {args.num_cpus} is for a local Ray instance; {hint}")
    source: Path = args.input
    out: Path = args.out
    spec = ClassifierSpec(args.classifier, args.policy, args.model)
    spec.check()
    as_json = not _is_parquet(source)
    done = _fresh_parquet(out) if _is_parquet(out) else done_ids(out)
    summary = Summary()
    records = list(unseen_records(read_records(source), done, summary))
    retried = 0
    with _Sink(out) as sink:
        for record, status in progress(_tag(records, spec, as_json, args), len(records), "tag"):
            sink.write(record)
            classification = None if status == KEPT else _classification(record)
            count_record(summary, record, classification)
            retried += status == RETRIED
    print_report(summary, retried, args)
    return 1 if summary.failed else 0


def _is_parquet(path: Path) -> bool:
    return path.suffix.lower() in PARQUET_SUFFIXES


def _fresh_parquet(out: Path) -> set[str]:
    if out.exists():
        raise ArgumentError(
            f"--out {out} exists; Parquet output is written whole: remove it or pick a new name"
        )
    return set()


def read_records(source: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line or row number, record) pairs, numbered from 1 as the local engine numbers lines."""
    if not _is_parquet(source):
        yield from read_jsonl(source)
        return
    import pyarrow.parquet as pq  # noqa: PLC0415 - part of the ray extra

    yield from enumerate(pq.read_table(source).to_pylist(), start=1)


def _block(records: list[dict[str, Any]], as_json: bool) -> Any:
    import pyarrow as pa  # noqa: PLC0415

    if as_json:
        return pa.table({RECORD: [json_line(r) for r in records]})
    return table_of(records)


def _tag(
    records: list[dict[str, Any]], spec: ClassifierSpec, as_json: bool, args: argparse.Namespace
) -> Iterator[tuple[dict[str, Any], str]]:
    """The tagged records in input order, each with its status (Ray starts only if needed)."""
    if records:
        with ray_session(args.address, args.num_cpus) as ray:
            yield from _tag_on(ray, records, spec, as_json)


def _tag_on(
    ray: Any, records: list[dict[str, Any]], spec: ClassifierSpec, as_json: bool
) -> Iterator[tuple[dict[str, Any], str]]:
    size = DEFAULT_BATCH_SIZE
    blocks = [_block(records[i : i + size], as_json) for i in range(0, len(records), size)]
    source = ray.data.from_arrow(blocks)
    source.context.execution_options.preserve_order = True  # OUT follows IN, line for line
    column = RECORD if as_json else None
    dataset = tag_dataset(source, spec, json_column=column, status_column=STATUS)
    try:
        for batch in dataset.iter_batches(batch_size=None, batch_format="pyarrow"):
            statuses = batch.column(STATUS).to_pylist()
            yield from zip(records_of(batch.drop_columns([STATUS]), column), statuses, strict=True)
    except ray.exceptions.RayError as error:
        lines = [line for line in str(error).splitlines() if line.strip()]
        raise RayEngineError(f"the Ray run failed after its retries: {lines[-1]}") from None


def _classification(record: dict[str, Any]) -> Classification:
    """What the summary needs of a tagged record's classification, read back from it."""
    metadata = record.get(metadata_key(record)) or {}
    return Classification(
        frozenset(metadata.get("classifications") or ()),
        dropped=frozenset(metadata.get("dropped_labels") or ()),
        error=metadata.get("classification_error"),
    )


class _Sink:
    """JSONL: appended and flushed as records come (resumable). Parquet: written at the end."""

    def __init__(self, out: Path) -> None:
        self.out = out
        self._rows: list[dict[str, Any]] | None = [] if _is_parquet(out) else None

    def __enter__(self) -> _Sink:
        self._file = None if self._rows is not None else self.out.open("a", encoding="utf-8")
        return self

    def write(self, record: dict[str, Any]) -> None:
        if self._rows is not None:
            self._rows.append(record)
        elif self._file is not None:
            # default=str: Parquet input can hold dates and decimals, which JSON has not
            self._file.write(json_line(record, default=str) + "\n")

    def __exit__(self, kind: object, error: object, trace: object) -> None:
        if self._file is not None:
            self._file.close()
        elif self._rows is not None and kind is None:
            _write_parquet(self._rows, self.out)


def _write_parquet(rows: list[dict[str, Any]], out: Path) -> None:
    import pyarrow as pa  # noqa: PLC0415
    import pyarrow.parquet as pq  # noqa: PLC0415

    try:
        tagged = table_of(rows)
    except (pa.ArrowInvalid, pa.ArrowTypeError) as error:
        raise InputError(
            f"--out {out}: the records do not fit one Parquet schema ({error}); write JSONL"
        ) from None
    pq.write_table(tagged, out)


def print_report(summary: Summary, retried: int, args: argparse.Namespace) -> None:
    if args.json:
        data = {"input": str(args.input), "output": str(args.out), "classifier": args.classifier}
        print_json({**data, **summary.to_dict(), "engine": "ray", "retried": retried})
        return
    local_report(summary, args, args.out)
    print()
    print(
        table(("ray engine", "records"), [("classified alone after their batch failed", retried)])
    )
