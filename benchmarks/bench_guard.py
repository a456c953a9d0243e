"""Guard.check with the built-in `contracts` policy on k = 10, 100, 1000 chunks.

Run: .venv/bin/python benchmarks/bench_guard.py [--json]
Prints median and p99 per k and the per-chunk cost, to show growth is linear in k.
"""

from __future__ import annotations

import argparse
import json

from rag_guard_integrations import AccessContext, Guard
from rag_guard_integrations.data import load_corpus
from rag_guard_integrations.evaluation.bench import QUERY, bench_chunks, timings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    guard = Guard.from_policy("contracts")
    access = AccessContext(principal="bench", contract_type={"MSA"})
    corpus = load_corpus("contracts")
    rows = []
    for k in (10, 100, 1000):
        chunks = bench_chunks(corpus, k)
        result = timings(
            lambda c=chunks: guard.check(QUERY, c, access=access),
            repeats=max(20, 20000 // k),
        )
        rows.append({"k": k, **result, "per_chunk_us": result["median_us"] / k})
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    print(f"{'k':>6} {'median us':>10} {'p99 us':>10} {'us/chunk':>9}")
    for row in rows:
        print(
            f"{row['k']:>6} {row['median_us']:>10.1f} {row['p99_us']:>10.1f} "
            f"{row['per_chunk_us']:>9.2f}"
        )


if __name__ == "__main__":
    main()
