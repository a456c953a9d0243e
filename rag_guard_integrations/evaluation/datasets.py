"""Inputs of the domain evaluations: corpora and labelled query files."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from rag_guard_integrations.core.chunk import Chunk
from rag_guard_integrations.core.errors import ArgumentError, DataError
from rag_guard_integrations.data import corpus_names, load_corpus, load_queries
from rag_guard_integrations.data.jsonl import read_jsonl

CLINC_SPLITS = ("oos_test", "oos_val", "in_scope_test_sample")


@dataclass(frozen=True, slots=True)
class LabelledQuery:
    """A query, whether it belongs to the collection's domain, and optionally its family (the
    product family it asks about, or any group the evaluation reports separately)."""

    query: str
    in_domain: bool
    family: str | None = None


def load_chunks(ref: str) -> list[Chunk]:
    """A bundled corpus by name, or a JSONL file of ``{"id", "text", "metadata"}`` records."""
    if "/" not in ref and not ref.endswith(".jsonl"):
        return load_corpus(ref)
    path = Path(ref)
    chunks: list[Chunk] = []
    for number, record in read_jsonl(path):
        chunks.append(Chunk.from_any(record, position=number))
    if not chunks:
        raise DataError(f"{path}: no chunks; write one JSON object with 'text' per line")
    return chunks


def default_corpus(policy_name: str | None) -> str:
    """The bundled corpus named like the policy, or an ArgumentError asking for ``corpus=``."""
    if policy_name in corpus_names():
        return str(policy_name)
    raise ArgumentError(
        f"no bundled corpus matches policy {policy_name!r}; pass corpus= (a bundled name or a "
        f"JSONL path; bundled: {', '.join(corpus_names())})"
    )


def read_labelled(path: str | Path) -> list[LabelledQuery]:
    """Labelled queries from JSONL lines ``{"query": str, "in_domain": bool}``."""
    out: list[LabelledQuery] = []
    for number, record in read_jsonl(path):
        out.append(_labelled(record, f"{path}:{number}"))
    if not out:
        raise DataError(f'{path}: no queries; write lines like {{"query": ..., "in_domain": true}}')
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
        raise DataError(f"{source}: not JSON ({error.msg}, line {error.lineno})") from None
    except (OSError, UnicodeDecodeError) as error:
        raise DataError(f"{source}: cannot read it ({error}); check the path") from None
    if not isinstance(data, dict) or not all(isinstance(data.get(s), list) for s in CLINC_SPLITS):
        raise DataError(f"{source}: not a CLINC file; it needs the lists {', '.join(CLINC_SPLITS)}")
    return {
        split: [_clinc_text(item, source, split) for item in data[split]] for split in CLINC_SPLITS
    }


def _clinc_text(item: object, source: Path, split: str) -> str:
    """One CLINC query: a string, or an object with a string ``text``."""
    text = item.get("text") if isinstance(item, dict) else item
    if not isinstance(text, str) or not text.strip():
        raise DataError(
            f"{source}: {split} holds {item!r:.60}; each query must be a string or an object "
            "with a 'text' string"
        )
    return text


def _labelled(record: object, where: str) -> LabelledQuery:
    if not isinstance(record, dict):
        raise DataError(f"{where}: expected a JSON object with 'query' and 'in_domain'")
    query, in_domain = record.get("query"), record.get("in_domain")
    family = record.get("family")
    if not isinstance(query, str) or not query.strip():
        raise DataError(f"{where}: 'query' must be a non-empty string, got {query!r}")
    if not isinstance(in_domain, bool):
        raise DataError(f"{where}: 'in_domain' must be true or false, got {in_domain!r}")
    if family is not None and not isinstance(family, str):
        raise DataError(f"{where}: 'family' must be a string when given, got {family!r}")
    return LabelledQuery(query, in_domain, family)
