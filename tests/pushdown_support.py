"""Real vector stores for the pushdown tests and benchmark: one embedded corpus (the bundled
contracts, each shared with one or two groups), every store of both frameworks built from the
same MiniLM vectors, and the measurement of one store x framework x match-mode cell."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

import numpy as np

from rag_guard_integrations import Chunk, Guard, parse_policy
from rag_guard_integrations.data import load_corpus
from rag_guard_integrations.embeddings import default_embedder

if TYPE_CHECKING:
    from collections.abc import Iterator

# A document is shared with one or two groups: a caller in any of them may read it under
# `match: any`; under `match: all` only a caller allowed every group it names.
GROUPS = {
    "MSA": ["legal"],
    "SOW": ["legal", "finance"],
    "CHANNEL": ["sales"],
    "NDA": ["legal", "hr"],
    "DPA": ["hr", "finance"],
}
POLICIES = {
    "all": "access: {attributes: [contract_type]}",
    "any": "access: {attributes: [groups], match: {groups: any}}",
}
CASES = {
    "all": [
        {"contract_type": ["MSA"]},
        {"contract_type": ["DPA"]},
        {"contract_type": ["SOW", "NDA"]},
    ],
    "any": [{"groups": ["hr"]}, {"groups": ["sales"]}, {"groups": ["finance", "legal"]}],
}
QUERIES = [
    "What is the termination notice period?",
    "Which law governs the agreement?",
    "How long do confidentiality obligations last?",
    "When are invoices due for payment?",
]
K = 4
LANGCHAIN_STORES = ("in_memory", "faiss", "chroma", "qdrant", "lancedb", "milvus", "pgvector")
LLAMA_INDEX_STORES = ("simple", "faiss", "chroma", "qdrant", "lancedb", "milvus", "pgvector")
# LlamaIndex's Chroma and LanceDB stores refuse list metadata when nodes are added.
FLAT_ONLY = frozenset({("llama_index", "chroma"), ("llama_index", "lancedb")})


@dataclass(frozen=True)
class Corpus:
    """The chunks (ids are UUIDs, as Qdrant requires) and their unit vectors, row by row."""

    chunks: list[Chunk]
    vectors: np.ndarray


@cache
def corpus() -> Corpus:
    """The contract corpus with a ``groups`` list per chunk, embedded once per process."""
    chunks = [
        Chunk(
            c.text,
            {**c.metadata, "groups": GROUPS[c.metadata["contract_type"]], "ref": str(c.id)},
            id=str(uuid.uuid5(uuid.NAMESPACE_URL, str(c.id))),
        )
        for c in load_corpus("contracts")
    ]
    vectors = np.array(default_embedder().embed_documents([c.text for c in chunks]))
    return Corpus(chunks, vectors)


def flat(metadata: dict[str, Any]) -> dict[str, Any]:
    """The metadata without list values, for stores that refuse them."""
    return {k: v for k, v in metadata.items() if not isinstance(v, list)}


@dataclass
class Cell:
    """One store x framework x match mode: whether pushdown applied, authorised recall at K
    (the exact top-K admissible chunks found), leaks (returned chunks the caller may not see)
    and dropped (fetched candidates the guard withheld: 0 when the store honoured the filter)."""

    framework: str
    store: str
    mode: str
    pushdown: bool = False
    leaks: int = 0
    dropped: int = 0
    hits: int = 0
    expected: int = 0
    note: str = ""

    @property
    def recall(self) -> float:
        """Authorised recall at K over every request of the cell."""
        return self.hits / self.expected if self.expected else 0.0

    def add(self, query: str, access: Any, refs: list[str], fetched: list[str]) -> None:
        """Count one request: the refs of the chunks returned and of those fetched."""
        by_ref = {c.metadata["ref"]: c for c in corpus().chunks}
        constraints = guard_for(self.mode).prefilter(query, access)
        assert constraints is not None
        expected = set(_top_refs(np.array(default_embedder().embed_query(query)), constraints))
        self.leaks += sum(not constraints.admits(by_ref[r].metadata) for r in refs)
        self.dropped += sum(not constraints.admits(by_ref[r].metadata) for r in fetched)
        self.hits += len(expected & set(refs))
        self.expected += len(expected)

    def row(self) -> dict[str, Any]:
        """JSON-ready form."""
        keys = ("framework", "store", "mode", "pushdown", "leaks", "dropped", "note")
        return {**{k: getattr(self, k) for k in keys}, "recall": round(self.recall, 3)}


def requests(mode: str) -> Iterator[tuple[str, dict[str, list[str]]]]:
    """Every (query, access) pair measured for ``mode``."""
    for access in CASES[mode]:
        for query in QUERIES:
            yield query, access


def guard_for(mode: str) -> Guard:
    """An access-only guard whose attribute is matched in ``mode``."""
    return Guard(parse_policy(POLICIES[mode]))


def _top_refs(vector: np.ndarray, constraints: Any) -> list[str]:
    data = corpus()
    order = np.argsort(-(data.vectors @ vector), kind="stable")
    admitted = [data.chunks[i] for i in order if constraints.admits(data.chunks[i].metadata)]
    return [str(c.metadata["ref"]) for c in admitted[:K]]
