"""Latency of the combination rules at scale: ``Guard.check`` on 100 labelled chunks against
1,000 and 10,000 generated rules, median and p99 over repeated runs, on one core:
``python benchmarks/bench_combination.py [--runs N] [--budget S] [--json] [--profile]``.

Rules are random label sets (1 to 3 labels; 70% block, 30% warn, 10% linked) over a
vocabulary; each chunk carries 0 to 3 labels drawn from the labels "in play" and, for half
the chunks, an ``entity`` linking key. The last row uses the built-in packs' own rules. The
scenarios vary one thing at a time, so the table shows what the cost follows: the labels
present in the retrieved set and the rules indexed under them, not rules x chunks. ``guard``
times the whole ``Guard.check`` (chunk coercion, hint check, metadata labels, combination and
safe subset); ``combination`` times ``CombinationGuard`` alone on the same chunks. Each
measurement stops after ``--runs`` calls or ``--budget`` seconds (at least 5 calls); the
``runs`` column says how many were timed.
Exit status 1 when the target (median <= 2 ms for 100 chunks x 1,000 rules) is missed.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import random
import statistics
import sys
import time
from dataclasses import asdict, dataclass
from typing import Any

from rag_guard_integrations import Chunk, Guard, load_policy
from rag_guard_integrations.core.labels import UNCLASSIFIED
from rag_guard_integrations.guards.combination import CombinationGuard, Labelled
from rag_guard_integrations.policy.schema import LinkingSpec, Policy, RuleSpec, TriggerSpec

TARGET_MS = 2.0
CHUNK_SETS = 20  # distinct random retrieved sets per scenario, cycled through the runs
MIN_RUNS = 5


@dataclass(frozen=True)
class Scenario:
    """One benchmark setting: rule count, vocabulary size, labels in play, chunk count; or,
    with ``packs``, the rules and vocabulary of those built-in packs merged (at most
    ``in_play`` of its labels in play)."""

    name: str
    rules: int
    vocabulary: int
    in_play: int
    chunks: int = 100
    packs: tuple[str, ...] = ()


SCENARIOS = (
    Scenario("target: 1k rules", 1_000, 50, 50),
    Scenario("10k rules, same vocabulary", 10_000, 50, 50),
    Scenario("10k rules, 500 labels, 50 in play", 10_000, 500, 50),
    Scenario("1k rules, 10 labels in play", 1_000, 50, 10),
    Scenario("1k rules, 5 labels in play", 1_000, 50, 5),
    Scenario("1k rules, 1,000 chunks", 1_000, 50, 50, chunks=1_000),
    Scenario("built-in packs merged", 0, 0, 50, packs=("default", "finance", "hipaa", "gdpr")),
)


def make_rules(count: int, vocabulary: list[str], rng: random.Random) -> list[RuleSpec]:
    """``count`` random rules over ``vocabulary``."""
    rules = []
    for index in range(count):
        labels = rng.sample(vocabulary, rng.randint(1, 3))
        action = "block" if rng.random() < 0.7 else "warn"
        scope = "linked" if rng.random() < 0.1 else "context"
        trigger = TriggerSpec(all_present=labels, scope=scope)
        rules.append(RuleSpec(name=f"rule_{index}", action=action, trigger=trigger))
    return rules


def make_chunks(count: int, labels: list[str], rng: random.Random) -> list[Chunk]:
    """``count`` chunks with 0 to 3 labels each; half share one of 20 entity values."""
    chunks = []
    for index in range(count):
        meta: dict[str, Any] = {"classifications": rng.sample(labels, rng.randint(0, 3))}
        if rng.random() < 0.5:
            meta["entity"] = f"entity-{rng.randrange(20)}"
        chunks.append(Chunk(f"chunk {index}", meta, score=rng.random()))
    return chunks


def labelled(chunks: list[Chunk]) -> list[Labelled]:
    """The chunks as the combination guard sees them."""
    return [
        Labelled(i, frozenset(c.metadata["classifications"]), c.score, c.metadata)
        for i, c in enumerate(chunks)
    ]


def timed(call: Any, inputs: list[Any], runs: int, budget: float) -> list[float]:
    """Milliseconds per call, cycling through ``inputs`` after one warm-up call: ``runs``
    calls, or fewer (at least ``MIN_RUNS``) when they exceed ``budget`` seconds."""
    call(inputs[0])
    samples: list[float] = []
    deadline = time.perf_counter() + budget
    for run in range(runs):
        if run >= MIN_RUNS and time.perf_counter() > deadline:
            break
        item = inputs[run % len(inputs)]
        start = time.perf_counter()
        call(item)
        samples.append((time.perf_counter() - start) * 1000)
    return samples


def p99(samples: list[float]) -> float:
    """The 99th percentile."""
    return statistics.quantiles(samples, n=100, method="inclusive")[98]


def setup(scenario: Scenario, seed: int) -> tuple[Guard, list[list[Chunk]]]:
    """The guard with generated rules and the random retrieved sets of one scenario."""
    rng = random.Random(seed)
    if scenario.packs:
        policy = load_policy(*scenario.packs).model_copy(update={"classify": "never"})
        vocabulary = sorted(set(policy.vocabulary) - {UNCLASSIFIED})
    else:
        vocabulary = [f"label_{i}" for i in range(scenario.vocabulary)]
        policy = Policy(
            rules=make_rules(scenario.rules, vocabulary, rng),
            linking=LinkingSpec(keys=["entity"]),
            classify="never",
        )
    in_play = rng.sample(vocabulary, min(scenario.in_play, len(vocabulary)))
    sets = [make_chunks(scenario.chunks, in_play, rng) for _ in range(CHUNK_SETS)]
    return Guard(policy), sets


def measure(scenario: Scenario, runs: int, seed: int, budget: float) -> dict[str, Any]:
    """Latency of ``Guard.check`` and of ``CombinationGuard`` alone for one scenario."""
    guard, sets = setup(scenario, seed)
    combination = guard.combination
    assert combination is not None
    items = [labelled(chunks) for chunks in sets]
    whole = timed(lambda chunks: guard.check("q", chunks), sets, runs, budget)
    alone = timed(combination, items, runs, budget)
    sample = items[:3]  # what fires, on a few of the sets
    outcomes = [combination(item_set) for item_set in sample]
    return {
        **asdict(scenario),
        "rules": len(combination.rules),
        "vocabulary": len(guard.policy.vocabulary) - 1 if scenario.packs else scenario.vocabulary,
        "labels_present": statistics.mean(len(_present(item_set)) for item_set in sample),
        "rules_indexed": statistics.mean(_indexed(combination, item_set) for item_set in sample),
        "violations": statistics.mean(len(o.violations) for o in outcomes),
        "warnings": statistics.mean(len(o.warnings) for o in outcomes),
        "removed": statistics.mean(len(o.removed) for o in outcomes),
        "samples": len(whole),
        "guard_median_ms": statistics.median(whole),
        "guard_p99_ms": p99(whole),
        "combination_median_ms": statistics.median(alone),
        "combination_p99_ms": p99(alone),
    }


def _present(items: list[Labelled]) -> set[str]:
    return {label for item in items for label in item.labels}


def _indexed(combination: CombinationGuard, items: list[Labelled]) -> int:
    """How many rules mention at least one label present (what the label index touches)."""
    present = _present(items)
    return sum(1 for rule in combination.rules if present & set(rule.trigger.all_present))


def profile(scenario: Scenario, seed: int, top: int = 15) -> str:
    """cProfile of 20 ``Guard.check`` calls of ``scenario``, by cumulative time."""
    guard, sets = setup(scenario, seed)
    profiler = cProfile.Profile()
    profiler.enable()
    for run in range(20):
        guard.check("q", sets[run % len(sets)])
    profiler.disable()
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("cumulative").print_stats(top)
    return out.getvalue()


COLUMNS: dict[str, Any] = {
    "scenario": lambda r: r["name"],
    "rules": lambda r: r["rules"],
    "chunks": lambda r: r["chunks"],
    "labels present": lambda r: round(r["labels_present"]),
    "rules indexed": lambda r: round(r["rules_indexed"]),
    "fired (block/warn)": lambda r: f"{r['violations']:.0f}/{r['warnings']:.0f}",
    "removed": lambda r: round(r["removed"]),
    "runs": lambda r: r["samples"],
    "guard median ms": lambda r: r["guard_median_ms"],
    "guard p99 ms": lambda r: r["guard_p99_ms"],
    "combination median ms": lambda r: r["combination_median_ms"],
}


def main(argv: list[str] | None = None) -> int:
    """Print each scenario's latency, as a table or JSON; exit 1 when the target is missed."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=300, help="timed calls per scenario")
    parser.add_argument(
        "--budget", type=float, default=10.0, help="seconds per measurement before runs stop"
    )
    parser.add_argument("--seed", type=int, default=7, help="seed for rules and chunks")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.add_argument("--profile", action="store_true", help="cProfile the target scenario")
    args = parser.parse_args(argv)
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core
    results = [measure(s, args.runs, args.seed, args.budget) for s in SCENARIOS]
    met = results[0]["guard_median_ms"] <= TARGET_MS
    if args.json:
        report = {"runs": args.runs, "target_median_ms": TARGET_MS, "target_met": met}
        print(json.dumps({**report, "scenarios": results}, indent=2))
    else:
        from rag_guard_integrations.cli.console import table  # noqa: PLC0415 - only for the table

        rows = [[cell(r) for cell in COLUMNS.values()] for r in results]
        print(table(tuple(COLUMNS), rows))
        verdict = "met" if met else "MISSED"
        print(f"\ntarget: median <= {TARGET_MS} ms for 100 chunks x 1,000 rules: {verdict}")
    if args.profile:
        print(profile(SCENARIOS[0], args.seed), file=sys.stderr)
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
