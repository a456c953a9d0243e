"""Shared fixtures: the MiniLM embedder is loaded once per test session."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

# The hardening properties (tests/test_hardening_properties.py) run 300 examples each.
settings.register_profile(
    "hardening",
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("NO_PROXY", "127.0.0.1,localhost")


@pytest.fixture(scope="session")
def embedder():  # type: ignore[no-untyped-def]
    """The real all-MiniLM-L6-v2 embedder shipped on PyPI."""
    from rag_guard_integrations.embeddings import default_embedder

    return default_embedder()
