"""The pushdown of id lists per store: which stores take a scope of 10, 100 and 1,000 resource
ids as their own filter, and what it costs per query, in both frameworks.

Run: .venv/bin/python benchmarks/bench_id_pushdown.py [--queries N] [--json]

The corpus is 1,200 chunks, one per resource (metadata ``resource``), embedded once with MiniLM
and loaded into every store of both frameworks (PostgreSQL a real server in a temp dir). Per
store, framework and list size, each query asks for k = 10 under the filter the adapter's
translation writes for a bounded scope of that many ids (``plan_pushdown`` for LangChain,
``constraint_filters`` for LlamaIndex), drawn at random: ``pushed`` when the store returned only
listed chunks, k of them, ``recall`` the share of the exact top 10 listed chunks it returned,
``p50`` the median milliseconds of the store's search (the query vector is cached, so no
embedding is timed), against the same search with no filter. A store that raises or answers
outside the list is reported as such: the adapters then fetch without the scope and the bulk
check decides (see tests/test_authz_frameworks.py).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

from authz_frameworks import ID_KEY as KEY  # noqa: E402
from authz_frameworks import ID_QUERIES as QUERIES  # noqa: E402
from authz_frameworks import id_corpus, memo  # noqa: E402
from llama_index.core.schema import QueryBundle  # noqa: E402
from pushdown_stores import Stores  # noqa: E402
from pushdown_support import LANGCHAIN_STORES, LLAMA_INDEX_STORES  # noqa: E402

from rag_guard_integrations.core.constraints import Allowed, Constraints  # noqa: E402
from rag_guard_integrations.langchain.pushdown import plan_pushdown  # noqa: E402
from rag_guard_integrations.llama_index.pushdown import constraint_filters  # noqa: E402

SIZES = (10, 100, 1000)
K = 10


def search(framework: str, built: Any, query: str, ids: list[str] | None) -> list[str] | str:
    """The resources one filtered search returns, or why the filter was not pushed."""
    constraints = None if ids is None else Constraints({KEY: Allowed(frozenset(ids))})
    if framework == "langchain":
        kwargs: dict[str, Any] = {}
        if constraints is not None:
            plan = plan_pushdown(built, constraints)
            if plan is None:
                return "not pushed"
            kwargs = dict(plan.search_kwargs)
        documents = built.similarity_search(query, k=K, **kwargs)
        return [d.metadata[KEY] for d in documents]
    filters = None
    if constraints is not None:
        filters = constraint_filters(constraints, built.vector_store)
        if filters is None:
            return "not pushed"
    retriever = built.as_retriever(similarity_top_k=K, filters=filters)
    bundle = QueryBundle(query, embedding=memo().embed_query(query))
    return [n.node.metadata[KEY] for n in retriever.retrieve(bundle)]


def cell(framework: str, built: Any, data: Any, size: int | None, queries: int) -> dict[str, Any]:
    """One store x framework x list size over ``queries`` searches."""
    draw = random.Random(size or 0)
    names = [c.metadata[KEY] for c in data.chunks]
    times: list[float] = []
    hits = expected = outside = short = 0
    for n in range(queries):
        query = QUERIES[n % len(QUERIES)]
        ids = None if size is None else draw.sample(names, size)
        start = time.perf_counter()
        try:
            got = search(framework, built, query, ids)
        except Exception as error:  # the measurement: which stores refuse which sizes
            return {"status": f"refused ({type(error).__name__}: {str(error)[:80]})"}
        times.append((time.perf_counter() - start) * 1000)
        if isinstance(got, str):
            return {"status": got}
        listed = set(names) if ids is None else set(ids)
        scores = data.vectors @ np.array(memo().embed_query(query))
        top = [names[i] for i in np.argsort(-scores, kind="stable") if names[i] in listed][:K]
        outside += sum(r not in listed for r in got)
        short += len(got) < len(top)
        hits += len(set(top) & set(got))
        expected += len(top)
    status = "pushed" if not outside and not short else f"wrong ({outside} outside, {short} short)"
    return {
        "status": status,
        "recall": round(hits / expected, 3),
        "p50_ms": round(statistics.median(times), 2),
        "p95_ms": round(sorted(times)[int(0.95 * (len(times) - 1))], 2),
    }


def measure(queries: int) -> dict[str, dict[str, dict[str, Any]]]:
    """Every store of both frameworks at each size (``none``: no filter)."""
    data = id_corpus()
    stores = Stores(data, memo())
    out: dict[str, dict[str, dict[str, Any]]] = {}
    try:
        for framework, names in (
            ("langchain", LANGCHAIN_STORES),
            ("llama_index", LLAMA_INDEX_STORES),
        ):
            for name in names:
                built = stores.get(framework, name)
                row = {"none": cell(framework, built, data, None, queries)}
                for size in SIZES:
                    row[str(size)] = cell(framework, built, data, size, queries)
                out[f"{framework}/{name}"] = row
                print(f"measured {framework}/{name}", file=sys.stderr, flush=True)
    finally:
        stores.close()
    return out


def main() -> int:
    """Measure; print a table or JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=20, help="searches per cell")
    parser.add_argument("--json", action="store_true", help="machine-readable result")
    args = parser.parse_args()
    results = measure(args.queries)
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    print(f"{'store':26} {'no filter':>10}  " + "  ".join(f"{s:>24}" for s in SIZES))
    for store, row in results.items():
        cells = []
        for size in SIZES:
            got = row[str(size)]
            text = (
                f"{got['p50_ms']:.2f}ms r={got['recall']:.2f}"
                if got["status"] == "pushed"
                else got["status"][:24]
            )
            cells.append(f"{text:>24}")
        base = row["none"]
        print(f"{store:26} {base.get('p50_ms', 0):8.2f}ms  " + "  ".join(cells))
    for store, row in results.items():
        for size in SIZES:
            if row[str(size)]["status"] != "pushed":
                print(f"{store} {size}: {row[str(size)]['status']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
