"""``rag-guard eval prompt``: canary tokens through every integration path, per-path leak rates."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rag_guard_integrations.console import print_json, table
from rag_guard_integrations.evaluation.prompt.harness import DEFAULT_CASES, run_eval

if TYPE_CHECKING:
    import argparse

COLUMNS = (
    "prompt_leak_rate",
    "event_leak_rate",
    "log_leak_rate",
    "authorised_recall",
    "refusal_rate",
)


def register(kinds: argparse._SubParsersAction[Any]) -> None:
    """Add ``eval prompt``."""
    parser = kinds.add_parser(
        "prompt", help="prompt, event and log leaks through every integration path"
    )
    parser.add_argument(
        "--cases",
        type=int,
        default=DEFAULT_CASES,
        help=f"cases per path and mode ({DEFAULT_CASES})",
    )
    parser.add_argument("--paths", default=None, help="comma-separated path names (default all)")
    parser.add_argument("--seed", type=int, default=0, help="corpus and case seed")
    parser.add_argument("--json", action="store_true", help="machine-readable result")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Print the table, or JSON with ``--json``."""
    paths = None if args.paths is None else [p.strip() for p in args.paths.split(",") if p.strip()]
    report = run_eval(cases=args.cases, paths=paths, seed=args.seed)
    if args.json:
        print_json(report)
        return 0
    rows = [
        [name, r["cases"], *(r[c] for c in COLUMNS), r["seconds"]]
        for name, r in report["paths"].items()
    ]
    print(f"{report['cases']} cases (each path sync and async)")
    print(table(["path", "cases", *(c.removesuffix("_rate") for c in COLUMNS), "seconds"], rows))
    return 0
