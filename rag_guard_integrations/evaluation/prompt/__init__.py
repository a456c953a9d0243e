"""``rag-guard eval prompt``: canary tokens through every integration path, end to end."""

from rag_guard_integrations.evaluation.prompt.corpus import (
    PromptCase,
    PromptCorpus,
    build_prompt_corpus,
)
from rag_guard_integrations.evaluation.prompt.harness import (
    Observation,
    PathRunner,
    register_path,
    run_eval,
)

__all__ = [
    "Observation",
    "PathRunner",
    "PromptCase",
    "PromptCorpus",
    "build_prompt_corpus",
    "register_path",
    "run_eval",
]
