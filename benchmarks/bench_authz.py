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


def main() -> int:
    """Measure every engine; print a table or JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=200, help="queries per engine and k")
    parser.add_argument("--json", action="store_true", help="machine-readable result")
    args = parser.parse_args()
    results = {name: measure(name, args.queries) for name in ENGINES}
    if args.json:
        print(json.dumps(results, indent=2))
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
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
