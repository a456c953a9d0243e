"""``rag-guard calibrate``: sweep the domain thresholds over labelled queries and recommend a
pair, or (``--clauses``) each clause fingerprint's semantic threshold over labelled excerpts."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rag_guard_integrations.cli.help import CommandHelp, add_command
from rag_guard_integrations.core.errors import ArgumentError

if TYPE_CHECKING:
    import argparse

EXIT_OK, EXIT_NO_POINT = 0, 1


HELP = CommandHelp(
    summary="sweep domain thresholds over labelled queries, or clause fingerprints' semantic "
    "thresholds over labelled excerpts (--clauses), and recommend values",
    reads="--queries: a JSONL file, one labelled query a line; --clinc: CLINC150's "
    "clinc_oos.json, whose queries count as out of domain; or --clauses: a JSONL file of "
    "labelled contract excerpts ('text', 'category').",
    reads_example='{"query": "IS 2062 requirements", "in_domain": true}',
    prints="a table of threshold pairs (root_min_similarity, min_similarity) with their "
    "in-domain pass rate and out-of-domain block rate: the policy's current pair and the "
    "recommended one (--split: on the tune and held-back halves); --plot: both curves as a "
    "PNG; --clauses: per clause id the recommended semantic min_score with its recall and "
    "false-match rate; --json: the same as one object.",
    findings="no threshold pair keeps the --target pass rate",
    example="rag-guard calibrate --queries rag_guard_integrations/data/bis_products_queries.jsonl"
    " --split --target 0.97",
)


def register(commands: argparse._SubParsersAction[Any]) -> None:
    """Add ``calibrate`` to the ``rag-guard`` sub-commands."""
    parser = add_command(commands, "calibrate", HELP)
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--queries", help="JSONL lines {query, in_domain}: the domain guard")
    source.add_argument(
        "--clauses",
        metavar="EXCERPTS",
        help="JSONL lines {text, category} (CUAD): each clause's semantic min_score",
    )
    parser.add_argument(
        "--clinc", default=None, help="clinc_oos.json: its queries are added as out of domain"
    )
    parser.add_argument(
        "--split",
        action="store_true",
        help="choose on the tune half of the queries (SHA-256 of the text), report both halves",
    )
    parser.add_argument(
        "--policy", default=None, help="built-in name or path (default: bis, or contracts)"
    )
    parser.add_argument(
        "--max-false-match",
        type=float,
        default=None,
        help="--clauses: the highest false-match rate a threshold may give (default 0.04)",
    )
    parser.add_argument(
        "--corpus", default=None, help="bundled corpus or JSONL (default: policy name)"
    )
    parser.add_argument("--k", type=int, default=5, help="chunks retrieved per query (default 5)")
    parser.add_argument("--target", type=float, default=0.95, help="in-domain pass rate to keep")
    parser.add_argument("--plot", default=None, metavar="PNG", help="write both curves to a PNG")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Run ``rag-guard calibrate``; exit 1 when no thresholds reach the target."""
    from rag_guard_integrations.cli.console import print_json, table  # noqa: PLC0415
    from rag_guard_integrations.evaluation import datasets  # noqa: PLC0415
    from rag_guard_integrations.evaluation.calibrate import plot, sweep, sweep_split  # noqa: PLC0415
    from rag_guard_integrations.evaluation.domain import collect_signals, guard_for  # noqa: PLC0415
    from rag_guard_integrations.policy.loader import load_policy  # noqa: PLC0415

    if args.clauses:
        from rag_guard_integrations.cli.calibrate_clauses import run_clauses  # noqa: PLC0415

        return run_clauses(args)
    if not 0.0 < args.target <= 1.0:
        raise ArgumentError(f"--target must be in (0, 1], got {args.target}")
    labelled = datasets.read_labelled(args.queries)
    if args.clinc:
        clinc = datasets.read_clinc(args.clinc).values()
        labelled += [datasets.LabelledQuery(q, in_domain=False) for part in clinc for q in part]
    policy = load_policy(args.policy or "bis")
    corpus = args.corpus or datasets.default_corpus(policy.name)
    guard = guard_for(policy, corpus=corpus)
    queries = [q.query for q in labelled]
    signals = collect_signals(guard, corpus, queries, args.k)
    labels = [q.in_domain for q in labelled]
    current = (guard.spec.root_min_similarity, guard.spec.min_similarity)
    split = (
        sweep_split(signals, labels, queries, current=current, target=args.target)
        if args.split
        else None
    )
    result = split.tune if split else sweep(signals, labels, current=current, target=args.target)
    image = str(plot(result, args.plot)) if args.plot else None
    if args.json:
        record = split.to_dict() if split else result.to_dict()
        print_json({"policy": policy.name, "corpus": corpus, **record, "plot": image})
    else:
        points = [("current", result.current), ("recommended", result.recommended)]
        if split:
            points = [(f"{name}, tune half", p) for name, p in points] + [
                ("current, held back", split.held_back_current),
                ("recommended, held back", split.held_back_recommended),
            ]
        rows = [
            [name, p.root_min_similarity, p.min_similarity, _rate(p.pass_rate), _rate(p.block_rate)]
            for name, p in points
            if p is not None
        ]
        print(table(["thresholds", "root_min_similarity", "min_similarity", "pass rate",
                     "block rate"], rows))  # fmt: skip
        if result.recommended is None:
            print(f"\nno thresholds keep the in-domain pass rate at {args.target}")
        if image:
            print(f"\nplot written to {image}")
    return EXIT_OK if result.recommended is not None else EXIT_NO_POINT


def _rate(value: float | None) -> str:
    return "-" if value is None else f"{value:.4f}"
