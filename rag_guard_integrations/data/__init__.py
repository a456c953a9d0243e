"""Small bundled corpora for the demo and the evaluation, read as chunks."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from rag_guard_integrations.core.chunk import Chunk
from rag_guard_integrations.core.errors import ArgumentError
from rag_guard_integrations.data.jsonl import read_jsonl

DATA_DIR = Path(__file__).resolve().parent
__all__ = ["DATA_DIR", "corpus_names", "load_corpus", "load_queries"]


def corpus_names() -> list[str]:
    """Names of the bundled corpora (``contracts``, ``bis``, ...)."""
    return sorted(p.stem for p in DATA_DIR.glob("*.jsonl") if not p.stem.endswith("_queries"))


@lru_cache(maxsize=8)
def _records(name: str) -> tuple[dict[str, object], ...]:
    path = DATA_DIR / f"{name}.jsonl"
    if not path.is_file():
        raise ArgumentError(
            f"no bundled corpus {name!r}; choose one of {', '.join(corpus_names())}"
        )
    return tuple(record for _, record in read_jsonl(path))


def load_corpus(name: str) -> list[Chunk]:
    """The bundled corpus ``name`` as chunks (ids and metadata as stored).

    Example:
        >>> chunks = load_corpus("contracts")
        >>> {c.metadata["contract_type"] for c in chunks} >= {"MSA", "SOW"}
        True
    """
    return [Chunk.from_any(record, position=i) for i, record in enumerate(_records(name))]


def load_queries(name: str) -> list[dict[str, object]]:
    """Labelled queries bundled beside a corpus (``{name}_queries.jsonl``)."""
    return [dict(r) for r in _records(f"{name}_queries")]
