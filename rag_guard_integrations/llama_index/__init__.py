"""LlamaIndex adapters that let only what the Guard allows reach the LLM: a retriever, query and
chat engines, a node postprocessor, an ingestion tagger and per-request access; the only place
in the package that imports ``llama_index``."""

from rag_guard_integrations.core.extras import needs_extra

with needs_extra(
    "llamaindex", "rag_guard_integrations.llama_index"
):  # a missing framework names its extra
    import llama_index.core  # noqa: F401

from rag_guard_integrations.core.access import NO_ACCESS
from rag_guard_integrations.llama_index.access import AccessScope, guard_access
from rag_guard_integrations.llama_index.chat import GuardedChatEngine, guarded_chat_engine
from rag_guard_integrations.llama_index.check import GuardedNodes
from rag_guard_integrations.llama_index.embedding import MiniLMEmbedding
from rag_guard_integrations.llama_index.events import GuardDecisionEvent
from rag_guard_integrations.llama_index.postprocessor import GuardPostprocessor
from rag_guard_integrations.llama_index.query_engine import (
    GuardedQueryEngine,
    aquery_with_access,
    guarded_query_engine,
    query_with_access,
)
from rag_guard_integrations.llama_index.retriever import GuardedRetriever
from rag_guard_integrations.llama_index.tagger import GuardTagger

__all__ = [
    "NO_ACCESS",
    "AccessScope",
    "GuardDecisionEvent",
    "GuardPostprocessor",
    "GuardTagger",
    "GuardedChatEngine",
    "GuardedNodes",
    "GuardedQueryEngine",
    "GuardedRetriever",
    "MiniLMEmbedding",
    "aquery_with_access",
    "guard_access",
    "guarded_chat_engine",
    "guarded_query_engine",
    "query_with_access",
]
