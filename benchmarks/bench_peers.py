"""Side by side with the peers, in one process, alternating call by call on the same inputs:
``python benchmarks/bench_peers.py [--json] [--quick] [--only SECTION] [--rounds N]``
(needs the ``bench`` extra; ``--patterns`` is ``--only patterns``).

- combination: RagContextGuard 0.1.1 ``GuardMiddleware().analyze`` (its DEFAULT policy)
  against ``Guard.check`` with that policy converted (``rag_context_guard_default.yaml``), at
  k = 10, 100, 1,000 chunks with one random label each, 20 random sets per k; checked on every
  set: same ``is_safe``, same policy rules fired, our ``allowed`` checked again is safe, their
  ``safe_subset`` analysed again;
- patterns: Presidio's pattern recognisers (a blank spaCy pipeline made here, nothing
  downloaded) against ``PatternClassifier(cache_size=0)`` on the annotated PII sentences and the
  CUAD excerpts of ``../shared/data``: MB/s of CPU time (ours also with the ``person`` and
  ``organization`` recognisers on, and the share of throughput kept), and precision/recall per
  entity type;
- clause check: the ``contracts`` policy against the original article's bare filter, a plain
  metadata filter on clause id and contract type.

Times are CPU time of this thread (a shared machine's other load does not inflate them), on
one core; median and p99 per call; ratio = ours / theirs (below 1: ours is faster).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import random
import statistics
import sys
import time
import tracemalloc
from pathlib import Path
from typing import TYPE_CHECKING, Any

from peer_patterns import compare_patterns

from rag_guard_integrations import AccessContext, Guard, load_policy

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

HERE = Path(__file__).resolve().parent
POLICY = HERE / "rag_context_guard_default.yaml"
QUERY = "Summarise what we know about this account."
SETS = 20  # random retrieved sets per k, cycled through the timed calls
CLAUSE_QUERY = "What is the termination notice period?"
SECTIONS = ("combination", "patterns", "clause")
CLAUSE_ID, CONTRACT_TYPES = "TERMINATION_NOTICE", frozenset({"MSA"})


def percentile(samples: Sequence[float], share: float) -> float:
    """The ``share`` quantile (nearest rank) of ``samples``."""
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def alternate(calls: dict[str, Callable[[Any], object]], inputs: list[Any], runs: int) -> dict:
    """Median and p99 CPU microseconds of each call, the calls taking turns on each input."""
    samples: dict[str, list[float]] = {name: [] for name in calls}
    for call in calls.values():
        call(inputs[0])  # warm up outside the timing
    for run in range(runs):
        item = inputs[run % len(inputs)]
        for name, call in calls.items():
            start = time.thread_time_ns()
            call(item)
            samples[name].append((time.thread_time_ns() - start) / 1000)
    return {
        name: {"median_us": statistics.median(s), "p99_us": percentile(s, 0.99), "runs": len(s)}
        for name, s in samples.items()
    }


def peak_kib(call: Callable[[], object]) -> float:
    """Peak memory one call allocates (tracemalloc), in KiB."""
    tracemalloc.start()
    call()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 1024


def peer_guard() -> Any:
    """RagContextGuard with its built-in DEFAULT policy; its per-rule log lines are switched
    off, so that only the analysis is timed."""
    from rag_context_guard import GuardMiddleware  # noqa: PLC0415 - the bench extra

    logging.getLogger("rag_context_guard").setLevel(logging.ERROR)
    return GuardMiddleware()


def metadata_labelled_guard() -> Guard:
    """The guard on the converted policy. Its labels come from chunk metadata only, as the
    peer's do, so the notice that nothing produces them (logged once per rule label) is
    expected here and held back; declaring them instead would add the vocabulary check the
    peer does not make."""
    logger = logging.getLogger("rag_guard_integrations")
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        return Guard(load_policy(POLICY))
    finally:
        logger.setLevel(level)


def check_conversion(peer: Any, guard: Guard) -> None:
    """Fail unless the converted policy has the peer's rules: names, labels, actions."""
    theirs = [(r.name, sorted(r.trigger.all_present), r.action.value) for r in peer.get_rules()]
    ours = [(r.name, sorted(r.trigger.all_present), r.action) for r in guard.policy.rules]
    if theirs != ours:
        raise SystemExit(f"{POLICY.name} no longer matches RagContextGuard's DEFAULT policy")


def labelled_sets(labels: Sequence[str], k: int, seed: int) -> list[list[dict[str, Any]]]:
    """``SETS`` retrieved sets of ``k`` chunk dicts, each with one random label."""
    rng = random.Random(seed)
    return [
        [
            {"text": f"Retrieved passage {i} of set {s}.", "meta": {"classification": label}}
            for i, label in enumerate(rng.choices(labels, k=k))
        ]
        for s in range(SETS)
    ]


def cross_check(peer: Any, guard: Guard, chunks: list[dict[str, Any]]) -> dict[str, bool]:
    """Whether both agree on one set, and whether each one's safe subset is really safe."""
    theirs, ours = peer.analyze(chunks), guard.check(QUERY, chunks)
    fired = {v.rule_name for v in [*theirs.violations, *theirs.warnings]}
    policy_rules = {name for name in fired if not name.startswith("multi_hop_via_")}
    kept = [chunks[i] for i in ours.allowed_indices]
    subset = [{"text": c.text, "meta": c.meta} for c in theirs.safe_subset]
    return {
        "same_is_safe": theirs.is_safe == ours.is_safe,
        "same_rules": policy_rules == {v.rule for v in [*ours.violations, *ours.warnings]},
        "ours_allowed_safe": guard.check(QUERY, kept).is_safe,
        "theirs_subset_safe": peer.analyze(subset).is_safe,
        "theirs_multi_hop": len(fired) > len(policy_rules),
    }


def compare_combination(ks: Sequence[int], runs: int) -> list[dict[str, Any]]:
    """Both guards on the same random sets per k: latency, agreement, peak memory."""
    peer, guard = peer_guard(), metadata_labelled_guard()
    check_conversion(peer, guard)
    labels = sorted({label for r in guard.policy.rules for label in r.trigger.all_present})
    rows = []
    for k in ks:
        sets = labelled_sets(labels, k, seed=k)
        timed = alternate(
            {"theirs": peer.analyze, "ours": lambda c: guard.check(QUERY, c)},
            sets,
            max(SETS, runs // k),
        )
        checks = [cross_check(peer, guard, chunks) for chunks in sets]
        agreed = {key: sum(c[key] for c in checks) for key in checks[0]}
        rows.append(
            {
                "k": k,
                "theirs": timed["theirs"],
                "ours": timed["ours"],
                "ratio": timed["ours"]["median_us"] / timed["theirs"]["median_us"],
                "ours_us_per_chunk": timed["ours"]["median_us"] / k,
                "sets": len(sets),
                **agreed,
                "theirs_peak_kib": peak_kib(lambda s=sets[0]: peer.analyze(s)),
                "ours_peak_kib": peak_kib(lambda s=sets[0]: guard.check(QUERY, s)),
            }
        )
    return rows


def clause_sets(k: int) -> list[list[dict[str, Any]]]:
    """Retrieved sets of ``k`` contract clause dicts (the bundled corpus, shuffled)."""
    from rag_guard_integrations.data import load_corpus  # noqa: PLC0415

    corpus = [{"text": c.text, "meta": dict(c.metadata)} for c in load_corpus("contracts")]
    rng = random.Random(k)
    out = []
    for s in range(SETS):
        picks = rng.choices(corpus, k=k)
        out.append(
            [{"text": f"{c['text']} [{s}.{i}]", "meta": c["meta"]} for i, c in enumerate(picks)]
        )
    return out


def bare_filter(chunks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The original article's check: the clause id asked for and an allowed contract type."""
    return [
        c
        for c in chunks
        if c["meta"].get("clause_id") == CLAUSE_ID
        and c["meta"].get("contract_type") in CONTRACT_TYPES
    ]


def compare_clause(ks: Sequence[int], runs: int) -> list[dict[str, Any]]:
    """The clause guard against the bare filter: latency and what each lets through."""
    guard = Guard.from_policy("contracts")
    access = AccessContext(contract_type=CONTRACT_TYPES)
    rows = []
    for k in ks:
        sets = clause_sets(k)
        timed = alternate(
            {"bare": bare_filter, "ours": lambda c: guard.check(CLAUSE_QUERY, c, access=access)},
            sets,
            max(SETS, runs // k),
        )
        passed = [
            (len(bare_filter(c)), len(guard.check(CLAUSE_QUERY, c, access=access).allowed))
            for c in sets
        ]
        rows.append(
            {
                "k": k,
                "bare": timed["bare"],
                "ours": timed["ours"],
                "ratio": timed["ours"]["median_us"] / timed["bare"]["median_us"],
                "bare_passed": sum(b for b, _ in passed),
                "ours_passed": sum(o for _, o in passed),
            }
        )
    return rows


def report(result: dict[str, Any]) -> str:
    """The tables of ``result``, one section after another."""
    from rag_guard_integrations.cli.console import table  # noqa: PLC0415 - only for the table

    def us(cell: dict[str, float]) -> str:
        return f"{cell['median_us']:.1f} / {cell['p99_us']:.1f}"

    sections: list[str] = []
    if "combination" in result:
        sections += [
            "combination: RagContextGuard DEFAULT vs Guard.check, one random label per chunk",
            _combination_table(result["combination"], table, us),
        ]
    if "patterns" in result:
        sections += [
            "patterns: Presidio pattern recognisers (blank spaCy) vs "
            "PatternClassifier(cache_size=0)",
            *_pattern_tables(result["patterns"], table, us),
        ]
    if "clause" in result:
        sections += [
            "clause check: the article's bare metadata filter vs the contracts policy",
            _clause_table(result["clause"], table, us),
        ]
    return "\n\n".join(sections)


def _combination_table(
    rows: list[dict[str, Any]], table: Callable[..., str], us: Callable[..., str]
) -> str:
    return table(
        (
            "k",
            "RagContextGuard us (median / p99)",
            "Guard.check us",
            "ratio",
            "us/chunk",
            "same is_safe",
            "same rules",
            "ours allowed safe",
            "theirs subset safe",
            "peak KiB (theirs / ours)",
        ),
        [
            (
                r["k"],
                us(r["theirs"]),
                us(r["ours"]),
                f"{r['ratio']:.2f}x",
                f"{r['ours_us_per_chunk']:.2f}",
                f"{r['same_is_safe']}/{r['sets']}",
                f"{r['same_rules']}/{r['sets']}",
                f"{r['ours_allowed_safe']}/{r['sets']}",
                f"{r['theirs_subset_safe']}/{r['sets']}",
                f"{r['theirs_peak_kib']:.0f} / {r['ours_peak_kib']:.0f}",
            )
            for r in rows
        ],
    )


def _pattern_tables(
    patterns: dict[str, Any], table: Callable[..., str], us: Callable[..., str]
) -> list[str]:
    speed = table(
        (
            "corpus",
            "texts",
            "Presidio MB/s",
            "ours MB/s",
            "speed-up",
            "us/text Presidio (median / p99)",
            "us/text ours",
            "peak KiB ours (one pass)",
            "ours + names MB/s",
            "kept with names",
        ),
        [
            (
                name,
                patterns["texts"][name],
                f"{r['presidio']['mb_per_s']:.3f}",
                f"{r['ours']['mb_per_s']:.2f}",
                f"{r['speedup']['x']:.0f}x",
                us(r["presidio"]),
                us(r["ours"]),
                f"{r['ours']['peak_kib']:.0f}",
                f"{r['ours_names']['mb_per_s']:.2f}",
                f"{r['names_kept']:.2f}",
            )
            for name, r in patterns["corpora"].items()
        ],
    )
    quality = patterns["quality"]
    pr = table(
        (
            "entity (PII sentences)",
            "spans",
            "Presidio precision",
            "Presidio recall",
            "ours precision",
            "ours recall",
        ),
        [
            (
                entity,
                theirs["support"],
                theirs["precision"],
                theirs["recall"],
                quality["ours"][entity]["precision"],
                quality["ours"][entity]["recall"],
            )
            for entity, theirs in quality["presidio"].items()
        ],
    )
    return [speed, pr]


def _clause_table(
    rows: list[dict[str, Any]], table: Callable[..., str], us: Callable[..., str]
) -> str:
    return table(
        ("k", "bare filter us (median / p99)", "Guard.check us", "ratio", "passed (bare / ours)"),
        [
            (
                r["k"],
                us(r["bare"]),
                us(r["ours"]),
                f"{r['ratio']:.1f}x",
                f"{r['bare_passed']} / {r['ours_passed']}",
            )
            for r in rows
        ],
    )


def main(argv: list[str] | None = None) -> int:
    """Run the three comparisons; print the tables or JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.add_argument("--quick", action="store_true", help="a few calls on small inputs")
    parser.add_argument("--rounds", type=int, default=9, help="turns per pattern corpus")
    parser.add_argument(
        "--only",
        choices=SECTIONS,
        action="append",
        help="run this comparison only (repeatable; default: all three)",
    )
    parser.add_argument(
        "--patterns",
        dest="only",
        action="append_const",
        const="patterns",
        help="the same as --only patterns",
    )
    args = parser.parse_args(argv)
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core
    ks = (10,) if args.quick else (10, 100, 1000)
    runs = 200 if args.quick else 40_000
    comparisons: dict[str, Callable[[], Any]] = {
        "combination": lambda: compare_combination(ks, runs),
        "patterns": lambda: compare_patterns(
            40 if args.quick else None, 1 if args.quick else args.rounds
        ),
        "clause": lambda: compare_clause(ks, runs),
    }
    result = {name: run() for name, run in comparisons.items() if name in (args.only or SECTIONS)}
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(report(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
