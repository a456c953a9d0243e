"""Shared fixtures and markers: the MiniLM embedder is loaded once per test session; every test
is marked ``unit`` or ``integration``; evaluation data beside the repository is found by one
fixture that skips (or, under CI, fails) when it is absent."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from hypothesis import HealthCheck, settings

# The hardening properties (tests/test_hardening_properties.py) run 300 examples each.
settings.register_profile(
    "hardening",
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

if TYPE_CHECKING:
    from collections.abc import Callable

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("NO_PROXY", "127.0.0.1,localhost")
# A configured audit key, as a deployment has one: without it every guard notices the random
# key of the process (tests/test_audit_key.py covers that path).
os.environ.setdefault("RAG_GUARD_AUDIT_KEY", "rag-guard-integrations test suite audit key")

REPO = Path(__file__).resolve().parents[1]
# Test files whose module fixtures load the MiniLM model, start Ray or Jupyter kernels, build a
# wheel or read ../shared/data; every other test is a unit test unless it asks for `embedder`.
INTEGRATION_FILES = frozenset(
    {
        "test_calibrate.py",
        "test_calibrate_clauses.py",
        "test_clause_model.py",
        "test_clause_semantic.py",
        "test_cli.py",
        "test_domain_guard.py",
        "test_embedding_classifier.py",
        "test_eval_clauses.py",
        "test_eval_domain.py",
        "test_evasion.py",
        "test_langchain_compressor.py",
        "test_langchain_embeddings.py",
        "test_langchain_pushdown.py",
        "test_langchain_retriever.py",
        "test_llama_index_embedding.py",
        "test_llama_index_postprocessor.py",
        "test_llama_index_query_engine.py",
        "test_llama_index_retriever.py",
        "test_notebooks.py",
        "test_pii_quality.py",
        "test_scale.py",
    }
)
INTEGRATION_TESTS = frozenset({"test_wheel_ships_every_builtin_policy"})
# Doctests of modules whose examples load the MiniLM model.
INTEGRATION_DOCTESTS = (
    "rag_guard_integrations.embeddings",
    "rag_guard_integrations.classify.embedding",
    "rag_guard_integrations.vector_index",
    "rag_guard_integrations.guards.clause_model",
    "rag_guard_integrations.guards.clause_semantic",
    "rag_guard_integrations.evaluation.clauses",
)


def _is_integration(item: pytest.Item) -> bool:
    if isinstance(item, pytest.DoctestItem):
        return item.name.startswith(INTEGRATION_DOCTESTS)
    name = getattr(item, "originalname", item.name)
    return (
        item.path.name in INTEGRATION_FILES
        or name in INTEGRATION_TESTS
        or "embedder" in getattr(item, "fixturenames", ())
    )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark each test ``integration`` or ``unit`` (``pytest -m unit`` is the fast loop)."""
    for item in items:
        if not any(item.iter_markers("unit")) and not any(item.iter_markers("integration")):
            item.add_marker(pytest.mark.integration if _is_integration(item) else pytest.mark.unit)


@pytest.fixture(scope="session")
def shared_data() -> Callable[[str], Path]:
    """A function giving the path of a third-party evaluation file in ``../shared/data`` (or
    ``$RAG_GUARD_SHARED_DATA``); it skips the test when the file is absent, and fails it when
    ``CI`` is set, where the data must be present."""

    def find(name: str) -> Path:
        folder = Path(os.environ.get("RAG_GUARD_SHARED_DATA") or REPO.parent / "shared" / "data")
        path = folder / name
        if not path.is_file():
            if os.environ.get("CI"):
                pytest.fail(f"{path} is absent; CI must provide the evaluation data", pytrace=False)
            pytest.skip(f"{path} is absent; set RAG_GUARD_SHARED_DATA to run this test")
        return path

    return find


@pytest.fixture(scope="session")
def embedder():  # type: ignore[no-untyped-def]
    """The real all-MiniLM-L6-v2 embedder shipped on PyPI."""
    from rag_guard_integrations.embeddings import default_embedder

    return default_embedder()
