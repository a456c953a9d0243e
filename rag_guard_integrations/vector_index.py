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
        >>> index = VectorIndex(load_corpus("contracts"), default_embedder())  # doctest: +SKIP
        >>> hits = index.search("notice to terminate", k=2)  # doctest: +SKIP
        >>> [c.metadata["clause_id"] for c in hits]  # doctest: +SKIP
        ['TERMINATION_NOTICE', 'TERMINATION_NOTICE']
    """

    def __init__(self, chunks: Sequence[Chunk], embedder: Embedder) -> None:
        import numpy as np  # noqa: PLC0415 - numpy comes with the embeddings extra

        self.chunks = list(chunks)
        self.embedder = embedder
        vectors = embedder.embed_documents([c.text for c in self.chunks])
        self._matrix: Any = np.asarray(vectors, dtype=np.float32).reshape(len(self.chunks), -1)

    def search_vector(self, vector: Sequence[float], k: int) -> list[Chunk]:
        """Top-``k`` chunks for an already embedded query, each a copy carrying its score."""
        import numpy as np  # noqa: PLC0415

        if not self.chunks or k <= 0:
            return []
        scores = self._matrix @ np.asarray(vector, dtype=np.float32)
        top = np.argsort(-scores, kind="stable")[:k]
        return [replace(self.chunks[i], score=float(scores[i])) for i in top]

    def search(self, query: str, k: int = 4) -> list[Chunk]:
        """Top-``k`` chunks for ``query``, best first, each a copy carrying its cosine score."""
        return self.search_vector(self.embedder.embed_query(query), k)
