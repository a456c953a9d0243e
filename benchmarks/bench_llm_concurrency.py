"""Wall time of LLMClassifier on 20 chunks against an Ollama-API server that takes 100 ms a call:
``python benchmarks/bench_llm_concurrency.py [--chunks N] [--delay S] [--rounds N] [--json]``.

The server is the test suite's (tests/ollama_server.py) on 127.0.0.1, driven by the real
``ChatOllama`` client. Sequential (max_concurrency=1) is compared with bounded concurrency, via
the sync and the async API; the cache is off so every round makes every call.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from langchain_ollama import ChatOllama

from rag_guard_integrations.classify.llm import LLMClassifier

if TYPE_CHECKING:
    from rag_guard_integrations.classify.base import Classification

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from ollama_server import OllamaServer, keyword_labeller

LABELS = {"financial": "revenue, prices, salaries", "health": "diagnoses and treatments"}
KEYWORDS = {"financial": ["revenue"], "health": ["diagnos"]}


def measure(
    server: OllamaServer, chunks: int, concurrency: int, mode: str, rounds: int
) -> dict[str, float]:
    """Best-of-``rounds`` seconds to classify ``chunks`` texts (after one warm-up pass), the
    most requests the server held at once, and the requests per pass."""
    llm = ChatOllama(
        model=server.model, base_url=server.base_url, client_kwargs={"trust_env": False}
    )
    classifier = LLMClassifier(llm, labels=LABELS, max_concurrency=concurrency, cache_size=0)
    texts = [f"Chunk {i}: revenue grew {i}%." for i in range(chunks)]

    def checked(results: list[Classification]) -> None:
        if any(result.error for result in results):
            raise SystemExit(f"classification failed: {results[0].error}")

    def sync_pass() -> float:
        start = time.perf_counter()
        checked(classifier.classify_many(texts))
        return time.perf_counter() - start

    async def async_passes() -> list[float]:
        # one loop for every pass: the model's async client stays on the loop that opened it
        times = []
        for _ in range(rounds + 1):
            start = time.perf_counter()
            checked(await classifier.aclassify_many(texts))
            times.append(time.perf_counter() - start)
        return times

    server.reset()
    if mode == "async":
        times = asyncio.run(async_passes())
    else:
        times = [sync_pass() for _ in range(rounds + 1)]
    return {
        "seconds": min(times[1:]),
        "max_in_flight": server.max_in_flight,
        "requests_per_pass": server.chat_count / (rounds + 1),
    }


def main(argv: list[str] | None = None) -> int:
    """Print the timings as a table or JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=20)
    parser.add_argument("--delay", type=float, default=0.1, help="server seconds per call")
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=5, help="timed passes; the best counts")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    args = parser.parse_args(argv)
    os.environ.setdefault("NO_PROXY", "127.0.0.1,localhost")
    results: dict[str, dict[str, float]] = {}
    with OllamaServer(responder=keyword_labeller(KEYWORDS), delay=args.delay) as server:
        for concurrency in (1, args.concurrency):
            for mode in ("sync", "async"):
                name = f"{mode}, max_concurrency={concurrency}"
                results[name] = measure(server, args.chunks, concurrency, mode, args.rounds)
    if args.json:
        print(json.dumps({"chunks": args.chunks, "delay": args.delay, "runs": results}, indent=2))
        return 0
    print(f"{args.chunks} chunks, server delay {args.delay * 1000:.0f} ms, best of {args.rounds}")
    print(f"{'run':<30} {'seconds':>8} {'max in flight':>14} {'requests/pass':>14}")
    for name, row in results.items():
        seconds, peak, requests = row["seconds"], row["max_in_flight"], row["requests_per_pass"]
        print(f"{name:<30} {seconds:>8.3f} {peak:>14.0f} {requests:>14.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
