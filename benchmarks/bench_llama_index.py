"""Overhead of GuardPostprocessor (and GuardedRetriever) over bare LlamaIndex retrieval, as a
ratio from one run: ``python benchmarks/bench_llama_index.py [--rounds N] [--k K] [--json]``.

All paths answer the same contract questions from the same VectorStoreIndex (the bundled
contract corpus, real all-MiniLM-L6-v2 embeddings through MiniLMEmbedding):

- ``bare``: ``VectorIndexRetriever.retrieve``;
- ``postprocessor``: the same retrieve, then ``GuardPostprocessor.postprocess_nodes``;
- ``guarded_retriever``: ``GuardedRetriever.retrieve`` (fetches 4 x k under an access filter).

Calls are interleaved, rotating which path goes first, so machine noise hits all alike. The
guard runs the built-in ``contracts`` policy for a caller allowed every contract type. Torch
runs on one thread (``--threads``) so that other work on the machine disturbs the query
embedding, which dominates every path, less. Target: postprocessor median ratio <= 1.05.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

QUESTIONS = [
    "What is the termination notice period?",
    "How much notice is needed to end the contract for convenience?",
    "Which state's law governs this agreement?",
    "What is the cap on total liability?",
    "For how long must confidential information be protected?",
    "Within how many days must invoices be paid?",
    "Does the term renew automatically?",
    "May either party assign the agreement?",
    "Are we restricted from working with competitors?",
    "Can the customer audit the supplier's records?",
    "Which insurance policies must be maintained?",
    "What happens if the supplier is acquired?",
    "Can we hire the other party's employees?",
    "How long is the warranty period?",
]
TARGET = 1.05
PATHS = ("bare", "postprocessor", "guarded_retriever")


def build(k: int) -> tuple[dict[str, Callable[[str], object]], Callable[[str], object]]:
    """The three paths as callables, plus the postprocessor alone on pre-retrieved nodes."""
    from llama_index.core import VectorStoreIndex  # noqa: PLC0415 - heavy, after arg parsing
    from llama_index.core.schema import QueryBundle, TextNode  # noqa: PLC0415

    from rag_guard_integrations import AccessContext, Guard  # noqa: PLC0415
    from rag_guard_integrations.data import load_corpus  # noqa: PLC0415
    from rag_guard_integrations.llama_index import (  # noqa: PLC0415
        GuardedRetriever,
        GuardPostprocessor,
        MiniLMEmbedding,
    )

    chunks = load_corpus("contracts")
    nodes = [TextNode(id_=c.id, text=c.text, metadata=dict(c.metadata)) for c in chunks]
    index = VectorStoreIndex(nodes, embed_model=MiniLMEmbedding())
    guard = Guard.from_policy("contracts")
    access = AccessContext("bench", contract_type={c.metadata["contract_type"] for c in chunks})
    bare = index.as_retriever(similarity_top_k=k)
    postprocessor = GuardPostprocessor(guard=guard, access=access)
    guarded = GuardedRetriever(
        retriever=index.as_retriever(similarity_top_k=k), guard=guard, access=access
    )
    retrieved = {q: bare.retrieve(q) for q in QUESTIONS}

    def with_postprocessor(query: str) -> object:
        bundle = QueryBundle(query)
        return postprocessor.postprocess_nodes(bare.retrieve(bundle), query_bundle=bundle)

    def postprocessor_alone(query: str) -> object:
        return postprocessor.postprocess_nodes(retrieved[query], query_str=query)

    paths: dict[str, Callable[[str], object]] = {
        "bare": bare.retrieve,
        "postprocessor": with_postprocessor,
        "guarded_retriever": guarded.retrieve,
    }
    return paths, postprocessor_alone


def timed(call: Callable[[str], object], query: str) -> float:
    """Seconds for one call."""
    start = time.perf_counter()
    call(query)
    return time.perf_counter() - start


def measure(
    paths: dict[str, Callable[[str], object]], alone: Callable[[str], object], rounds: int
) -> dict[str, Any]:
    """Interleaved per-call latencies of every path over ``rounds`` passes of the questions."""
    for query in QUESTIONS:  # warm-up: model, caches, compiled patterns
        for call in paths.values():
            call(query)
    times: dict[str, list[float]] = {name: [] for name in PATHS}
    guard_only: list[float] = []
    for n in range(rounds):
        for i, query in enumerate(QUESTIONS):
            shift = (n + i) % len(PATHS)
            for name in PATHS[shift:] + PATHS[:shift]:
                times[name].append(timed(paths[name], query))
            guard_only.append(timed(alone, query))
    stats = {name: summary(values) for name, values in times.items()}
    base = stats["bare"]
    ratios = {
        name: {
            "median": stats[name]["median_ms"] / base["median_ms"],
            "p99": stats[name]["p99_ms"] / base["p99_ms"],
        }
        for name in PATHS[1:]
    }
    return {
        "calls_per_path": len(times["bare"]),
        "paths": stats,
        "ratios": ratios,
        "postprocessor_alone_median_ms": statistics.median(guard_only) * 1e3,
        "target_ratio_median": TARGET,
        "target_met": ratios["postprocessor"]["median"] <= TARGET,
    }


def summary(values: list[float]) -> dict[str, float]:
    """Median and p99 latency in milliseconds."""
    ordered = sorted(values)
    p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
    return {"median_ms": statistics.median(ordered) * 1e3, "p99_ms": p99 * 1e3}


def main(argv: list[str] | None = None) -> int:
    """Print every path's latency and its ratio to bare retrieval, as a table or JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20, help="passes over the questions")
    parser.add_argument("--k", type=int, default=4, help="similarity_top_k of the retriever")
    parser.add_argument("--threads", type=int, default=1, help="torch intra-op threads")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    args = parser.parse_args(argv)
    import torch  # noqa: PLC0415 - heavy, after arg parsing

    torch.set_num_threads(args.threads)
    paths, alone = build(args.k)
    result = {
        "k": args.k,
        "rounds": args.rounds,
        "torch_threads": args.threads,
        **measure(paths, alone, args.rounds),
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    from rag_guard_integrations.cli.output import table  # noqa: PLC0415 - only for the table

    rows = []
    for name, stats in result["paths"].items():
        ratio = result["ratios"].get(name, {"median": 1.0, "p99": 1.0})
        rows.append((name, stats["median_ms"], stats["p99_ms"], ratio["median"], ratio["p99"]))
    print(table(("path", "median ms", "p99 ms", "ratio median", "ratio p99"), rows))
    print(f"postprocessor alone (median): {result['postprocessor_alone_median_ms']:.3f} ms")
    verdict = "met" if result["target_met"] else "missed"
    print(f"target postprocessor median ratio <= {TARGET}: {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
