"""Throughput of PatternClassifier in MB/s of text on one core, cache off:
``python benchmarks/bench_patterns.py [--rounds N] [--json]``.

Corpora: real contract clauses (CUAD excerpts: long, little PII) and annotated PII sentences
(short, dense PII, many non-ASCII names), both read from ../shared/data.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from rag_guard_integrations.classify.pattern import PatternClassifier

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
CORPORA = {"cuad_clauses": "cuad_clauses.jsonl", "pii_samples": "pii_samples.jsonl"}


def load_texts(name: str) -> list[str]:
    """The ``text`` field of every record of a corpus."""
    with (DATA / CORPORA[name]).open(encoding="utf-8") as handle:
        return [json.loads(line)["text"] for line in handle if line.strip()]


def measure(texts: list[str], rounds: int) -> dict[str, float]:
    """Best-of-``rounds`` time to classify every text once (a fresh classifier, cache off)."""
    classifier = PatternClassifier(cache_size=0)
    classifier.classify_many(texts[:10])  # compile and warm up outside the timing
    size = sum(len(t.encode("utf-8")) for t in texts)
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        classifier.classify_many(texts)
        best = min(best, time.perf_counter() - start)
    return {
        "texts": len(texts),
        "megabytes": size / 1e6,
        "seconds": best,
        "mb_per_s": size / 1e6 / best,
        "texts_per_s": len(texts) / best,
        "mean_chars": sum(map(len, texts)) / len(texts),
    }


def main(argv: list[str] | None = None) -> int:
    """Print the throughput per corpus, as a table or JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="timed passes; the best counts")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    args = parser.parse_args(argv)
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core
    results = {name: measure(load_texts(name), args.rounds) for name in CORPORA}
    if args.json:
        print(json.dumps({"rounds": args.rounds, "corpora": results}, indent=2))
    else:
        from rag_guard_integrations.cli.output import table  # noqa: PLC0415 - only for the table

        rows = [
            (n, r["texts"], round(r["mean_chars"]), r["megabytes"], r["mb_per_s"], r["texts_per_s"])
            for n, r in results.items()
        ]
        print(table(("corpus", "texts", "mean chars", "MB", "MB/s", "texts/s"), rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
