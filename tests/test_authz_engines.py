"""Each real engine (Cedar, Casbin, an embedded SpiceDB) over one sample organisation: its
answers equal the ground truth, a revoked permission is denied live whatever the index copy
says, a truncated scope pushes nothing down, and no (query, principal) case leaks."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from authz_support import ENGINES, engine

from rag_guard_integrations import AccessContext, Guard, parse_policy
from rag_guard_integrations.authz.evaluation import access_leakage
from rag_guard_integrations.authz.sample import SampleOrg

if TYPE_CHECKING:
    from pathlib import Path

pytestmark = pytest.mark.unit

ORG = SampleOrg.build()
NOTHING = parse_policy("version: 1\nname: nothing\n")
# The index's copy of each chunk's ACL, checked against the groups the app resolved at login.
COPIED = parse_policy(
    "version: 1\nname: copied\naccess: {attributes: [viewers], match: {viewers: any}}\n"
)
QUERY = "What does the plan say?"


def chunk_of(document: str) -> object:
    """The first chunk of ``document`` in the sample index."""
    return next(c for c in ORG.chunks() if c.metadata["doc_id"] == document)


@pytest.mark.parametrize("name", ENGINES)
def test_check_and_scope_equal_the_ground_truth_for_every_user(name: str, tmp_path: Path) -> None:
    """For every user, the bulk check grants and the scope lists exactly what they may view."""
    documents = list(ORG.documents)
    with engine(name, ORG, tmp_path) as built:
        for user in ORG.users:
            truth = {d for d in documents if ORG.can_view(user, d)}
            assert built.source.check(user, documents).granted == truth, user
            scope = built.source.scope(user)
            assert scope.ids == truth, user
            assert scope.key == "doc_id"


@pytest.mark.parametrize("name", ENGINES)
def test_a_revoked_membership_is_denied_live_although_the_copied_acl_grants_it(
    name: str, tmp_path: Path
) -> None:
    """Ana leaves backend after indexing: the copied ACL and her login groups still grant the
    backend chunk, the live check denies it, her scope drops it (no cached scope outlives the
    change), and the recorded version changes."""
    stale = AccessContext("ana", viewers={"ana", "backend", "engineering", "staff"})
    chunk = chunk_of("backend-0")
    with engine(name, ORG, tmp_path) as built:
        copied_only = Guard(COPIED)
        live = Guard(COPIED, access_source=built.source)
        before = live.check(QUERY, [chunk], access=stale)
        assert before.allowed_indices == (0,)
        assert "backend-0" in (built.source.scope("ana").ids or ())
        built.revoke("ana")
        assert "backend-0" not in (built.source.scope("ana").ids or ())
        after = live.check(QUERY, [chunk], access=stale)
        assert copied_only.check(QUERY, [chunk], access=stale).allowed_indices == (0,)
        assert after.allowed_indices == ()
        assert after.decisions[0].stage == "authz"
        assert "not granted" in after.decisions[0].reason or "no permission" in (
            after.decisions[0].reason
        )
        assert before.access_source is not None
        assert after.access_source is not None
        assert after.access_source.token is not None
        assert after.access_source.token != before.access_source.token
        assert after.audit()["access_source"]["source"] == name


@pytest.mark.parametrize("name", ENGINES)
def test_the_bounded_scope_joins_the_prefilter(name: str, tmp_path: Path) -> None:
    """The caller's scope is pushed down as the doc_id values they may view, and nothing else."""
    with engine(name, ORG, tmp_path) as built:
        guard = Guard(NOTHING, access_source=built.source)
        constraints = guard.prefilter(QUERY, AccessContext("eli"))
        assert constraints is not None
        assert set(constraints) == {"doc_id"}
        assert constraints["doc_id"].values == {d for d in ORG.documents if ORG.can_view("eli", d)}


@pytest.mark.parametrize("name", ENGINES)
def test_a_truncated_scope_pushes_nothing_and_the_bulk_check_still_decides(
    name: str, tmp_path: Path
) -> None:
    """With a scope limit below what ana may see, the scope is unbounded, prefilter pushes no
    doc_id constraint, and the check still allows exactly her chunks."""
    chunks = ORG.chunks()
    with engine(name, ORG, tmp_path, max_scope=5) as built:
        scope = built.source.scope("ana")
        assert not scope.is_bounded
        assert scope.constraints() == {}
        guard = Guard(NOTHING, access_source=built.source)
        assert guard.prefilter(QUERY, AccessContext("ana")) == {}
        result = guard.check(QUERY, chunks, access=AccessContext("ana"))
        allowed = {chunks[i].metadata["doc_id"] for i in result.allowed_indices}
        assert allowed == {d for d in ORG.documents if ORG.can_view("ana", d)}


@pytest.mark.parametrize("name", ENGINES)
def test_a_thousand_cases_leak_nothing_and_keep_every_authorised_chunk(
    name: str, tmp_path: Path
) -> None:
    """1,000 (query, principal) cases over 10 candidates each, teams nested two levels: leak
    0.000 and authorised recall 1.000 (the same guard without the source leaks)."""
    with engine(name, ORG, tmp_path) as built:
        measured = access_leakage(Guard(NOTHING, access_source=built.source), ORG, cases=1000)
    assert measured.unauthorised > 1000
    assert measured.authorised > 1000
    assert measured.leak_rate == 0.0
    assert measured.authorised_recall == 1.0
    assert access_leakage(Guard(NOTHING), ORG, cases=50).leak_rate > 0.5


@pytest.mark.parametrize("name", ENGINES)
@pytest.mark.parametrize("principal", [None, "", "   ", " ana", "*", "ana*", "an\u200ba", "%"])
def test_a_missing_blank_or_wildcard_principal_sees_nothing(
    name: str, principal: str | None, tmp_path: Path
) -> None:
    """No principal, a blank one, or one an engine could read as a wildcard: every chunk
    denied and the pushdown says nothing can pass."""
    chunks = ORG.chunks()[:12]
    with engine(name, ORG, tmp_path) as built:
        guard = Guard(NOTHING, access_source=built.source)
        access = AccessContext(principal)
        assert guard.check(QUERY, chunks, access=access).allowed_indices == ()
        assert guard.check(QUERY, chunks, access=None).allowed_indices == ()
        assert guard.prefilter(QUERY, access) is None
