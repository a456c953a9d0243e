"""Tests for MiniLMEmbeddings, the offline model as LangChain Embeddings."""

from __future__ import annotations

import math
from typing import Any

from rag_guard_integrations.langchain import MiniLMEmbeddings


def test_matches_the_package_embedder(embedder: Any) -> None:
    """Query and document vectors are the package embedder's normalised 384-d vectors."""
    embeddings = MiniLMEmbeddings()
    texts = ["termination notice period", "governing law of New York"]
    vectors = embeddings.embed_documents(texts)
    assert vectors == embedder.embed_documents(texts)
    assert embeddings.embed_query(texts[1]) == vectors[1]
    assert all(len(v) == 384 and math.isclose(math.hypot(*v), 1.0, rel_tol=1e-4) for v in vectors)


async def test_async_equals_sync_and_a_wrapped_embedder_is_used(embedder: Any) -> None:
    """The async methods agree with the sync ones, and an embedder passed in is the one called."""
    seen: list[list[str]] = []

    class Recording:
        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            seen.append(list(texts))
            return embedder.embed_documents(texts)  # type: ignore[no-any-return]

        def embed_query(self, text: str) -> list[float]:
            return self.embed_documents([text])[0]

    embeddings = MiniLMEmbeddings(Recording())
    assert await embeddings.aembed_query("notice") == embeddings.embed_query("notice")
    assert await embeddings.aembed_documents(["a", "b"]) == embeddings.embed_documents(["a", "b"])
    assert seen == [["notice"], ["notice"], ["a", "b"], ["a", "b"]]
