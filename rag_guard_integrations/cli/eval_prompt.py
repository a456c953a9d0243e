"""``rag-guard eval prompt``: canary tokens through every integration path, per-path leak rates."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rag_guard_integrations.cli.console import print_json, print_line, table
from rag_guard_integrations.cli.help import CommandHelp, add_command
from rag_guard_integrations.core.errors import ArgumentError
from rag_guard_integrations.evaluation.prompt.harness import DEFAULT_CASES, load_paths, run_eval

if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable

COLUMNS = (
    "prompt_leak_rate",
    "event_leak_rate",
    "log_leak_rate",
    "authorised_recall",
    "refusal_rate",
)


HELP = CommandHelp(
    summary="prompt, event and log leaks through every integration path",
    reads="nothing from disk: a synthetic contract corpus whose chunks carry canary tokens, "
    "and cases of (question, caller) drawn from --seed; --paths picks integration paths by "
    "name (--list names them all, one line each).",
    reads_example="--paths langchain_lcel,llamaindex_query_engine --cases 20",
    prints="per path, each case run sync and async: the rate of cases whose forbidden canary "
    "reached the prompt, the events (callbacks, event streams, instrumentation) or the logs, "
    'authorised recall, refusal rate and seconds; --json: {"cases": N, "paths": {PATH: '
    "{...}}}; --list: every path's name and what it runs.",
    example="rag-guard eval prompt --list",
)


def register(kinds: argparse._SubParsersAction[Any]) -> None:
    """Add ``eval prompt``."""
    parser = add_command(kinds, "prompt", HELP)
    parser.add_argument(
        "--cases",
        type=int,
        default=DEFAULT_CASES,
        help=f"cases per path and mode ({DEFAULT_CASES})",
    )
    parser.add_argument("--paths", default=None, help="comma-separated path names (default all)")
    parser.add_argument("--seed", type=int, default=0, help="corpus and case seed")
    parser.add_argument("--json", action="store_true", help="machine-readable result")
    parser.add_argument(
        "--list", action="store_true", help="name every path with one line each; run nothing"
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Print the table, or JSON with ``--json``; with ``--list`` the paths only."""
    if args.list:
        known = load_paths()
        width = max(map(len, known))
        for name, runner in known.items():
            print_line(f"{name.ljust(width)}  {summary_line(runner)}")
        return 0
    paths = None if args.paths is None else [p.strip() for p in args.paths.split(",") if p.strip()]
    if paths == []:
        raise ArgumentError(
            f"--paths {args.paths!r} names no path; give comma-separated names (see --list)"
        )
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


def summary_line(runner: Callable[..., object]) -> str:
    """The first sentence of a path runner's docstring, on one line, without markup."""
    paragraph = (runner.__doc__ or "").strip().split("\n\n")[0]
    sentence = " ".join(paragraph.split()).replace("``", "")
    head, dot, _ = sentence.partition(". ")
    return head + "." if dot else sentence
