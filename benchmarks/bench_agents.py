"""Overhead of a guarded agent (guarded retriever tool + GuardMiddleware) over the same agent
with LangChain's plain retriever tool, as a ratio from one run.

Run: .venv/bin/python benchmarks/bench_agents.py [--rounds N] [--k K] [--threads T] [--json]

Both agents are ``langchain.agents.create_agent`` graphs over the same offline tool-calling
stand-in model (``ToolCallingChat``: one tool call, then an answer from the tool's content) and
the same InMemoryVectorStore (the bundled contract corpus, real all-MiniLM-L6-v2 embeddings), so
what differs is the guard: the tool's check, pushdown, its ``rag_guard.check`` bookkeeping and
the middleware's hooks. The guarded agent takes its caller (allowed every contract type) from
the runtime context. Calls are interleaved, alternating which agent goes first. Scenarios as in
``bench_langchain.py``: ``embedded`` (every query embedded) and ``cached`` (the package's text
cache serves repeated questions, leaving the agent loop as the floor).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bench_langchain import QUESTIONS, UncachedMiniLM, summary

if TYPE_CHECKING:
    from langchain_core.embeddings import Embeddings


@dataclass
class Caller:
    """The guarded agent's runtime context."""

    access: dict[str, Any]


def build(embeddings: Embeddings, k: int) -> tuple[Any, Any, Caller]:
    """The plain agent, the guarded agent and the guarded agent's caller."""
    from langchain.agents import create_agent  # noqa: PLC0415 - heavy, after arg parsing
    from langchain_core.documents import Document  # noqa: PLC0415
    from langchain_core.tools import create_retriever_tool  # noqa: PLC0415
    from langchain_core.vectorstores import InMemoryVectorStore  # noqa: PLC0415

    from rag_guard_integrations import Guard  # noqa: PLC0415
    from rag_guard_integrations.data import load_corpus  # noqa: PLC0415
    from rag_guard_integrations.langchain import (  # noqa: PLC0415
        GuardMiddleware,
        create_guarded_retriever_tool,
    )
    from rag_guard_integrations.langchain.testing import ToolCallingChat  # noqa: PLC0415

    docs = [Document(c.text, metadata=dict(c.metadata), id=c.id) for c in load_corpus("contracts")]
    store = InMemoryVectorStore.from_documents(docs, embeddings)
    guard = Guard.from_policy("contracts")
    plain_tool = create_retriever_tool(
        store.as_retriever(search_kwargs={"k": k}),
        "contracts",
        "Contract clauses.",
        response_format="content_and_artifact",
    )
    guarded_tool = create_guarded_retriever_tool(
        store.as_retriever(), guard, name="contracts", description="Contract clauses.", k=k
    )
    plain = create_agent(ToolCallingChat(), [plain_tool])
    guarded = create_agent(
        ToolCallingChat(),
        [guarded_tool],
        middleware=[GuardMiddleware(guard)],
        context_schema=Caller,
    )
    types = sorted({d.metadata["contract_type"] for d in docs})
    return plain, guarded, Caller(access={"principal": "bench", "contract_type": types})


def measure(plain: Any, guarded: Any, caller: Caller, rounds: int) -> dict[str, Any]:
    """Interleaved per-call latencies of both agents over ``rounds`` passes of the questions."""

    def ask(name: str, query: str) -> None:
        message = {"messages": [("user", query)]}
        if name == "plain":
            plain.invoke(message)
        else:
            guarded.invoke(message, context=caller)

    for query in QUESTIONS:  # warm-up: model, caches, compiled graphs
        ask("plain", query)
        ask("guarded", query)
    wall: dict[str, list[float]] = {"plain": [], "guarded": []}
    for n in range(rounds):
        for i, query in enumerate(QUESTIONS):
            for name in ("plain", "guarded") if (n + i) % 2 == 0 else ("guarded", "plain"):
                start = time.perf_counter()
                ask(name, query)
                wall[name].append(time.perf_counter() - start)
    stats = {name: summary(values) for name, values in wall.items()}
    overhead = [g - p for g, p in zip(wall["guarded"], wall["plain"], strict=True)]
    return {
        "calls_per_agent": len(wall["plain"]),
        "agents": stats,
        "ratio_median": stats["guarded"]["median_ms"] / stats["plain"]["median_ms"],
        "ratio_p99": stats["guarded"]["p99_ms"] / stats["plain"]["p99_ms"],
        "overhead_median_ms": statistics.median(overhead) * 1e3,
    }


def main(argv: list[str] | None = None) -> int:
    """Print both agents' latencies and the overhead ratios, as a table or JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="passes over the questions")
    parser.add_argument("--k", type=int, default=4, help="documents per tool call")
    parser.add_argument("--threads", type=int, default=1, help="torch intra-op threads")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    args = parser.parse_args(argv)
    import torch  # noqa: PLC0415 - heavy, after arg parsing

    from rag_guard_integrations.langchain import MiniLMEmbeddings  # noqa: PLC0415

    torch.set_num_threads(args.threads)
    scenarios = {"embedded": MiniLMEmbeddings(UncachedMiniLM()), "cached": MiniLMEmbeddings()}
    results = {
        name: measure(*build(embeddings, args.k), args.rounds)
        for name, embeddings in scenarios.items()
    }
    report = {
        "k": args.k,
        "rounds": args.rounds,
        "torch_threads": args.threads,
        "scenarios": results,
    }
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    from rag_guard_integrations.cli.console import table  # noqa: PLC0415 - only for the table

    rows = [
        (
            name,
            r["agents"]["plain"]["median_ms"],
            r["agents"]["guarded"]["median_ms"],
            r["ratio_median"],
            r["ratio_p99"],
            r["overhead_median_ms"],
        )
        for name, r in results.items()
    ]
    headers = (
        "scenario",
        "plain med ms",
        "guarded med ms",
        "ratio med",
        "ratio p99",
        "overhead ms",
    )
    print(table(headers, rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
