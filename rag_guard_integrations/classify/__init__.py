"""Classifiers for untagged chunks: pattern recognisers, an embedding zero-shot classifier, an
LLM classifier and a named-entity model's entities, behind one small interface
(:class:`Classifier`)."""

from rag_guard_integrations.classify.base import Classification, Classifier, Finding
from rag_guard_integrations.classify.embedding import EmbeddingClassifier
from rag_guard_integrations.classify.llm import LLMClassifier
from rag_guard_integrations.classify.ner import NERClassifier
from rag_guard_integrations.classify.pattern import PatternClassifier

__all__ = [
    "Classification",
    "Classifier",
    "EmbeddingClassifier",
    "Finding",
    "LLMClassifier",
    "NERClassifier",
    "PatternClassifier",
]
