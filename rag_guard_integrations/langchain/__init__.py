"""LangChain adapters: a guarded retriever, a guard document compressor, a guarded retriever
tool and agent middleware, the smallest guarded RAG chain, and offline embeddings.

The only part of the package that imports LangChain; ``GuardMiddleware`` needs the ``agents``
extra (``langchain``) and is imported on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rag_guard_integrations.langchain.chain import build_rag_chain
from rag_guard_integrations.langchain.compressor import GuardCompressor
from rag_guard_integrations.langchain.embeddings import MiniLMEmbeddings
from rag_guard_integrations.langchain.retriever import GuardedRetriever
from rag_guard_integrations.langchain.tool import CheckedDocuments, create_guarded_retriever_tool

if TYPE_CHECKING:
    from rag_guard_integrations.langchain.middleware import GuardMiddleware

__all__ = [
    "CheckedDocuments",
    "GuardCompressor",
    "GuardMiddleware",
    "GuardedRetriever",
    "MiniLMEmbeddings",
    "build_rag_chain",
    "create_guarded_retriever_tool",
]


def __getattr__(name: str) -> Any:
    if name == "GuardMiddleware":
        from rag_guard_integrations.langchain.middleware import GuardMiddleware  # noqa: PLC0415

        return GuardMiddleware
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
