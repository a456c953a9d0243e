"""``rag-guard eval domain``: its arguments and its tables (the evaluation is
:mod:`rag_guard_integrations.evaluation.domain`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rag_guard_integrations.cli.console import print_json, progress, table
from rag_guard_integrations.cli.help import CommandHelp, add_command
from rag_guard_integrations.evaluation.domain import K, evaluate

if TYPE_CHECKING:
    import argparse

SHOWN = 20  # misses listed per set


HELP = CommandHelp(
    summary="pass rate in domain, block rate out of domain",
    reads="the bundled queries of the policy's corpus, or --queries: a JSONL file of labelled "
    "queries; --clinc: CLINC150's clinc_oos.json, whose queries replace the out-of-domain set.",
    reads_example='{"query": "BIS certification for packaged drinking water", "in_domain": true}',
    prints="per set (in domain, out of domain): its source, query count, pass or block rate and "
    "the queries decided at each tier, then up to 20 misses of each; --json: the same with the "
    "thresholds and whether the targets are met.",
    example="rag-guard eval domain --clinc ../shared/data/clinc_oos.json --json",
)


def register(kinds: argparse._SubParsersAction[Any]) -> None:
    """Add ``eval domain`` to the ``eval`` sub-commands."""
    parser = add_command(kinds, "domain", HELP)
    parser.add_argument("--policy", default="bis", help="built-in name or path (default: bis)")
    parser.add_argument(
        "--corpus", default=None, help="bundled corpus or JSONL (default: policy name)"
    )
    parser.add_argument("--queries", default=None, help="labelled JSONL {query, in_domain}")
    parser.add_argument(
        "--clinc", default=None, help="clinc_oos.json: its queries replace the out-of-domain set"
    )
    parser.add_argument(
        "--k", type=int, default=K, help=f"chunks retrieved per query (default {K})"
    )
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Run ``rag-guard eval domain``."""
    result = evaluate(
        args.policy,
        corpus=args.corpus,
        queries_path=args.queries,
        clinc_path=args.clinc,
        k=args.k,
        track=progress,
    )
    if args.json:
        print_json(result)
        return 0
    rows = []
    for name, key, rate in (("in domain", "in_domain", "pass_rate"),
                            ("out of domain", "out_of_domain", "block_rate")):  # fmt: skip
        part = result[key]
        rows.append(
            [name, part["source"], part["queries"], rate, part[rate], *part["tiers"].values()]
        )
    print(
        table(["set", "source", "queries", "measure", "rate", *result["in_domain"]["tiers"]], rows)
    )
    misses = (
        ("in-domain queries rejected", result["in_domain"]["rejected"]),
        ("out-of-domain queries accepted", result["out_of_domain"]["leaked"]),
    )
    for title, items in misses:
        if items:
            print(f"\n{title} ({len(items)}):")
            for item in items[:SHOWN]:
                score = "-" if item["similarity"] is None else f"{item['similarity']:.2f}"
                print(f"  [{item['tier']} {score}] {item['query']}")
    return 0
