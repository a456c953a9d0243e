"""Guardrails between a retriever and an LLM: every retrieved chunk is checked before it can
become prompt context. Framework adapters live in ``rag_guard_integrations.langchain`` and
``rag_guard_integrations.llama_index``; this package imports neither."""

from rag_guard_integrations.core.access import AccessContext
from rag_guard_integrations.core.chunk import Chunk
from rag_guard_integrations.core.decisions import (
    ChunkDecision,
    GuardResult,
    QueryDecision,
    Violation,
)
from rag_guard_integrations.core.errors import (
    ChunkError,
    ContextBlocked,
    InputError,
    PolicyError,
    PolicyNotFoundError,
    QueryRejected,
    RagGuardError,
    RetrievalError,
)
from rag_guard_integrations.engine.guard import Guard
from rag_guard_integrations.policy.loader import load_policy, parse_policy
from rag_guard_integrations.policy.schema import Policy

__all__ = [
    "AccessContext",
    "Chunk",
    "ChunkDecision",
    "ChunkError",
    "ContextBlocked",
    "Guard",
    "GuardResult",
    "InputError",
    "Policy",
    "PolicyError",
    "PolicyNotFoundError",
    "QueryDecision",
    "QueryRejected",
    "RagGuardError",
    "RetrievalError",
    "Violation",
    "load_policy",
    "parse_policy",
]
__version__ = "0.1.0"
