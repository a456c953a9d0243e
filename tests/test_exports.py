"""Each subpackage exports exactly the names below: a change to the public API shows up here."""

from __future__ import annotations

import importlib

import pytest

pytestmark = pytest.mark.unit

EXPORTS = {
    "rag_guard_integrations": [
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
    ],
    "rag_guard_integrations.core": [],
    "rag_guard_integrations.policy": ["Policy", "builtin_names", "load_policy", "parse_policy"],
    "rag_guard_integrations.classify": [
        "Classification",
        "Classifier",
        "EmbeddingClassifier",
        "Finding",
        "LLMClassifier",
        "NERClassifier",
        "PatternClassifier",
    ],
    "rag_guard_integrations.classify.recognizers": [
        "BUILTIN_RECOGNIZERS",
        "DEFAULT_RECOGNIZERS",
        "NAME_RECOGNIZERS",
        "VALIDATORS",
        "AnyRecognizer",
        "NameRecognizer",
        "Recognizer",
        "Validator",
    ],
    "rag_guard_integrations.guards": [],
    "rag_guard_integrations.engine": ["Guard", "RequestPlan", "fetch_size"],
    "rag_guard_integrations.data": ["DATA_DIR", "corpus_names", "load_corpus", "load_queries"],
    "rag_guard_integrations.evaluation": [],
    "rag_guard_integrations.cli": ["main"],
    "rag_guard_integrations.scale": [
        "KEPT",
        "RETRIED",
        "TAGGED",
        "ClassifierSpec",
        "RayEngineError",
        "RayUnavailableError",
        "ray_session",
        "tag_dataset",
    ],
    "rag_guard_integrations.langchain": [
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
    ],
    "rag_guard_integrations.llama_index": [
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
    ],
    "rag_guard_integrations.adapters": [
        "AccessScope",
        "current_access",
        "guard_access",
        "guard_results",
    ],
    "rag_guard_integrations.haystack": [
        "NO_ACCESS",
        "AccessScope",
        "GuardedDocuments",
        "GuardedRetriever",
        "guard_access",
        "guard_results",
    ],
    "rag_guard_integrations.evaluation.prompt": [
        "Observation",
        "PathRunner",
        "PromptCase",
        "PromptCorpus",
        "build_prompt_corpus",
        "register_path",
        "run_eval",
    ],
}


@pytest.mark.parametrize("name", sorted(EXPORTS))
def test_all_is_exactly_the_pinned_names(name: str) -> None:
    """``__all__`` lists exactly the pinned names, and each of them resolves."""
    module = importlib.import_module(name)
    assert sorted(module.__all__) == sorted(EXPORTS[name])
    for export in module.__all__:
        assert getattr(module, export) is not None


def test_every_error_derives_from_the_base() -> None:
    """Each exception class in the error module is a RagGuardError."""
    from rag_guard_integrations.core import errors

    classes = [v for v in vars(errors).values() if isinstance(v, type) and issubclass(v, Exception)]
    assert len(classes) >= 10
    assert all(issubclass(c, errors.RagGuardError) for c in classes)
