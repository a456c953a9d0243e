"""An exact cosine index over chunks: the naive top-k retrieval of the demo and evaluations."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Sequence

    from rag_guard_integrations.core.chunk import Chunk
    from rag_guard_integrations.embeddings import Embedder


class VectorIndex:
    """Embeds chunks once and returns the top-k by cosine similarity (exact, numpy).

    Example:
        >>> from rag_guard_integrations.data import load_corpus
        >>> from rag_guard_integrations.embeddings import default_embedder
        >>> index = VectorIndex(load_corpus("contracts"), default_embedder())
        >>> hits = index.search("notice to terminate", k=2)
        >>> [c.metadata["clause_id"] for c in hits]
        ['TERMINATION_NOTICE', 'TERMINATION_NOTICE']
    """

    def __init__(self, chunks: Sequence[Chunk], embedder: Embedder) -> None:
        import numpy as np  # noqa: PLC0415 - numpy comes with the embeddings extra

        self._np = np
        self.chunks = list(chunks)
        self.embedder = embedder
        self._matrix = self._unit_rows(embedder.embed_documents([c.text for c in self.chunks]))

    def _unit_rows(self, vectors: Sequence[Sequence[float]]) -> Any:
        matrix = self._np.asarray(vectors, dtype=self._np.float32).reshape(len(vectors), -1)
        norms = self._np.linalg.norm(matrix, axis=1, keepdims=True)
        return matrix / self._np.where(norms == 0, 1, norms)

    def search_many(self, queries: Sequence[str], k: int) -> list[list[Chunk]]:
        """Top-``k`` chunks per query, best first, each a copy carrying its cosine score."""
        if not queries or not self.chunks or k <= 0:
            return [[] for _ in queries]
        scores = self._unit_rows(self.embedder.embed_documents(list(queries))) @ self._matrix.T
        top = self._np.argsort(-scores, axis=1, kind="stable")[:, :k]
        return [
            [replace(self.chunks[j], score=float(row[j])) for j in order]
            for row, order in zip(scores, top, strict=True)
        ]

    def search(self, query: str, k: int = 4) -> list[Chunk]:
        """Top-``k`` chunks for ``query``, best first, each a copy carrying its cosine score."""
        return self.search_many([query], k)[0]
