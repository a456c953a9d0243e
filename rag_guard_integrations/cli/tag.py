"""``rag-guard tag``: label the records of a JSONL corpus, streaming and resumable."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from rag_guard_integrations.classify.factory import KINDS, build_classifier
from rag_guard_integrations.classify.tagging import batches, tag_batch
from rag_guard_integrations.cli.console import progress
from rag_guard_integrations.cli.help import CommandHelp, add_command
from rag_guard_integrations.cli.tag_corpus import (
    Summary,
    count_record,
    done_ids,
    print_report,
    unseen_records,
)
from rag_guard_integrations.cli.tag_ray import add_engine_arguments, run_ray, uses_ray
from rag_guard_integrations.core.errors import ArgumentError, DataError
from rag_guard_integrations.data.jsonl import json_line, read_jsonl

if TYPE_CHECKING:
    import argparse

    from rag_guard_integrations.policy.schema import Policy

BATCH_SIZE = 32


HELP = CommandHelp(
    summary="label the records of a JSONL corpus",
    reads="IN: records, one JSON object a line, with 'text' and 'meta' (or 'page_content' and "
    "'metadata'), optionally 'id'; with --engine ray, IN may be .parquet.",
    reads_example='{"id": "c1", "text": "Card 4111 1111 1111 1111 on file.", "meta": {}}',
    prints="OUT: the records with metadata.classifications and metadata.findings added "
    "(appended to, so an interrupted run resumes); on stdout, a summary of records per label "
    "and per outcome (--json: as one object).",
    findings="some record could not be classified (it carries 'unclassified')",
    example="rag-guard tag corpus.jsonl --out tagged.jsonl --policy default",
)


def register(commands: argparse._SubParsersAction[Any]) -> None:
    """Add the ``tag`` sub-command."""
    parser = add_command(
        commands,
        "tag",
        HELP,
        description=(
            "Add metadata.classifications and metadata.findings to every record of IN that "
            "has no labels yet (all of them under 'classify: always'). Records already in OUT "
            "(by id, else line number) are skipped, so an interrupted run can be resumed; "
            "records the classifier failed on are tagged again."
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
        choices=KINDS,
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
        raise DataError(f"{source}: no such input file; pass a JSONL file of records")
    if not out.parent.is_dir():
        raise ArgumentError(f"--out {out}: folder {out.parent} does not exist; create it")
    if out.is_dir():
        raise ArgumentError(f"--out {out} is a folder; name a file, e.g. {out / 'tagged.jsonl'}")
    if out.exists() and not out.is_file():
        # It is read back to resume: a device such as /dev/zero would be read forever.
        raise ArgumentError(f"--out {out} is not a regular file; name a file to write")
    if out.resolve() == source.resolve():
        raise ArgumentError(f"--out {out} is the input file; write the labels to another file")
    if args.model is not None and args.classifier != "llm":
        raise ArgumentError(f"--model {args.model} applies to --classifier llm only; drop it")
    if args.classifier == "llm" and args.model is None:
        raise ArgumentError(
            "--classifier llm needs --model NAME (an Ollama chat model, e.g. llama3.2)"
        )
    if uses_ray(args):  # the Ray Data engine (cli/tag_ray.py)
        return run_ray(args)
    policy = _policy(args.policy)
    classifier = build_classifier(args.classifier, args.model, policy)
    overwrite = policy is not None and policy.classify == "always"
    done = done_ids(out)
    summary = Summary()
    total = _count_lines(source)
    with out.open("a", encoding="utf-8") as sink:
        todo = unseen_records(progress(read_jsonl(source), total, "tag"), done, summary)
        for batch in batches(todo, BATCH_SIZE):
            for tagged in tag_batch(batch, classifier, overwrite=overwrite):
                sink.write(json_line(tagged.record) + "\n")
                count_record(summary, tagged.record, tagged.classification)
            sink.flush()
    print_report(summary, args, out)
    return 1 if summary.failed else 0


def _policy(ref: str | None) -> Policy | None:
    if ref is None:
        return None
    from rag_guard_integrations.policy.loader import load_policy  # noqa: PLC0415

    return load_policy(ref)


def _count_lines(path: Path) -> int:
    with path.open("rb") as handle:
        return sum(1 for line in handle if line.strip())
