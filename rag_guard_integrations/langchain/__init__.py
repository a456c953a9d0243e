"""LangChain adapters: a guarded retriever, a guard document compressor and offline embeddings.

The only part of the package that imports ``langchain_core``.
"""

from rag_guard_integrations.langchain.compressor import GuardCompressor
from rag_guard_integrations.langchain.embeddings import MiniLMEmbeddings
from rag_guard_integrations.langchain.retriever import GuardedRetriever

__all__ = ["GuardCompressor", "GuardedRetriever", "MiniLMEmbeddings"]
