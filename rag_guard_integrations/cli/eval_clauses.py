"""``rag-guard eval clauses``: its arguments and its table (the evaluation is
:mod:`rag_guard_integrations.evaluation.clauses`)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from rag_guard_integrations.cli.console import print_json, table
from rag_guard_integrations.cli.help import CommandHelp, add_command
from rag_guard_integrations.evaluation.clauses import (
    FALSE_MATCH_TARGET,
    RECALL_TARGET,
    evaluate_clauses,
    evaluate_split,
    load_records,
)
from rag_guard_integrations.evaluation.split import SPLITS
from rag_guard_integrations.policy.loader import load_policy

if TYPE_CHECKING:
    import argparse


HELP = CommandHelp(
    summary="measure clause fingerprints on labelled real clauses (CUAD)",
    reads="--data: a JSONL file, one labelled contract excerpt a line ('text', 'category'; "
    "'contract_title' or 'document_name' for --split).",
    reads_example='{"text": "This Agreement shall be governed by the laws of Delaware.", '
    '"category": "Governing Law", "contract_title": "ACME SUPPLY AGREEMENT"}',
    prints="per clause id: its CUAD categories, recall, false-match rate and whether both meet "
    "the targets (--split: on the tune and held-back halves too, with pooled recall); "
    '--json: {"clauses": {CLAUSE_ID: {"categories", "recall", "false_match_rate"}}}.',
    example="rag-guard eval clauses --data ../shared/data/cuad_clauses.jsonl --split",
)


def register(kinds: argparse._SubParsersAction[Any]) -> None:
    """Add ``eval clauses`` to the ``eval`` sub-commands."""
    parser = add_command(
        kinds,
        "clauses",
        HELP,
        description="Recall and false-match rate of each clause fingerprint on labelled "
        "contract excerpts (JSONL with 'text' and 'category', e.g. CUAD).",
    )
    parser.add_argument("--data", required=True, type=Path, help="JSONL file of labelled excerpts")
    parser.add_argument(
        "--policy",
        nargs="+",
        default=["contracts"],
        metavar="POLICY",
        help="built-in policy names or paths (default: contracts)",
    )
    parser.add_argument(
        "--split",
        action="store_true",
        help="also measure the tune and held-back halves of the documented split "
        "(SHA-256 of each excerpt's document name)",
    )
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Evaluate and print the result; always 0, since a measurement is not a finding."""
    records, policy = load_records(args.data), load_policy(*args.policy)
    result = evaluate_split(records, policy) if args.split else evaluate_clauses(records, policy)
    if args.json:
        print_json(result)
        return 0
    halves = [result["split"][half]["clauses"] for half in SPLITS] if args.split else []
    rows = [
        (
            clause_id,
            ", ".join(scores["categories"]) or "-",
            _rate(scores["recall"]),
            *(_rate(half[clause_id]["recall"]) for half in halves),
            _rate(scores["false_match_rate"]),
            *(_rate(half[clause_id]["false_match_rate"]) for half in halves),
            _verdict(scores["recall"], scores["false_match_rate"]),
        )
        for clause_id, scores in result["clauses"].items()
    ]
    if args.split:
        header: tuple[str, ...] = (
            "clause", "CUAD categories", "recall", "tune", "held back",
            "false match", "tune", "held back", "on target",
        )  # fmt: skip
    else:
        header = ("clause", "CUAD categories", "recall", "false match", "on target")
    print(table(header, rows))
    if args.split:
        for half in SPLITS:
            part = result["split"][half]
            print(f"{half}: {part['records']} excerpts, pooled recall {part['pooled_recall']:.3f}")
        print(f"all: pooled recall {result['pooled_recall']:.3f}")
    print(f"\ntarget: recall >= {RECALL_TARGET}, false-match rate <= {FALSE_MATCH_TARGET}")
    return 0


def _rate(value: float | None) -> float | str:
    return "-" if value is None else value


def _verdict(recall: float | None, false_match: float | None) -> str:
    if recall is None:
        return "-"
    ok = recall >= RECALL_TARGET and (false_match is None or false_match <= FALSE_MATCH_TARGET)
    return "yes" if ok else "no"
