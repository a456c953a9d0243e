"""Throughput of PatternClassifier in MB/s of text on one core, cache off:
``python benchmarks/bench_patterns.py [--rounds N] [--json]``.

Corpora, read from ../shared/data (or ``$RAG_GUARD_SHARED_DATA``): real contract clauses (CUAD
excerpts: long, little PII), annotated PII sentences (short, dense PII, many non-ASCII names),
and the clauses joined into one 115 kB document (no per-text overhead).

Two classifiers: ``PatternClassifier()`` (every regex built-in, what it ran before the names
recognisers existed), and the same with the ``person`` and ``organization`` recognisers, as
the built-in packs run them.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from rag_guard_integrations.classify.pattern import PatternClassifier
from rag_guard_integrations.classify.recognizers import BUILTIN_RECOGNIZERS, DEFAULT_RECOGNIZERS

DATA = Path(
    os.environ.get("RAG_GUARD_SHARED_DATA")
    or Path(__file__).resolve().parents[2] / "shared" / "data"
)
CORPORA = ("cuad_clauses", "pii_samples", "cuad_document")
CLASSIFIERS = {
    "patterns": tuple(r.name for r in DEFAULT_RECOGNIZERS),
    "patterns+names": tuple(BUILTIN_RECOGNIZERS),
}


def load_texts(name: str) -> list[str]:
    """The texts of a corpus; ``cuad_document`` is every clause joined into one long text."""
    if name == "cuad_document":
        return ["\n\n".join(load_texts("cuad_clauses"))]
    with (DATA / f"{name}.jsonl").open(encoding="utf-8") as handle:
        return [json.loads(line)["text"] for line in handle if line.strip()]


def measure(texts: list[str], rounds: int, recognizers: tuple[str, ...]) -> dict[str, float]:
    """Best-of-``rounds`` time to classify every text once (a fresh classifier of
    ``recognizers``, cache off).

    ``mb_per_s`` divides by the CPU time of this thread, which a busy shared machine does not
    inflate; ``wall_mb_per_s`` divides by elapsed time.
    """
    classifier = PatternClassifier(recognizers, cache_size=0)
    classifier.classify_many(texts[:10])  # compile and warm up outside the timing
    size = sum(len(t.encode("utf-8")) for t in texts) / 1e6
    cpu = wall = float("inf")
    for _ in range(rounds):
        start_cpu, start_wall = time.thread_time(), time.perf_counter()
        classifier.classify_many(texts)
        cpu = min(cpu, time.thread_time() - start_cpu)
        wall = min(wall, time.perf_counter() - start_wall)
    return {
        "texts": len(texts),
        "mean_chars": sum(map(len, texts)) / len(texts),
        "megabytes": size,
        "cpu_seconds": cpu,
        "mb_per_s": size / cpu,
        "wall_mb_per_s": size / wall,
        "texts_per_s": len(texts) / cpu,
    }


def main(argv: list[str] | None = None) -> int:
    """Print the throughput per corpus, as a table or JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="timed passes; the best counts")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    args = parser.parse_args(argv)
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core
    texts = {name: load_texts(name) for name in CORPORA}
    # The two classifiers take turns corpus by corpus, so that a change of load hits both.
    results: dict[str, dict[str, dict[str, float]]] = {c: {} for c in CLASSIFIERS}
    for name in CORPORA:
        for kind, recognizers in CLASSIFIERS.items():
            results[kind][name] = measure(texts[name], args.rounds, recognizers)
    if args.json:
        print(json.dumps({"rounds": args.rounds, "classifiers": results}, indent=2))
    else:
        from rag_guard_integrations.cli.console import table  # noqa: PLC0415 - only for the table

        rows = [
            (
                kind,
                n,
                r["texts"],
                round(r["mean_chars"]),
                r["mb_per_s"],
                r["wall_mb_per_s"],
                r["texts_per_s"],
            )
            for kind, corpora in results.items()
            for n, r in corpora.items()
        ]
        header = ("classifier", "corpus", "texts", "mean chars", "MB/s (cpu)", "MB/s (wall)")
        print(table((*header, "texts/s"), rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
