"""Records per second tagging chunks with the pattern classifier, one local process vs Ray Data:
``python benchmarks/bench_scale.py [--records N] [--num-cpus N] [--json]``.

Both paths start from the same records in memory and end with every tagged record back in this
process (the local engine's ``tag_records``; Ray: JSON rows through ``tag_dataset`` and back),
and must give identical output. Ray is timed with and without starting the local instance.
Chunks are the PII sentences and contract clauses in ../shared/data, numbered so that no two
are alike (the classifier's per-text cache does not help either path).
"""

from __future__ import annotations

import argparse
import json
import os
import time
from itertools import cycle, islice
from pathlib import Path
from typing import Any

from rag_guard_integrations.classify.tagging import tag_records
from rag_guard_integrations.cli.tag import build_classifier
from rag_guard_integrations.scale import (
    DEFAULT_BATCH_SIZE,
    ClassifierSpec,
    ray_session,
    records_of,
    tag_dataset,
)

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def chunks(count: int) -> list[dict[str, Any]]:
    """``count`` distinct records cycling through the PII sentences and contract clauses."""
    texts: list[str] = []
    for name in ("pii_samples", "cuad_clauses"):
        with (DATA / f"{name}.jsonl").open(encoding="utf-8") as handle:
            texts += [json.loads(line)["text"] for line in handle if line.strip()]
    return [
        {"id": n, "text": f"{text} [{n}]", "metadata": {"source": "bench"}}
        for n, text in enumerate(islice(cycle(texts), count))
    ]


def run_local(records: list[dict[str, Any]]) -> tuple[float, list[dict[str, Any]]]:
    """Seconds for the local engine to tag ``records`` in this process, and its output."""
    start = time.perf_counter()
    out = list(tag_records(records, build_classifier("pattern", None, None)))
    return time.perf_counter() - start, out


def run_ray(
    records: list[dict[str, Any]], num_cpus: int, batch_size: int
) -> tuple[float, float, list[dict[str, Any]]]:
    """Seconds to start Ray (the instance, and its workers importing this package on a first
    small run), seconds to tag ``records`` on it, and its output."""
    start = time.perf_counter()
    with ray_session(num_cpus=num_cpus) as ray:
        on_ray(ray, records[: 2 * num_cpus], 1)
        started = time.perf_counter()
        out = on_ray(ray, records, batch_size)
        done = time.perf_counter()
    return started - start, done - started, out


def on_ray(ray: Any, records: list[dict[str, Any]], batch_size: int) -> list[dict[str, Any]]:
    """``records`` tagged on Ray as JSON rows, back in this process in input order."""
    import pyarrow as pa  # noqa: PLC0415 - part of the ray extra

    lines = [json.dumps(r, ensure_ascii=False) for r in records]
    blocks = [
        pa.table({"record": lines[i : i + batch_size]}) for i in range(0, len(lines), batch_size)
    ]
    source = ray.data.from_arrow(blocks)
    source.context.execution_options.preserve_order = True
    tagged = tag_dataset(
        source, ClassifierSpec("pattern"), json_column="record", batch_size=batch_size
    )
    return [
        record
        for batch in tagged.iter_batches(batch_size=None, batch_format="pyarrow")
        for record in records_of(batch, "record")
    ]


def main(argv: list[str] | None = None) -> int:
    """Print records per second for both paths and their ratio, as a table or JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument("--num-cpus", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=DEFAULT_BATCH_SIZE)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    records = chunks(args.records)
    load = os.getloadavg()[0]
    local_s, local_out = run_local(records)
    startup_s, ray_s, ray_out = run_ray(records, args.num_cpus, args.batch_size)
    if ray_out != local_out:
        raise SystemExit("Ray output differs from the local engine's; the timing is void")
    n = len(records)
    result = {
        "records": n,
        "cpus_on_machine": os.cpu_count(),
        "load_average_at_start": round(load, 2),
        "local_records_per_s": n / local_s,
        "ray_records_per_s": n / ray_s,
        "ray_records_per_s_with_startup": n / (ray_s + startup_s),
        "ray_startup_s": startup_s,
        "speedup": local_s / ray_s,
        "speedup_with_startup": local_s / (ray_s + startup_s),
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    width = max(map(len, result))
    for key, value in result.items():
        print(
            f"{key:<{width}}  {value:,.2f}"
            if isinstance(value, float)
            else f"{key:<{width}}  {value}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
