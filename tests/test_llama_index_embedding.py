"""Tests for MiniLMEmbedding: the package's offline MiniLM as a LlamaIndex embed model."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from rag_guard_integrations.llama_index import MiniLMEmbedding

if TYPE_CHECKING:
    from rag_guard_integrations.embeddings import MiniLMEmbedder

TEXTS = ["Either party may terminate on thirty days' written notice.", "Governed by New York law."]


@pytest.fixture(scope="session")
def model(embedder: MiniLMEmbedder) -> MiniLMEmbedding:
    return MiniLMEmbedding(embedder)


def test_query_and_text_vectors_match_the_core_embedder(
    model: MiniLMEmbedding, embedder: MiniLMEmbedder
) -> None:
    """Query and document vectors are the core embedder's normalised 384-d vectors."""
    query = model.get_query_embedding("termination notice period")
    assert len(query) == 384
    assert query == pytest.approx(embedder.embed_query("termination notice period"), abs=1e-6)
    assert sum(x * x for x in query) == pytest.approx(1.0, abs=1e-4)
    batch = model.get_text_embedding_batch(TEXTS)
    assert batch[1] == pytest.approx(model.get_text_embedding(TEXTS[1]), abs=1e-6)


async def test_async_equals_sync(model: MiniLMEmbedding) -> None:
    """The async embedding paths return the sync vectors."""
    assert await model.aget_query_embedding("notice") == pytest.approx(
        model.get_query_embedding("notice"), abs=1e-6
    )
    assert (await model.aget_text_embedding_batch(TEXTS))[0] == pytest.approx(
        model.get_text_embedding(TEXTS[0]), abs=1e-6
    )


def test_class_name_and_default_embedder(model: MiniLMEmbedding) -> None:
    """The serialization id is fixed and the default is the shared process-wide model."""
    assert MiniLMEmbedding.class_name() == "MiniLMEmbedding"
    assert model.to_dict()["model_name"] == "all-MiniLM-L6-v2"
    assert MiniLMEmbedding().get_query_embedding("x") == pytest.approx(
        model.get_query_embedding("x"), abs=1e-6
    )
