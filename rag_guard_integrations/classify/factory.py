"""Classifiers by name: what ``rag-guard tag --classifier`` and the Ray engine build."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rag_guard_integrations.core.errors import ArgumentError
from rag_guard_integrations.core.extras import needs_extra

KINDS = ("pattern", "embedding", "llm")
"""The classifier kinds :func:`build_classifier` builds."""

if TYPE_CHECKING:
    from rag_guard_integrations.classify.base import Classifier
    from rag_guard_integrations.policy.schema import Policy


def build_classifier(kind: str, model: str | None, policy: Policy | None) -> Classifier:
    """The classifier ``--classifier`` names, bound to the policy's vocabulary when one is given.

    Without a policy the pattern classifier uses every built-in with its default label; the
    embedding and LLM classifiers need label descriptions and take the built-in ``default``.
    """
    if model is not None and kind != "llm":
        raise ArgumentError(f"model={model!r} applies to kind='llm' only; drop it")
    if kind == "pattern":
        from rag_guard_integrations.classify.pattern import PatternClassifier  # noqa: PLC0415

        if policy is None:
            return PatternClassifier()
        if not (policy.classifiers.patterns or policy.classifiers.builtin):
            raise ArgumentError(
                f"policy {', '.join(policy.sources)} declares no recognisers "
                "(classifiers.patterns or classifiers.builtin); add some or pass no policy"
            )
        return PatternClassifier.from_policy(policy).bind(policy.vocabulary)
    if policy is None:
        from rag_guard_integrations.policy.loader import load_policy  # noqa: PLC0415

        policy = load_policy("default")
    vocabulary = policy.vocabulary
    if kind == "embedding":
        from rag_guard_integrations.classify.embedding import EmbeddingClassifier  # noqa: PLC0415

        return EmbeddingClassifier().bind(vocabulary)
    if model is None:
        raise ArgumentError("kind='llm' needs model= (an Ollama chat model name, e.g. 'llama3.2')")
    with needs_extra("ollama", "the LLM classifier"):
        from langchain_ollama import ChatOllama  # noqa: PLC0415 - optional extra, on demand

    from rag_guard_integrations.classify.llm import LLMClassifier  # noqa: PLC0415

    return LLMClassifier(llm=ChatOllama(model=model, temperature=0)).bind(vocabulary)
