"""The access-source contract: its exports, scopes and their pushdown form, the scope cache,
which principals may reach an engine, and how a chunk names its resource."""

from __future__ import annotations

import pytest

from rag_guard_integrations import authz
from rag_guard_integrations.authz.source import ScopeCache, principal_problem, resource_of

pytestmark = pytest.mark.unit

EXPORTS = [
    "AccessRecord",
    "AccessSource",
    "AclAges",
    "Answers",
    "CasbinAccess",
    "CedarAccess",
    "OpenFGAAccess",
    "Scope",
    "SpiceDBAccess",
    "principal_problem",
]


def test_the_package_exports_the_contract_and_one_class_per_engine() -> None:
    """``__all__`` is pinned and every name resolves (engines on first use)."""
    assert authz.__all__ == EXPORTS
    assert all(getattr(authz, name) is not None for name in EXPORTS)
    with pytest.raises(AttributeError):
        _ = authz.OpaAccess


def test_scopes_push_ids_only_when_bounded_and_keyed() -> None:
    """Bounded on a key: that key's ids; empty: nothing can pass; unbounded or on the chunk
    id: no constraint at all."""
    assert authz.Scope.bounded({"d1"}, "doc_id", "x").constraints() == {
        "doc_id": authz.Scope.bounded({"d1"}, "doc_id", "x").constraints()["doc_id"]
    }
    assert authz.Scope.bounded((), "doc_id", "x").constraints() is None
    assert authz.Scope.bounded({"c1"}, None, "x").constraints() == {}
    assert authz.Scope.unbounded("x", "truncated", "doc_id").constraints() == {}


def test_the_scope_cache_never_answers_across_versions() -> None:
    """A scope is served only under its own token, and the cache stays within its size."""
    cache = ScopeCache(size=2)
    for user in ("ana", "ben", "cai"):
        cache.put("v1", user, authz.Scope.bounded({user}, None, "x"))
    assert cache.get("v1", "ana") is None  # the oldest made room
    assert cache.get("v1", "cai") is not None
    assert cache.get("v2", "cai") is None
    cache.put("v2", "ana", authz.Scope.bounded((), None, "x"))
    assert cache.get("v1", "cai") is None


@pytest.mark.parametrize(
    ("principal", "problem"),
    [
        ("alice", None),
        ("user:alice@example.com", None),
        ("Zoë", None),
        (None, "no principal"),
        (42, "not a str"),
        ("", "blank"),
        (" \t", "blank"),
        (" alice", "whitespace"),
        ("alice\n", "whitespace"),
        ("*", "wildcard"),
        ("al*", "wildcard"),
        ("a?", "wildcard"),
        ("100%", "wildcard"),
        ("ali\u200bce", "control or format"),
        ("ali\x00ce", "control or format"),
    ],
)
def test_only_a_plain_principal_may_reach_an_engine(principal: object, problem: str | None) -> None:
    """Missing, blank, padded, wildcard and invisible-character principals are refused."""
    found = principal_problem(principal)
    assert (found is None) if problem is None else (found is not None and problem in found)


@pytest.mark.parametrize(
    ("metadata", "chunk_id", "key", "resource"),
    [
        ({"doc_id": "d1"}, None, "doc_id", "d1"),
        ({"doc_id": 7}, None, "doc_id", "7"),
        ({}, "c1", None, "c1"),
        ({"doc_id": "d1"}, "c1", None, "c1"),
        ({}, None, "doc_id", None),
        ({"doc_id": ""}, None, "doc_id", None),
        ({"doc_id": "d1 "}, None, "doc_id", None),
        ({"doc_id": ["d1"]}, None, "doc_id", None),
        ({"doc_id": False}, None, "doc_id", None),
        ({}, None, None, None),
    ],
)
def test_a_chunk_names_one_resource_or_none(
    metadata: dict[str, object], chunk_id: str | None, key: str | None, resource: str | None
) -> None:
    """A scalar id under the key (or the chunk id) names the resource; anything else, none."""
    found, why = resource_of(metadata, chunk_id, key)
    assert found == resource
    assert bool(why) == (resource is None)
