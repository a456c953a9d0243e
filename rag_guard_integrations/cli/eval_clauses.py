"""``rag-guard eval clauses``: recall and false-match rate of each clause fingerprint, for the
regex, the semantic signal and the two combined, on labelled excerpts (CUAD)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from rag_guard_integrations.cli.console import print_json, table
from rag_guard_integrations.cli.help import CommandHelp, add_command
from rag_guard_integrations.evaluation.clauses import (
    FALSE_MATCH_TARGET,
    RECALL_TARGET,
    SPLITS,
    evaluate_clauses,
    evaluate_split,
    load_records,
)
from rag_guard_integrations.policy.loader import load_policy

if TYPE_CHECKING:
    import argparse
    from collections.abc import Mapping

HEADER = (
    "clause", "recall", "regex", "semantic", "false match", "regex", "semantic", "on target",
)  # fmt: skip
TITLES = {"tune": "tune half", "held_back": "held-back half"}
HELP = CommandHelp(
    summary="measure clause fingerprints on labelled real clauses (CUAD)",
    reads="--data: a JSONL file, one labelled contract excerpt a line ('text', 'category'; "
    "'contract_title' or 'document_name' for --split).",
    reads_example='{"text": "This Agreement shall be governed by the laws of Delaware.", '
    '"category": "Governing Law", "contract_title": "ACME SUPPLY AGREEMENT"}',
    prints="per clause id: recall and false-match rate of the fingerprint as the clause guard "
    "applies it, of the regex and of the semantic signal alone, and whether both meet the "
    "targets (--split: the same table for the tune and held-back halves, with pooled recall); "
    '--json: {"clauses": {CLAUSE_ID: {"categories", "recall", "false_match_rate", "regex", '
    '"semantic"}}}.',
    example="rag-guard eval clauses --data ../shared/data/cuad_clauses.jsonl --split",
)


def register(kinds: argparse._SubParsersAction[Any]) -> None:
    """Add ``eval clauses`` to the ``eval`` sub-commands."""
    parser = add_command(
        kinds,
        "clauses",
        HELP,
        description="Recall and false-match rate of each clause fingerprint on labelled "
        "contract excerpts (JSONL with 'text' and 'category', e.g. CUAD): combined as the "
        "clause guard applies it, and for the regex and the semantic signal alone.",
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
    print(f"all {len(records)} excerpts")
    print(table(HEADER, rows(result["clauses"])))
    if args.split:
        for half in SPLITS:
            part = result["split"][half]
            print(f"\n{TITLES[half]}: {part['records']} excerpts")
            print(table(HEADER, rows(part["clauses"])))
        print()
        for half in SPLITS:
            part = result["split"][half]
            print(f"{TITLES[half]}: pooled recall {part['pooled_recall']:.3f}")
        print(f"all: pooled recall {result['pooled_recall']:.3f}")
    print(
        f"\ntarget: recall >= {RECALL_TARGET}, false-match rate <= {FALSE_MATCH_TARGET}; "
        "recall and false match are the fingerprint as the clause guard applies it"
    )
    return 0


def rows(clauses: Mapping[str, Mapping[str, Any]]) -> list[tuple[Any, ...]]:
    """One table row per clause: combined, regex and semantic rates, and the verdict."""
    found = []
    for clause_id, scores in clauses.items():
        semantic = scores.get("semantic", {})
        found.append(
            (
                clause_id,
                _rate(scores["recall"]),
                _rate(scores["regex"]["recall"]),
                _rate(semantic.get("recall")),
                _rate(scores["false_match_rate"]),
                _rate(scores["regex"]["false_match_rate"]),
                _rate(semantic.get("false_match_rate")),
                _verdict(scores["recall"], scores["false_match_rate"]),
            )
        )
    return found


def _rate(value: float | None) -> float | str:
    return "-" if value is None else value


def _verdict(recall: float | None, false_match: float | None) -> str:
    if recall is None:
        return "-"
    ok = recall >= RECALL_TARGET and (false_match is None or false_match <= FALSE_MATCH_TARGET)
    return "yes" if ok else "no"
