"""Latency of ``DomainGuard.decide`` with the built-in ``bis`` policy, beside the query embedding.

Run: .venv/bin/python benchmarks/bench_domain.py [--rounds N] [--json]

Every bundled labelled query (in and out of domain) retrieves its top 5 chunks from the bundled
catalogue with real MiniLM embeddings; ``decide`` is then timed one call at a time, pooled over
all queries and rounds:

- ``retriever``: chunks carry their retrieval scores (the usual case behind a vector store);
- ``embedder``: chunks carry no score, so the guard compares vectors itself; the query and
  chunk vectors are cached after the warm-up, so this excludes the query embedding;
- ``first sight``: a fresh guard and a cleared normalisation cache for every round, so each
  query's term matching runs uncached (chunks scored).

``embed_query`` is the cost the ``embedder`` row leaves out: one MiniLM query embedding.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from functools import partial
from typing import TYPE_CHECKING, Any

from rag_guard_integrations import Chunk, QueryDecision, load_policy
from rag_guard_integrations.data import load_corpus, load_queries
from rag_guard_integrations.embeddings import default_embedder
from rag_guard_integrations.guards.domain import DomainGuard
from rag_guard_integrations.vector_index import VectorIndex

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

TARGET_MEDIAN_US = 50.0


def pooled(
    calls_for_round: Callable[[int], Sequence[Callable[[], object]]], rounds: int
) -> dict[str, float]:
    """Median and p99 in microseconds over every call of every round."""
    samples: list[float] = []
    for number in range(rounds):
        for call in calls_for_round(number):
            start = time.perf_counter_ns()
            call()
            samples.append((time.perf_counter_ns() - start) / 1000)
    samples.sort()
    p99 = samples[min(len(samples) - 1, round(0.99 * (len(samples) - 1)))]
    return {"median_us": statistics.median(samples), "p99_us": p99, "calls": len(samples)}


def run(rounds: int) -> dict[str, Any]:
    """All rows of the benchmark."""
    embedder = default_embedder()
    queries = [str(q["query"]) for q in load_queries("bis")]
    retrieved = VectorIndex(load_corpus("bis"), embedder).search_many(queries, k=5)
    unscored = [[Chunk(c.text, c.metadata, None, c.id) for c in chunks] for chunks in retrieved]
    guard = DomainGuard.from_policy(load_policy("bis"), embedder)
    assert guard is not None
    scored_calls = [partial(guard.decide, q, c) for q, c in zip(queries, retrieved, strict=True)]
    bare_calls = [partial(guard.decide, q, c) for q, c in zip(queries, unscored, strict=True)]
    for call in scored_calls + bare_calls:  # warm the caches: only cached work is timed below
        call()

    def first_sight(number: int) -> list[partial[QueryDecision]]:
        # A new guard, and a query text never seen before (the round number appended), so
        # normalisation and term matching run uncached.
        fresh = DomainGuard(guard.spec, embedder)
        return [
            partial(fresh.decide, f"{q} {number}", c)
            for q, c in zip(queries, retrieved, strict=True)
        ]

    rows = {
        "retriever": pooled(lambda _: scored_calls, rounds),
        "embedder": pooled(lambda _: bare_calls, rounds),
        "first sight": pooled(first_sight, max(3, rounds // 10)),
        # The embedder caches texts it has seen, so each round asks for texts it has not.
        "embed_query": pooled(
            lambda number: [partial(embedder.embed_query, f"{q} ({number})") for q in queries], 1
        ),
    }
    return {"queries": len(queries), "target_median_us": TARGET_MEDIAN_US, "rows": rows}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=200, help="rounds over all queries")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = run(args.rounds)
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(f"DomainGuard.decide, bis policy, {result['queries']} queries, top-5 chunks "
          f"(target: median <= {TARGET_MEDIAN_US:.0f} us without the query embedding)")  # fmt: skip
    print(f"{'path':<12} {'median us':>10} {'p99 us':>10} {'calls':>8}")
    for name, row in result["rows"].items():
        print(f"{name:<12} {row['median_us']:>10.1f} {row['p99_us']:>10.1f} {row['calls']:>8}")


if __name__ == "__main__":
    main()
