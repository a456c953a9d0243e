"""``rag-guard eval leakage``: its arguments and its table (the evaluation is
:mod:`rag_guard_integrations.evaluation.leakage`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rag_guard_integrations.cli.console import print_json, progress, table
from rag_guard_integrations.cli.help import CommandHelp, add_command
from rag_guard_integrations.core.errors import ArgumentError
from rag_guard_integrations.evaluation.leakage import evaluate_leakage

if TYPE_CHECKING:
    import argparse


HELP = CommandHelp(
    summary="leakage and recall: naive vs guarded retrieval",
    reads="nothing from disk: a synthetic corpus of near-identical contracts and (query, "
    "principal) cases, drawn from --seed.",
    reads_example="--contracts 200 --cases 1000 --k 4 --seed 13",
    prints="per pipeline (naive top-k, LangChain GuardedRetriever, LlamaIndex "
    "GuardPostprocessor): leakage rate, authorised recall and short rate; --json: "
    '{"cases": N, "pipelines": {"naive": {...}, "langchain": {...}, "llamaindex": {...}}}.',
    example="rag-guard eval leakage --cases 200 --json",
)


def register(kinds: argparse._SubParsersAction[Any]) -> None:
    """Add ``eval leakage``."""
    parser = add_command(kinds, "leakage", HELP)
    parser.add_argument("--contracts", type=int, default=200, help="synthetic contracts (200)")
    parser.add_argument("--cases", type=int, default=1000, help="(query, principal) cases")
    parser.add_argument("--k", type=int, default=4, help="chunks per answer context")
    parser.add_argument("--seed", type=int, default=13, help="corpus and case seed")
    parser.add_argument("--json", action="store_true", help="machine-readable result")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Print the table, or JSON with ``--json``."""
    if min(args.contracts, args.cases, args.k) < 1:
        raise ArgumentError("contracts, cases and k must be at least 1")
    report = evaluate_leakage(args.contracts, args.cases, args.k, args.seed, progress)
    if args.json:
        print_json(report)
        return 0
    rows = [
        [name, r["leakage_rate"], r["authorised_recall"], r["short_rate"]]
        for name, r in report["pipelines"].items()
    ]
    print(
        f"{report['cases']} cases over {report['chunks']} chunks of {report['contracts']} "
        f"synthetic contracts, k={report['k']}"
    )
    print(table(["pipeline", "leakage rate", "authorised recall", "short rate"], rows))
    return 0
