"""What the audit record costs per check: ``Guard.check`` on 20 contract chunks (contracts +
default packs) with nobody listening, with the ``rag_guard_integrations.audit`` logger writing
to memory, and with an OpenTelemetry SDK provider recording spans; plus ``result.audit()``
alone. Median over repeated runs: ``python benchmarks/bench_audit.py [--runs N] [--json]``.
"""

from __future__ import annotations

import argparse
import io
import json
import logging
import statistics
import time
from typing import TYPE_CHECKING

from rag_guard_integrations import AccessContext, Guard
from rag_guard_integrations.data import load_corpus

if TYPE_CHECKING:
    from collections.abc import Callable

QUERY = "What is the termination notice period?"


def median_us(call: Callable[[], object], runs: int) -> float:
    call()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=2000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    guard = Guard.from_policy("contracts", "default")
    chunks = load_corpus("contracts")[:20]
    access = AccessContext("ann", contract_type={"MSA", "SOW"})

    def check() -> object:
        return guard.check(QUERY, chunks, access=access)

    cells = {"check, nobody listening": median_us(check, args.runs)}
    logger = logging.getLogger("rag_guard_integrations.audit")
    handler = logging.StreamHandler(io.StringIO())
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    cells["check, audit logger on"] = median_us(check, args.runs)
    logger.removeHandler(handler)
    logger.setLevel(logging.NOTSET)
    try:
        from opentelemetry import trace  # noqa: PLC0415 - optional, measured when present
        from opentelemetry.sdk.trace import TracerProvider  # noqa: PLC0415
    except ImportError:
        pass
    else:
        trace.set_tracer_provider(TracerProvider())
        cells["check, OTel span recorded"] = median_us(check, args.runs)
    result = guard.check(QUERY, chunks, access=access)
    cells["result.audit() alone"] = median_us(result.audit, args.runs)
    if args.json:
        print(json.dumps({"median_us": cells}, indent=2))
        return
    for name, value in cells.items():
        print(f"{name:<28} {value:8.1f} us")


if __name__ == "__main__":
    main()
