"""``rag-guard bench``: Guard.check latency for k chunks x rules, beside embedding retrieval."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from rag_guard_integrations.cli.console import print_json, progress, table
from rag_guard_integrations.cli.help import CommandHelp, add_command
from rag_guard_integrations.core.errors import ArgumentError
from rag_guard_integrations.core.extras import needs_extra

if TYPE_CHECKING:
    import argparse


HELP = CommandHelp(
    summary="measure guard latency against retrieval cost",
    reads="a base policy (built-in name or YAML file) and the grid to time: chunk counts "
    "(--ks) and rule counts (--rules); the chunks come from the bundled contract corpus.",
    reads_example="--policy contracts --ks 10,100 --rules 10",
    prints="median and p99 microseconds of Guard.check per (k, rules) cell, the MiniLM "
    "retrieval cost beside it (unless --no-embedder) and the peak memory of one check; "
    "--json: the same as one object; --plot: a PNG of latency against k.",
    example="rag-guard bench --ks 10,100 --rules 10 --budget 0.2 --no-embedder",
)


def register(commands: argparse._SubParsersAction[Any]) -> None:
    """Add the ``bench`` sub-command."""
    parser = add_command(commands, "bench", HELP)
    parser.add_argument("--policy", default="contracts", help="base policy (default contracts)")
    parser.add_argument("--ks", default="10,100,1000", help="chunk counts, comma separated")
    parser.add_argument("--rules", default="10,100,1000", help="rule counts, comma separated")
    parser.add_argument("--budget", type=float, default=1.0, help="seconds per cell, roughly")
    parser.add_argument("--no-embedder", action="store_true", help="skip the retrieval baseline")
    parser.add_argument("--plot", type=Path, help="write a PNG of latency against k")
    parser.add_argument("--json", action="store_true", help="machine-readable result")
    parser.set_defaults(run=run)


def _ints(text: str, flag: str) -> list[int]:
    try:
        values = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise ArgumentError(f"{flag} {text!r} must be whole numbers separated by commas") from None
    if not values or min(values) < 1:
        raise ArgumentError(f"{flag} {text!r} must list positive whole numbers")
    return values


def run(args: argparse.Namespace) -> int:
    """Run the grid, print JSON or a table, optionally plot."""
    from rag_guard_integrations.data import load_corpus  # noqa: PLC0415
    from rag_guard_integrations.evaluation.bench import run_bench  # noqa: PLC0415
    from rag_guard_integrations.policy.loader import load_policy  # noqa: PLC0415

    if not args.budget > 0:  # also refuses nan
        raise ArgumentError(f"--budget {args.budget} must be a positive number of seconds")
    if args.plot:  # known before the grid runs, not after
        with needs_extra("plot", "--plot"):
            import matplotlib  # noqa: F401, PLC0415 - the plot extra is optional
    embedder = None
    if not args.no_embedder:
        from rag_guard_integrations.embeddings import default_embedder  # noqa: PLC0415

        embedder = default_embedder()
    report = run_bench(
        load_policy(args.policy),
        load_corpus("contracts"),
        embedder,
        ks=_ints(args.ks, "--ks"),
        rule_counts=_ints(args.rules, "--rules"),
        budget_s=args.budget,
        track=progress,
    )
    if args.plot:
        plot(report, args.plot)
    if args.json:
        print_json(report)
        return 0
    rows = [[c["k"], c["rules"], c["median_us"], c["p99_us"]] for c in report["cells"]]
    print(table(["k", "rules", "median us", "p99 us"], rows))
    if "retrieval" in report:
        retrieval = report["retrieval"]
        print(
            f"\nMiniLM query embedding + search: median {retrieval['median_us']:.0f} us, "
            f"p99 {retrieval['p99_us']:.0f} us; guard overhead at the smallest cell: "
            f"{report['overhead_ratio']:.4f}x of retrieval"
        )
    print(f"peak memory during one check: {report['peak_memory_mb']:.2f} MB")
    return 0


def plot(report: dict[str, Any], path: Path) -> None:
    """Latency (median) against k, one line per rule count, log-log."""
    from matplotlib.figure import Figure  # noqa: PLC0415 - the plot extra is optional

    figure = Figure(figsize=(6, 4))
    axes = figure.subplots()
    for rules in sorted({c["rules"] for c in report["cells"]}):
        cells = [c for c in report["cells"] if c["rules"] == rules]
        axes.plot(
            [c["k"] for c in cells],
            [c["median_us"] for c in cells],
            marker="o",
            label=f"{rules} rules",
        )
    axes.set(
        xscale="log",
        yscale="log",
        xlabel="chunks checked (k)",
        ylabel="median latency (us)",
        title="Guard.check latency",
    )
    axes.legend()
    figure.tight_layout()
    figure.savefig(path, dpi=100)
