"""OpenFGA through the real ``openfga-sdk`` client, against the OpenFGA-API stand-in server of
tests/openfga_server.py (no OpenFGA server can be installed here): answers equal the ground
truth, a revoked tuple is denied live, a capped ListObjects bounds nothing, a failing server
denies everything without quoting it."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from openfga_server import MODEL, STORE, Tuples, serve

from rag_guard_integrations import AccessContext, Guard, parse_policy
from rag_guard_integrations.authz.sample import SampleOrg

if TYPE_CHECKING:
    from collections.abc import Iterator

pytestmark = pytest.mark.unit

ORG = SampleOrg.build()
NOTHING = parse_policy("version: 1\nname: nothing\n")
NO_RETRY = {"retryParams": {"maxRetry": 0, "minWaitInMs": 1}}


@pytest.fixture
def tuples() -> Tuples:
    """The organisation as OpenFGA tuples (the same object#relation@user form SpiceDB uses)."""
    rows = Tuples()
    for text in ORG.spicedb_relationships():
        rows.add(text)
    return rows


@pytest.fixture
def client(tuples: Tuples) -> Iterator[object]:
    """A real OpenFgaClient talking to the stand-in server over 127.0.0.1."""
    from openfga_sdk.client import ClientConfiguration
    from openfga_sdk.sync import OpenFgaClient

    server, url = serve(tuples)
    config = ClientConfiguration(api_url=url, store_id=STORE, authorization_model_id=MODEL)
    with OpenFgaClient(config) as opened:
        yield opened
    server.shutdown()


def source(client: object, **options: object) -> object:
    """The access source over ``client``."""
    from rag_guard_integrations.authz.openfga import OpenFGAAccess

    return OpenFGAAccess(client, resource_key="doc_id", options=NO_RETRY, **options)


def test_check_and_scope_equal_the_ground_truth_for_every_user(client: object) -> None:
    """BatchCheck grants and ListObjects lists exactly what each user may view."""
    access = source(client)
    documents = list(ORG.documents)
    for user in ORG.users:
        truth = {d for d in documents if ORG.can_view(user, d)}
        assert access.check(user, documents).granted == truth, user
        assert access.scope(user).ids == truth, user
    assert access.check("ana", ["backend-0"]).token == f"model:{MODEL}"


def test_a_deleted_tuple_is_denied_at_the_next_check(client: object, tuples: Tuples) -> None:
    """Ana leaves backend after indexing: the next check denies the backend chunk."""
    guard = Guard(NOTHING, access_source=source(client))
    chunk = next(c for c in ORG.chunks() if c.metadata["doc_id"] == "backend-0")
    assert guard.check("q", [chunk], access=AccessContext("ana")).allowed_indices == (0,)
    tuples.rows.discard(("team:backend", "member", "user:ana"))
    after = guard.check("q", [chunk], access=AccessContext("ana"))
    assert after.allowed_indices == ()
    assert after.decisions[0].stage == "authz"


def test_a_capped_list_objects_pushes_nothing(client: object, tuples: Tuples) -> None:
    """ListObjects stopping at its limit (silently, as OpenFGA does) gives an unbounded scope,
    no doc_id constraint, and the check still allows exactly ana's chunks."""
    tuples.max_results = 5
    access = source(client, max_scope=5)
    assert not access.scope("ana").is_bounded
    guard = Guard(NOTHING, access_source=access)
    assert guard.prefilter("q", AccessContext("ana")) == {}
    chunks = ORG.chunks()
    result = guard.check("q", chunks, access=AccessContext("ana"))
    allowed = {chunks[i].metadata["doc_id"] for i in result.allowed_indices}
    assert allowed == {d for d in ORG.documents if ORG.can_view("ana", d)}


def test_a_failing_server_denies_everything_and_bounds_nothing(
    client: object, tuples: Tuples
) -> None:
    """HTTP 500: every chunk denied naming the error type only; the scope is unbounded."""
    tuples.failing = 500
    guard = Guard(NOTHING, access_source=source(client))
    result = guard.check("q", ORG.chunks()[:4], access=AccessContext("ana"))
    assert result.allowed_indices == ()
    assert "openfga check failed (ServiceException" in result.decisions[0].reason
    assert "down" not in str(result.audit())
    assert guard.prefilter("q", AccessContext("ana")) == {}


@pytest.mark.parametrize("principal", ["ana#member", "user:ana", "*", "a b"])
def test_a_principal_that_would_name_a_userset_or_wildcard_sees_nothing(
    client: object, principal: str
) -> None:
    """Principals OpenFGA would read as a userset, a typed id or a wildcard are refused."""
    access = source(client)
    assert access.check(principal, ["backend-0"]).granted == frozenset()
    assert access.scope(principal).ids == frozenset()
