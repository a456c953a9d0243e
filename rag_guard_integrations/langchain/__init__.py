"""LangChain adapters: a guarded retriever, a guard document compressor, a guarded retriever
tool, agent middleware and its checkpointer, the smallest guarded RAG chain and the refusal
step for your own, the text-free decision a chain passes on, and offline embeddings.

The only part of the package that imports LangChain; ``GuardMiddleware`` and
``GuardedCheckpointer`` need the ``agents`` extra (``langchain``) and are imported on first
use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rag_guard_integrations.core.extras import needs_extra

with needs_extra(
    "langchain", "rag_guard_integrations.langchain"
):  # a missing framework names its extra
    import langchain_core  # noqa: F401

from rag_guard_integrations.adapters.access import AccessScope, guard_access
from rag_guard_integrations.langchain.chain import answer_or_refuse, build_rag_chain
from rag_guard_integrations.langchain.compressor import GuardCompressor
from rag_guard_integrations.langchain.embeddings import MiniLMEmbeddings
from rag_guard_integrations.langchain.result import CheckedResult, guard_results
from rag_guard_integrations.langchain.retriever import GuardedRetriever
from rag_guard_integrations.langchain.tool import CheckedDocuments, create_guarded_retriever_tool

if TYPE_CHECKING:
    from rag_guard_integrations.langchain.checkpointer import GuardedCheckpointer
    from rag_guard_integrations.langchain.middleware import GuardMiddleware

__all__ = [
    "AccessScope",
    "CheckedDocuments",
    "CheckedResult",
    "GuardCompressor",
    "GuardMiddleware",
    "GuardedCheckpointer",
    "GuardedRetriever",
    "MiniLMEmbeddings",
    "answer_or_refuse",
    "build_rag_chain",
    "create_guarded_retriever_tool",
    "guard_access",
    "guard_results",
]


def __getattr__(name: str) -> Any:
    # The agent components need LangChain's agents and LangGraph (the agents extra).
    if name == "GuardMiddleware":
        with needs_extra("agents", "GuardMiddleware"):
            from rag_guard_integrations.langchain.middleware import (  # noqa: PLC0415
                GuardMiddleware,
            )

        return GuardMiddleware
    if name == "GuardedCheckpointer":
        with needs_extra("agents", "GuardedCheckpointer"):
            from rag_guard_integrations.langchain.checkpointer import (  # noqa: PLC0415
                GuardedCheckpointer,
            )

        return GuardedCheckpointer
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
