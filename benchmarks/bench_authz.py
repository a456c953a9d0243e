"""Cost per query of an access source (its scope for pushdown plus the live bulk check) on top
of the guard alone, per engine, at k = 10 and 100; and the leakage check per engine.

Run: .venv/bin/python benchmarks/bench_authz.py [--queries N] [--json]

The guard is ``Guard.from_policy("default")`` (recognisers and combination rules on every
chunk); the candidates are k random chunks of the sample organisation grown to 100 documents a
folder (700 documents, 1,400 chunks), as a retriever without pushdown returns them. Per query:
``guard`` is the check alone; ``check`` the check with the source (its bulk call included);
``scope`` the source's scope through ``Guard.prefilter`` (SpiceDB streams LookupResources each
time; Cedar and Casbin evaluate the principal over all 700 documents once per policy version,
reported apart as ``scope_cold``, then answer from their cache). Calls are interleaved; the
ratio is (scope + check) / guard at the median. Engines run in-process here (SpiceDB embedded):
a networked authorizer adds its round trips. The leakage check is 1,000 (query, principal)
cases at k = 10 through ``Guard.check``, scored against the organisation's ground truth.

The framework leakage check (``--cases``, default 1,000 per engine, framework and store) runs
the same organisation through the shipped ``GuardedRetriever`` of LangChain (over
``SKLearnVectorStore``, which has no pushdown, and Chroma, which gets the scope as its filter)
and of LlamaIndex (over FAISS, no metadata filters, and Chroma), k = 4, access given as the
principal only: leaks, authorised recall against the exact top 4 the principal may view, and
requests that came back short. Without pushdown the fetch reaches the whole index (84 chunks);
``default fetch`` is the same at the default over-fetch of 4 x k, to show what it costs there.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

from authz_frameworks import RESOURCE_KEY, STORES, evaluate  # noqa: E402
from authz_support import ENGINES, engine  # noqa: E402

from rag_guard_integrations import AccessContext, Guard  # noqa: E402
from rag_guard_integrations.authz.evaluation import QUERIES, access_leakage  # noqa: E402
from rag_guard_integrations.authz.sample import SampleOrg  # noqa: E402

KS = (10, 100)


def timed(call: Any, *args: Any, **kwargs: Any) -> float:
    """Milliseconds one call takes."""
    start = time.perf_counter()
    call(*args, **kwargs)
    return (time.perf_counter() - start) * 1000


def percentiles(samples: list[float]) -> dict[str, float]:
    """Median and 95th percentile, in ms."""
    ordered = sorted(samples)
    return {
        "p50": round(statistics.median(ordered), 3),
        "p95": round(ordered[int(0.95 * (len(ordered) - 1))], 3),
    }


def measure(name: str, queries: int) -> dict[str, Any]:
    """The per-query costs of ``name`` at each k, and its leakage over 1,000 cases."""
    org = SampleOrg.build(documents_per_folder=100)
    chunks = org.chunks()
    users = sorted(org.users)
    alone = Guard.from_policy("default")
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as folder, engine(name, org, Path(folder)) as built:
        guarded = Guard.from_policy("default", access_source=built.source)
        # Each principal's first scope: Cedar and Casbin then keep it until the policy changes.
        cold = [timed(built.source.scope, user) for user in users]
        out["scope_cold"] = percentiles(cold)
        draw = random.Random(0)
        for k in KS:
            costs: dict[str, list[float]] = {"guard": [], "check": [], "scope": []}
            for _ in range(queries):
                access = AccessContext(draw.choice(users))
                query, candidates = draw.choice(QUERIES), draw.sample(chunks, k)
                costs["guard"].append(timed(alone.check, query, candidates, access=access))
                costs["scope"].append(timed(guarded.prefilter, query, access))
                costs["check"].append(timed(guarded.check, query, candidates, access=access))
            row = {stage: percentiles(samples) for stage, samples in costs.items()}
            total = row["scope"]["p50"] + row["check"]["p50"]
            row["ratio_p50"] = round(total / row["guard"]["p50"], 2)
            out[f"k={k}"] = row
        small = SampleOrg.build()
    with tempfile.TemporaryDirectory() as folder, engine(name, small, Path(folder)) as built:
        leakage = access_leakage(Guard.from_policy("default", access_source=built.source), small)
    out["leakage"] = {
        "cases": leakage.cases,
        "leak_rate": leakage.leak_rate,
        "authorised_recall": leakage.authorised_recall,
    }
    return out


def frameworks(name: str, cases: int) -> dict[str, dict[str, Any]]:
    """The leakage of ``name`` through each framework's retriever over each store."""
    org = SampleOrg.build()
    every = len(org.chunks())
    out: dict[str, dict[str, Any]] = {}
    with (
        tempfile.TemporaryDirectory() as folder,
        engine(name, org, Path(folder), resource_key=RESOURCE_KEY) as built,
    ):
        guard = Guard.from_policy("default", access_source=built.source)
        for framework, stores in STORES.items():
            for store, pushes in stores.items():
                runs = {store: None if pushes else every}
                if not pushes:
                    runs[f"{store} (default fetch)"] = None
                for label, fetch_k in runs.items():
                    got = evaluate(framework, store, guard, org, cases, fetch_k=fetch_k)
                    out[f"{framework}/{label}"] = {
                        "pushdown": got.pushdown,
                        "cases": got.cases,
                        "leak_rate": round(got.leak_rate, 3),
                        "authorised_recall": round(got.authorised_recall, 3),
                        "short": got.short,
                        "exposed": got.exposed,
                    }
    return out


def main() -> int:
    """Measure every engine; print a table or JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=200, help="queries per engine and k")
    parser.add_argument(
        "--cases", type=int, default=1000, help="framework leakage cases per engine and store"
    )
    parser.add_argument("--json", action="store_true", help="machine-readable result")
    args = parser.parse_args()
    results = {name: measure(name, args.queries) for name in ENGINES}
    through = {name: frameworks(name, args.cases) for name in ENGINES}
    if args.json:
        print(json.dumps({"guard": results, "frameworks": through}, indent=2))
        return 0
    print(
        "engine   k    guard p50  check p50  scope p50  (scope+check)/guard  check p95  scope p95"
    )
    for name, rows in results.items():
        for k in KS:
            row = rows[f"k={k}"]
            print(
                f"{name:8} {k:<4} {row['guard']['p50']:8.3f}ms {row['check']['p50']:8.3f}ms "
                f"{row['scope']['p50']:8.3f}ms {row['ratio_p50']:12.2f}x       "
                f"{row['check']['p95']:8.3f}ms {row['scope']['p95']:8.3f}ms"
            )
    for name, rows in results.items():
        cold = rows["scope_cold"]
        print(f"{name}: first scope per principal p50 {cold['p50']:.3f}ms, p95 {cold['p95']:.3f}ms")
    for name, rows in results.items():
        leak = rows["leakage"]
        print(
            f"{name}: {leak['cases']} cases, leak {leak['leak_rate']:.3f}, "
            f"authorised recall {leak['authorised_recall']:.3f}"
        )
    print("engine   framework/store                   pushdown  cases  leak   recall  short")
    for name, rows in through.items():
        for where, got in rows.items():
            print(
                f"{name:8} {where:33} {'yes' if got['pushdown'] else 'no':8} {got['cases']:6} "
                f"{got['leak_rate']:.3f}  {got['authorised_recall']:.3f}  {got['short']:5}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
