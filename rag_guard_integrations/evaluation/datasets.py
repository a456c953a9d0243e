"""Inputs of the domain evaluations: corpora and labelled query files."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rag_guard_integrations.core.chunk import Chunk
from rag_guard_integrations.data import corpus_names, load_corpus, load_queries

CLINC_SPLITS = ("oos_test", "oos_val", "in_scope_test_sample")


@dataclass(frozen=True, slots=True)
class LabelledQuery:
    """A query and whether it belongs to the collection's domain."""

    query: str
    in_domain: bool


def load_chunks(ref: str) -> list[Chunk]:
    """A bundled corpus by name, or a JSONL file of ``{"id", "text", "metadata"}`` records."""
    if "/" not in ref and not ref.endswith(".jsonl"):
        return load_corpus(ref)
    path = Path(ref)
    chunks: list[Chunk] = []
    for number, record in _json_lines(path):
        chunks.append(Chunk.from_any(record, position=number))
    if not chunks:
        raise ValueError(f"{path}: no chunks; write one JSON object with 'text' per line")
    return chunks


def default_corpus(policy_name: str | None) -> str:
    """The bundled corpus named like the policy, or a ValueError asking for ``--corpus``."""
    if policy_name in corpus_names():
        return str(policy_name)
    raise ValueError(
        f"no bundled corpus matches policy {policy_name!r}; pass --corpus NAME or a JSONL path "
        f"(bundled: {', '.join(corpus_names())})"
    )


def read_labelled(path: str | Path) -> list[LabelledQuery]:
    """Labelled queries from JSONL lines ``{"query": str, "in_domain": bool}``."""
    out: list[LabelledQuery] = []
    for number, record in _json_lines(Path(path)):
        out.append(_labelled(record, f"{path}:{number}"))
    if not out:
        raise ValueError(
            f'{path}: no queries; write lines like {{"query": ..., "in_domain": true}}'
        )
    return out


def bundled_labelled(name: str) -> list[LabelledQuery]:
    """The labelled queries bundled beside corpus ``name``."""
    return [_labelled(r, f"{name}_queries.jsonl:{i + 1}") for i, r in enumerate(load_queries(name))]


def read_clinc(path: str | Path) -> dict[str, list[str]]:
    """CLINC150 queries by split (``oos_test``, ``oos_val``, ``in_scope_test_sample``)."""
    source = Path(path)
    try:
        data = json.loads(source.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise ValueError(f"{source}: not JSON ({error.msg}, line {error.lineno})") from None
    if not isinstance(data, dict) or not all(isinstance(data.get(s), list) for s in CLINC_SPLITS):
        raise ValueError(
            f"{source}: not a CLINC file; it needs the lists {', '.join(CLINC_SPLITS)}"
        )
    return {
        split: [item["text"] if isinstance(item, dict) else str(item) for item in data[split]]
        for split in CLINC_SPLITS
    }


def _labelled(record: object, where: str) -> LabelledQuery:
    if not isinstance(record, dict):
        raise ValueError(f"{where}: expected a JSON object with 'query' and 'in_domain'")
    query, in_domain = record.get("query"), record.get("in_domain")
    if not isinstance(query, str) or not query.strip():
        raise ValueError(f"{where}: 'query' must be a non-empty string, got {query!r}")
    if not isinstance(in_domain, bool):
        raise ValueError(f"{where}: 'in_domain' must be true or false, got {in_domain!r}")
    return LabelledQuery(query, in_domain)


def _json_lines(path: Path) -> list[tuple[int, Any]]:
    out: list[tuple[int, Any]] = []
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                out.append((number, json.loads(line)))
            except json.JSONDecodeError as error:
                raise ValueError(
                    f"{path}:{number}: not JSON ({error.msg}); one object per line"
                ) from None
    return out
