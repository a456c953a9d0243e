"""What each engine does at its edges: Cedar's skipped erroring policies, Casbin's ABAC
attributes and failing matchers, SpiceDB's id grammar, caveats and deadlines; bad set-up is
a one-line error."""

from __future__ import annotations

import pickle
from typing import TYPE_CHECKING

import pytest
from authz_support import spicedb_library

from rag_guard_integrations import AccessContext, Chunk, Guard, parse_policy
from rag_guard_integrations.core.errors import ArgumentError

if TYPE_CHECKING:
    from pathlib import Path

pytestmark = pytest.mark.unit

NOTHING = parse_policy("version: 1\nname: nothing\n")
DOCS = [
    {"uid": {"type": "User", "id": "ana"}, "attrs": {}, "parents": []},
    {"uid": {"type": "Document", "id": "d1"}, "attrs": {"secret": False}, "parents": []},
    {"uid": {"type": "Document", "id": "d2"}, "attrs": {}, "parents": []},
]


def test_cedar_denies_when_a_forbid_policy_fails_to_evaluate() -> None:
    """Cedar skips a policy that errors, so its forbid on d2 (no ``secret`` attribute) would
    not apply and d2 would be allowed; the source denies it (fail closed)."""
    import cedarpy

    from rag_guard_integrations.authz.cedar import CedarAccess

    policies = (
        "permit(principal, action, resource);\n"
        "forbid(principal, action, resource) when { resource.secret };\n"
    )
    request = {
        "principal": {"type": "User", "id": "ana"},
        "action": {"type": "Action", "id": "view"},
        "resource": {"type": "Document", "id": "d2"},
        "context": {},
    }
    assert cedarpy.is_authorized(request, policies, DOCS).decision == cedarpy.Decision.Allow
    answers = CedarAccess(policies, DOCS).check("ana", ["d1", "d2"])
    assert answers.granted == {"d1"}
    assert "failed to evaluate" in answers.reasons["d2"]


def test_cedar_update_swaps_policies_and_the_token_and_pickles() -> None:
    """A policy update is seen by the next check under a new token; a pickled copy keeps it."""
    from rag_guard_integrations.authz.cedar import CedarAccess

    cedar = CedarAccess("permit(principal, action, resource);", DOCS)
    before = cedar.token
    cedar.update(policies='forbid(principal, action, resource == Document::"d1");')
    assert cedar.check("ana", ["d1", "d2"]).granted == frozenset()
    assert cedar.token != before
    copy = pickle.loads(pickle.dumps(cedar))
    assert copy.token == cedar.token


@pytest.mark.parametrize(
    ("policies", "action"),
    [("permit(principal, action resource);", 'Action::"view"'), ("", "view")],
)
def test_cedar_set_up_errors_are_one_line(policies: str, action: str) -> None:
    """Unparseable policies or an action not written ``Action::"view"``: one line naming it."""
    from rag_guard_integrations.authz.cedar import CedarAccess

    with pytest.raises(ArgumentError) as raised:
        CedarAccess(policies, DOCS, action=action)
    assert "\n" not in str(raised.value)
    assert str(raised.value).startswith("CedarAccess:")


ABAC_MODEL = """\
[request_definition]
r = sub, obj, act
[policy_definition]
p = sub_rule, act
[policy_effect]
e = some(where (p.eft == allow))
[matchers]
m = eval(p.sub_rule) && r.act == p.act
"""


def test_casbin_abac_reads_attributes_you_give_never_the_chunks(tmp_path: Path) -> None:
    """The owner rule reads the trusted attributes: a chunk whose metadata claims ana owns it
    is still denied; a resource with no attributes, or whose matcher fails, is denied alone."""
    from rag_guard_integrations.authz.casbin import CasbinAccess

    (tmp_path / "abac.conf").write_text(ABAC_MODEL)
    (tmp_path / "abac.csv").write_text("p, r.obj.owner == r.sub, read\n")
    attributes = {"d1": {"owner": "ana"}, "d2": {"owner": "ben"}, "d3": {}}
    source = CasbinAccess.from_files(
        tmp_path / "abac.conf", tmp_path / "abac.csv", attributes=attributes, resource_key="doc_id"
    )
    answers = source.check("ana", ["d1", "d2", "d3", "d4"])
    assert answers.granted == {"d1"}
    assert "matcher failed" in answers.reasons["d3"]
    assert "no attributes" in answers.reasons["d4"]
    claims = [Chunk("x", {"doc_id": "d2", "owner": "ana"}), Chunk("y", {"doc_id": "d1"})]
    result = Guard(NOTHING, access_source=source).check("q", claims, access=AccessContext("ana"))
    assert result.allowed_indices == (1,)
    assert source.scope("ana").ids == {"d1"}


def test_casbin_without_a_resource_list_has_an_unbounded_scope(tmp_path: Path) -> None:
    """Casbin cannot list what a principal may see: no resources given, no pushdown."""
    from rag_guard_integrations.authz.casbin import CasbinAccess

    (tmp_path / "abac.conf").write_text(ABAC_MODEL)
    (tmp_path / "abac.csv").write_text("p, r.obj == 'd1', read\n")
    source = CasbinAccess.from_files(tmp_path / "abac.conf", tmp_path / "abac.csv")
    assert not source.scope("ana").is_bounded
    assert source.check("ana", ["d1", "d2"]).granted == {"d1"}


def test_casbin_set_up_errors_are_one_line(tmp_path: Path) -> None:
    """A missing file, a model that does not load, or no enforcer: one line naming it."""
    from rag_guard_integrations.authz.casbin import CasbinAccess

    (tmp_path / "bad.conf").write_text("[matchers]\nm = \n")
    (tmp_path / "p.csv").write_text("")
    for attempt in (
        lambda: CasbinAccess.from_files(tmp_path / "none.conf", tmp_path / "p.csv"),
        lambda: CasbinAccess.from_files(tmp_path / "bad.conf", tmp_path / "p.csv"),
        lambda: CasbinAccess("not an enforcer"),
    ):
        with pytest.raises(ArgumentError) as raised:
            attempt()
        assert "\n" not in str(raised.value)


CAVEATED = """\
caveat on_site(ip string) {
  ip == "10.0.0.1"
}

definition user {}

definition document {
  relation viewer: user | user with on_site
  permission view = viewer
}
"""


def test_spicedb_denies_caveats_bad_ids_and_unknown_resources() -> None:
    """A caveated grant without its context, ids outside SpiceDB's grammar and unknown
    resources are denied without failing the batch; the scope lists a superset."""
    spicedb_library()
    from authzed.api.v1 import ContextualizedCaveat
    from spicedb_embedded import EmbeddedSpiceDB

    from rag_guard_integrations.authz.spicedb import SpiceDBAccess, parse_relationship

    caveated = parse_relationship("document:d2#viewer@user:ana")
    caveated.optional_caveat.CopyFrom(ContextualizedCaveat(caveat_name="on_site"))
    relationships = [parse_relationship("document:d1#viewer@user:ana"), caveated]
    with EmbeddedSpiceDB.start(CAVEATED, relationships) as db:
        source = SpiceDBAccess.embedded(db)
        answers = source.check("ana", ["d1", "d2", "d3", "bad id!"])
        assert answers.granted == {"d1"}
        assert "caveat" in answers.reasons["d2"]
        assert answers.reasons["bad id!"] == "not a SpiceDB object id"
        assert answers.token
        assert source.check("ana@example.com", ["d1"]).granted == frozenset()
        assert source.scope("ana").ids == {"d1", "d2"}  # a superset: the check decides


def test_cedar_bounds_no_scope_when_its_policies_grant_by_principal_alone() -> None:
    """A permit on the principal alone grants documents the entity store never lists: the
    scope is unbounded (nothing pushed down), while a policy over listed parents stays
    bounded by the store."""
    from rag_guard_integrations.authz.cedar import CedarAccess

    everything = CedarAccess('permit(principal == User::"ceo", action, resource);', DOCS)
    assert everything.check("ceo", ["board"]).granted == {"board"}
    scope = everything.scope("ceo")
    assert scope.ids is None
    assert "does not list" in scope.reason
    listed = CedarAccess('permit(principal, action, resource == Document::"d1");', DOCS)
    assert listed.scope("ana").ids == {"d1"}


TWO_PATHS = """\
definition user {}

definition folder {
  relation viewer: user
  permission view = viewer
}

definition document {
  relation folder: folder
  relation viewer: user
  permission view = viewer + folder->view
}
"""


def test_spicedb_counts_a_listing_cut_at_its_limit_by_results_not_ids() -> None:
    """``LookupResources`` streams one result per path: ana reaches six documents directly
    and through a folder, and a seventh only through the folder. With a limit of ten, the ten
    results hold six distinct ids: the listing was cut, so nothing is pushed down."""
    spicedb_library()
    from spicedb_embedded import EmbeddedSpiceDB

    from rag_guard_integrations.authz.spicedb import SpiceDBAccess, parse_relationship

    lines = ["folder:eng#viewer@user:ana", "document:design#folder@folder:eng"]
    for i in range(6):
        lines += [f"document:d{i}#viewer@user:ana", f"document:d{i}#folder@folder:eng"]
    with EmbeddedSpiceDB.start(TWO_PATHS, [parse_relationship(r) for r in lines]) as db:
        source = SpiceDBAccess.embedded(db, resource_key="doc_id", max_scope=10)
        scope = source.scope("ana")
        assert scope.ids is None
        assert "truncated" in scope.reason
        assert source.check("ana", ["design"]).granted == {"design"}
        roomy = SpiceDBAccess.embedded(db, resource_key="doc_id", max_scope=100).scope("ana")
        assert roomy.ids == {"design", *(f"d{i}" for i in range(6))}


def test_spicedb_bounds_nothing_when_lookup_resources_passes_its_deadline() -> None:
    """A gRPC server on 127.0.0.1 that holds ``LookupResources`` open until the test ends:
    the call passes its deadline, and the scope is unbounded, naming the status code."""
    import threading
    from concurrent.futures import ThreadPoolExecutor

    import grpc
    from authzed.api.v1 import permission_service_pb2_grpc as service

    from rag_guard_integrations.authz.spicedb import SpiceDBAccess

    released = threading.Event()

    class Stalling(service.PermissionsServiceServicer):
        def LookupResources(self, request: object, context: object) -> object:
            released.wait(30)
            return iter(())

    server = grpc.server(ThreadPoolExecutor(max_workers=2))
    service.add_PermissionsServiceServicer_to_server(Stalling(), server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            client = service.PermissionsServiceStub(channel)
            late = SpiceDBAccess(client, timeout=0.2).scope("ana")
    finally:
        released.set()
        server.stop(grace=None)
    assert not late.is_bounded
    assert late.ids is None
    assert late.reason.startswith("LookupResources failed (")
    assert late.reason.endswith(": DEADLINE_EXCEEDED)")


def test_spicedb_needs_a_client_with_both_calls() -> None:
    """A client lacking CheckBulkPermissions or LookupResources is a one-line error."""
    from rag_guard_integrations.authz.spicedb import SpiceDBAccess, parse_relationship

    with pytest.raises(ArgumentError, match="LookupResources"):
        SpiceDBAccess(type("Half", (), {"CheckBulkPermissions": lambda self, r: None})())
    with pytest.raises(ArgumentError, match="not a relationship"):
        parse_relationship("document:d1 viewer user:ana")
