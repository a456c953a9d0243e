"""Overhead of GuardedRetriever over the bare retriever it wraps, as a ratio from one run:
``python benchmarks/bench_langchain.py [--rounds N] [--k K] [--json]``.

Both paths answer the same contract questions from the same InMemoryVectorStore (the bundled
contract corpus, real all-MiniLM-L6-v2 embeddings). Calls are interleaved, alternating which
path goes first, so machine noise hits both alike. The guarded path runs the built-in
``contracts`` policy for a caller allowed every contract type, with access pushdown on.
Target: median ratio <= 1.05.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from langchain_core.retrievers import BaseRetriever

QUESTIONS = [
    "What is the termination notice period?",
    "How many days' notice do we need to terminate for convenience?",
    "Which law governs the agreement?",
    "Is liability capped, and at what amount?",
    "How long do confidentiality obligations last?",
    "When are invoices due?",
    "Does the agreement renew automatically?",
    "Can the agreement be assigned without consent?",
    "Is there a non-compete?",
    "Who may audit the books and records?",
    "What insurance must the supplier carry?",
    "What happens on a change of control?",
]
TARGET = 1.05


def build(k: int) -> tuple[BaseRetriever, BaseRetriever]:
    """The bare retriever and the guarded one around an identical inner retriever."""
    from langchain_core.documents import Document  # noqa: PLC0415 - heavy, after arg parsing
    from langchain_core.vectorstores import InMemoryVectorStore  # noqa: PLC0415

    from rag_guard_integrations import Guard  # noqa: PLC0415
    from rag_guard_integrations.data import load_corpus  # noqa: PLC0415
    from rag_guard_integrations.langchain import (  # noqa: PLC0415
        GuardedRetriever,
        MiniLMEmbeddings,
    )

    docs = [Document(c.text, metadata=dict(c.metadata), id=c.id) for c in load_corpus("contracts")]
    store = InMemoryVectorStore.from_documents(docs, MiniLMEmbeddings())
    types = sorted({d.metadata["contract_type"] for d in docs})
    bare = store.as_retriever(search_kwargs={"k": k})
    guarded = GuardedRetriever(
        retriever=store.as_retriever(search_kwargs={"k": k}),
        guard=Guard.from_policy("contracts"),
        access={"principal": "bench", "contract_type": types},
    )
    return bare, guarded


def timed(retriever: BaseRetriever, query: str) -> float:
    """Seconds for one invoke."""
    start = time.perf_counter()
    retriever.invoke(query)
    return time.perf_counter() - start


def measure(bare: BaseRetriever, guarded: BaseRetriever, rounds: int) -> dict[str, Any]:
    """Interleaved per-call latencies of both paths over ``rounds`` passes of the questions."""
    for query in QUESTIONS:  # warm-up: model, caches, compiled patterns
        bare.invoke(query)
        guarded.invoke(query)
    times: dict[str, list[float]] = {"bare": [], "guarded": []}
    for n in range(rounds):
        for i, query in enumerate(QUESTIONS):
            order = ("bare", "guarded") if (n + i) % 2 == 0 else ("guarded", "bare")
            for name in order:
                times[name].append(timed(bare if name == "bare" else guarded, query))
    stats = {name: summary(values) for name, values in times.items()}
    return {
        "calls_per_path": len(times["bare"]),
        "paths": stats,
        "ratio_median": stats["guarded"]["median_ms"] / stats["bare"]["median_ms"],
        "ratio_p99": stats["guarded"]["p99_ms"] / stats["bare"]["p99_ms"],
        "target_ratio_median": TARGET,
    }


def summary(values: list[float]) -> dict[str, float]:
    """Median and p99 latency in milliseconds."""
    ordered = sorted(values)
    p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
    return {"median_ms": statistics.median(ordered) * 1e3, "p99_ms": p99 * 1e3}


def main(argv: list[str] | None = None) -> int:
    """Print both paths' latencies and the overhead ratio, as a table or JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20, help="passes over the questions")
    parser.add_argument("--k", type=int, default=4, help="documents per query")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    args = parser.parse_args(argv)
    bare, guarded = build(args.k)
    result = {"k": args.k, "rounds": args.rounds, **measure(bare, guarded, args.rounds)}
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        from rag_guard_integrations.cli.output import table  # noqa: PLC0415 - only for the table

        paths = result["paths"]
        rows = [(n, p["median_ms"], p["p99_ms"]) for n, p in paths.items()]
        rows.append(("ratio", result["ratio_median"], result["ratio_p99"]))
        print(table(("path", "median ms", "p99 ms"), rows))
        verdict = "met" if result["ratio_median"] <= TARGET else "missed"
        print(f"target median ratio <= {TARGET}: {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
