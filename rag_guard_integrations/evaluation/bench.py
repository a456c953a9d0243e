"""Latency of Guard.check across chunk and rule counts, beside the cost of embedding retrieval."""

from __future__ import annotations

import random
import statistics
import time
import tracemalloc
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from rag_guard_integrations.core.access import AccessContext
from rag_guard_integrations.evaluation.tracking import untracked
from rag_guard_integrations.policy.schema import RuleSpec, TriggerSpec

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from rag_guard_integrations.core.chunk import Chunk
    from rag_guard_integrations.embeddings import Embedder
    from rag_guard_integrations.evaluation.tracking import Track
    from rag_guard_integrations.policy.schema import Policy

QUERY = "What is the termination notice period?"
ACCESS = AccessContext(principal="bench", contract_type={"MSA", "SOW"})
VOCABULARY = tuple(f"label_{i:02d}" for i in range(50))


def timings(call: Callable[[], object], repeats: int) -> dict[str, float]:
    """Median and p99 in microseconds of ``repeats`` calls (after one warm-up call)."""
    call()
    samples = []
    for _ in range(repeats):
        start = time.perf_counter_ns()
        call()
        samples.append((time.perf_counter_ns() - start) / 1000)
    samples.sort()
    p99 = samples[min(len(samples) - 1, round(0.99 * (len(samples) - 1)))]
    return {"median_us": statistics.median(samples), "p99_us": p99}


def bench_chunks(corpus: Sequence[Chunk], k: int, seed: int = 7) -> list[Chunk]:
    """``k`` distinct chunks cycled from ``corpus``, each with a score and 0-3 random labels."""
    rng = random.Random(seed)
    out = []
    for i in range(k):
        base = corpus[i % len(corpus)]
        labels = rng.sample(VOCABULARY, rng.randint(0, 3))
        meta = {**base.metadata, "classifications": labels}
        out.append(replace(base, text=f"{base.text} [{i}]", metadata=meta, score=1 - i / (k + 1)))
    return out


def bench_rules(count: int, seed: int = 11) -> list[RuleSpec]:
    """``count`` block rules over random pairs and triples of the benchmark vocabulary."""
    rng = random.Random(seed)
    return [
        RuleSpec(
            name=f"rule_{i}",
            trigger=TriggerSpec(all_present=rng.sample(VOCABULARY, rng.randint(2, 3))),
        )
        for i in range(count)
    ]


def run_bench(
    policy: Policy,
    corpus: Sequence[Chunk],
    embedder: Embedder | None,
    *,
    ks: Sequence[int] = (10, 100, 1000),
    rule_counts: Sequence[int] = (10, 100, 1000),
    budget_s: float = 1.0,
    track: Track = untracked,
) -> dict[str, Any]:
    """Guard.check latency per (k, rules); embedding retrieval beside it; peak memory."""
    from rag_guard_integrations.engine.guard import Guard  # noqa: PLC0415 - avoid an import cycle

    cells = []
    peak = 0
    grid = [(rules, k) for rules in rule_counts for k in ks]
    guards = {
        rules: Guard(policy.model_copy(update={"rules": bench_rules(rules)}))
        for rules in rule_counts
    }
    for rules, k in track(grid, len(grid), "bench"):
        guard = guards[rules]
        chunks = bench_chunks(corpus, k)

        def call(guard: Guard = guard, chunks: list[Chunk] = chunks) -> object:
            return guard.check(QUERY, chunks, access=ACCESS)

        repeats = max(5, min(2000, int(budget_s * 1e6 / max(1.0, 30.0 * k))))
        tracemalloc.start()
        call()
        peak = max(peak, tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
        cells.append({"k": k, "rules": rules, "repeats": repeats, **timings(call, repeats)})
    report: dict[str, Any] = {"query": QUERY, "cells": cells, "peak_memory_mb": peak / 2**20}
    if embedder is not None:
        report["retrieval"] = retrieval_cost(corpus, embedder)
        guard_k10 = next(c for c in cells if c["k"] == min(ks) and c["rules"] == min(rule_counts))
        report["overhead_ratio"] = guard_k10["median_us"] / report["retrieval"]["median_us"]
    return report


def retrieval_cost(corpus: Sequence[Chunk], embedder: Embedder) -> dict[str, float]:
    """Median and p99 of embedding a query with MiniLM and searching the corpus."""
    from rag_guard_integrations.vector_index import VectorIndex  # noqa: PLC0415

    index = VectorIndex(corpus, embedder)
    # A new query text each call: the embedder caches texts, and a cached query costs nothing.
    queries = iter(f"{QUERY} (request {i})" for i in range(10_000))
    return timings(lambda: index.search(next(queries), k=10), repeats=50)
