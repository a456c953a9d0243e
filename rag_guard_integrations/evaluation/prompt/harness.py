"""The ``rag-guard eval prompt`` harness: a registry of integration paths, the observation each
path fills per case, and the scoring of prompt, event and log leaks, recall and refusals."""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from rag_guard_integrations.core.errors import ArgumentError
from rag_guard_integrations.evaluation.prompt.corpus import (
    PromptCase,
    PromptCorpus,
    build_prompt_corpus,
)
from rag_guard_integrations.evaluation.prompt.recording import canaries_in

PathRunner = Callable[[PromptCorpus, Sequence[PromptCase], bool], list["Observation"]]
"""Runs every case end to end (async when the bool is True); one Observation per case, in order."""

PATH_MODULES = (
    "rag_guard_integrations.evaluation.prompt.langchain_paths",
    "rag_guard_integrations.evaluation.prompt.llama_index_paths",
    "rag_guard_integrations.evaluation.prompt.llama_index_chat_paths",
    "rag_guard_integrations.evaluation.prompt.haystack_paths",
)
FRAMEWORKS = ("langchain", "langchain_core", "langgraph", "llama_index", "haystack")
PATHS: dict[str, PathRunner] = {}
DEFAULT_CASES = 84
"""Cases per path and mode: the six LangChain paths alone then run 1,008 cases."""


@dataclass
class Observation:
    """What one case left behind on one path.

    ``prompt_texts``: every message text the recording model received; ``event_texts``: every
    callback, event stream or instrumentation payload the app can see (``repr`` or JSON);
    ``log_texts``: captured log and audit records; ``context_ids``: chunks that reached the
    prompt; ``refused``: the user (or model) received the policy's refusal;
    ``also_forbidden``: canaries this path must keep from the case besides the case's own
    forbidden ones (values a redact rule masks in chunks the case may see).
    """

    prompt_texts: list[str] = field(default_factory=list)
    event_texts: list[str] = field(default_factory=list)
    log_texts: list[str] = field(default_factory=list)
    answer: str = ""
    context_ids: list[str] = field(default_factory=list)
    refused: bool = False
    also_forbidden: frozenset[str] = frozenset()


def register_path(name: str) -> Callable[[PathRunner], PathRunner]:
    """Decorator: add a path runner to :data:`PATHS` under ``name``.

    Example:
        >>> @register_path("my_path")  # doctest: +SKIP
        ... def run(corpus, cases, use_async): ...
    """

    def add(runner: PathRunner) -> PathRunner:
        if name in PATHS and PATHS[name] is not runner:
            raise ArgumentError(f"eval prompt path {name!r} is registered twice; rename one")
        PATHS[name] = runner
        return runner

    return add


def load_paths() -> dict[str, PathRunner]:
    """Import every path module whose framework is installed; the registered paths."""
    for module in PATH_MODULES:
        _import_unless_framework_missing(module)
    return dict(PATHS)


def _import_unless_framework_missing(module: str) -> None:
    try:
        importlib.import_module(module)
    except ImportError as error:
        # A missing framework (or path module) skips it; a broken path module is an error.
        missing = error.name or ""
        if missing != module and missing.split(".")[0] not in FRAMEWORKS:
            raise


def score(case: PromptCase, seen: Observation) -> dict[str, bool]:
    """Per case: which channels carried a forbidden canary, recall and refusal."""
    context = set(seen.context_ids)
    forbidden = case.forbidden_canaries | seen.also_forbidden
    return {
        "prompt_leak": bool(canaries_in(seen.prompt_texts) & forbidden),
        "event_leak": bool(canaries_in(seen.event_texts) & forbidden),
        "log_leak": bool(canaries_in(seen.log_texts) & forbidden),
        "recalled": bool(context & case.authorised_ids),
        "refused": seen.refused,
    }


def summarise(cases: Sequence[PromptCase], scores: Sequence[dict[str, bool]]) -> dict[str, Any]:
    """Rates over all cases; recall over answerable cases, refusal rate over the others."""
    total = max(1, len(scores))
    answerable = [s for c, s in zip(cases, scores, strict=True) if not c.expect_refusal]
    refusing = [s for c, s in zip(cases, scores, strict=True) if c.expect_refusal]
    return {
        "cases": len(scores),
        "prompt_leak_rate": sum(s["prompt_leak"] for s in scores) / total,
        "event_leak_rate": sum(s["event_leak"] for s in scores) / total,
        "log_leak_rate": sum(s["log_leak"] for s in scores) / total,
        "authorised_recall": sum(s["recalled"] for s in answerable) / max(1, len(answerable)),
        "refusal_rate": sum(s["refused"] for s in refusing) / max(1, len(refusing)),
    }


def run_eval(
    cases: int = DEFAULT_CASES, paths: Sequence[str] | None = None, seed: int = 0
) -> dict[str, Any]:
    """Run ``cases`` cases through every selected path, sync and async (both counted).

    Returns ``{"cases": N_total, "paths": {PATH: {"cases", "prompt_leak_rate",
    "event_leak_rate", "log_leak_rate", "authorised_recall", "refusal_rate", "seconds"}}}``.
    """
    if cases < 1:
        raise ArgumentError(f"cases must be at least 1, got {cases}; pass e.g. cases=84")
    known = load_paths()
    chosen = list(known) if paths is None else list(paths)
    unknown = [p for p in chosen if p not in known]
    if unknown:
        raise ArgumentError(
            f"unknown eval prompt path(s) {', '.join(unknown)}; known: {', '.join(known)}"
        )
    corpus = build_prompt_corpus(seed, cases=cases)
    report: dict[str, Any] = {}
    for name in chosen:
        started = time.perf_counter()
        run_cases = [*corpus.cases, *corpus.cases]
        seen = known[name](corpus, corpus.cases, False) + known[name](corpus, corpus.cases, True)
        if len(seen) != len(run_cases):
            raise RuntimeError(
                f"path {name} returned {len(seen)} observations for {len(run_cases)} cases"
            )
        report[name] = summarise(
            run_cases, [score(c, o) for c, o in zip(run_cases, seen, strict=True)]
        )
        report[name]["seconds"] = round(time.perf_counter() - started, 2)
    return {"cases": sum(r["cases"] for r in report.values()), "paths": report}
