"""The access stage in the guard: it judges every candidate before any other stage, fails
closed on every kind of failure without quoting chunks, joins its scope to the pushdown, and
records the source, its version and the age of copied ACLs in the audit record."""

from __future__ import annotations

import pickle
from datetime import datetime, timezone
from typing import TYPE_CHECKING

import jsonschema
import pytest
from hypothesis import given
from hypothesis import strategies as st

from rag_guard_integrations import AccessContext, Chunk, Guard, parse_policy
from rag_guard_integrations.authz import AccessSource, Answers, Scope
from rag_guard_integrations.core.audit import audit_schema
from rag_guard_integrations.guards.live_access import LiveAccess

if TYPE_CHECKING:
    from collections.abc import Sequence

pytestmark = pytest.mark.unit

NOTHING = parse_policy("version: 1\nname: nothing\n")
FRESH = parse_policy(
    "version: 1\nname: fresh\nacl_freshness: {field: acl_synced_at, max_age_days: 1}\n"
)
SECRET = "the merger closes on the ninth of March at a price of 41 dollars"
QUERY = "What is planned?"


class Grants:
    """An access source over a plain grant table, with switches to make it fail the ways a
    remote authorizer does (raise, answer nonsense, skip resources). A stand-in: the real
    engines' failures cannot be provoked on demand; tests/test_authz_engines.py runs them."""

    name = "grants"
    resource_key: str | None = "doc_id"

    def __init__(self, grants: dict[str, set[str]], fail: str | None = None) -> None:
        self.grants = grants
        self.fail = fail
        self.asked: list[tuple[str, tuple[str, ...]]] = []

    def check(self, principal: str, resources: Sequence[str]) -> Answers:
        self.asked.append((principal, tuple(resources)))
        if self.fail == "raise":
            raise TimeoutError(f"timed out checking {SECRET}")
        if self.fail == "nonsense":
            return {"granted": list(resources)}  # type: ignore[return-value]
        granted = frozenset(r for r in resources if r in self.grants.get(principal, set()))
        if self.fail == "partial":  # grants what it says, answers nothing about the rest
            return Answers(granted, "v1", {})
        return Answers(granted, "v1")

    def scope(self, principal: str) -> Scope:
        if self.fail in {"raise", "scope"}:
            raise ConnectionError(SECRET)
        return Scope.bounded(self.grants.get(principal, set()), self.resource_key, self.name, "v1")


def chunk(doc_id: object, text: str = SECRET, **meta: object) -> Chunk:
    """A chunk of ``doc_id`` (left out when None) holding ``text``."""
    metadata = dict(meta) if doc_id is None else {"doc_id": doc_id, **meta}
    return Chunk(text, metadata)


def test_a_plain_grant_table_satisfies_the_protocol() -> None:
    """The protocol is structural: any object with the four members is a source."""
    assert isinstance(Grants({}), AccessSource)


def test_only_granted_resources_pass_and_each_resource_is_asked_once() -> None:
    """Two chunks of d1 and one of d2: one bulk call asking d1 and d2, d1's chunks pass."""
    source = Grants({"ana": {"d1"}})
    result = Guard(NOTHING, access_source=source).check(
        QUERY, [chunk("d1"), chunk("d2"), chunk("d1")], access=AccessContext("ana")
    )
    assert result.allowed_indices == (0, 2)
    assert source.asked == [("ana", ("d1", "d2"))]
    assert result.decisions[1].stage == "authz"
    assert result.decisions[0].reason.startswith("passed authz")


@pytest.mark.parametrize("fail", ["raise", "nonsense", "partial"])
def test_a_failing_source_denies_and_names_the_error_type_only(fail: str) -> None:
    """An error, an answer of the wrong type, or no answer about a resource: denied, and no
    reason or record quotes the chunk (the error message held its text)."""
    source = Grants({"ana": {"d1"}}, fail=fail)
    result = Guard(NOTHING, access_source=source).check(
        QUERY, [chunk("d1"), chunk("d2")], access=AccessContext("ana")
    )
    if fail == "partial":
        assert result.allowed_indices == (0,)
    else:
        assert result.allowed_indices == ()
        assert "fail closed" in result.decisions[0].reason
    record = result.audit()
    assert SECRET not in str(record)
    assert all(SECRET not in d.reason for d in result.decisions)
    if fail == "raise":
        assert "TimeoutError" in result.decisions[0].reason
        assert record["access_source"]["failure"] == "TimeoutError"


@pytest.mark.parametrize(
    "doc_id", [None, "", "  ", " d1", ["d1", "d2"], {"id": "d1"}, True, 3.5], ids=repr
)
def test_a_chunk_without_one_resource_id_is_denied(doc_id: object) -> None:
    """Missing, blank, padded, several or non-scalar resource ids: that chunk is denied, the
    others are still judged."""
    source = Grants({"ana": {"d1"}})
    result = Guard(NOTHING, access_source=source).check(
        QUERY, [chunk(doc_id), chunk("d1")], access=AccessContext("ana")
    )
    assert result.allowed_indices == (1,)
    assert result.decisions[0].stage == "authz"


def test_the_chunk_id_is_the_resource_when_no_key_is_set() -> None:
    """With resource_key None, Chunk.id names the resource; the pushdown holds no id list."""
    source = Grants({"ana": {"c1"}})
    source.resource_key = None
    guard = Guard(NOTHING, access_source=source)
    chunks = [Chunk("a", id="c1"), Chunk("b", id="c2"), Chunk("c")]
    assert guard.check(QUERY, chunks, access=AccessContext("ana")).allowed_indices == (0,)
    assert guard.prefilter(QUERY, AccessContext("ana")) == {}


@given(
    st.one_of(
        st.none(),
        st.text(alphabet=" \t\n\u00a0\u200b", max_size=4),
        st.text(min_size=1).map(lambda s: f"{s}*"),
        st.text(min_size=1).map(lambda s: f" {s}"),
    )
)
def test_no_unusable_principal_ever_reaches_the_source(principal: str | None) -> None:
    """Missing, blank, padded or wildcard principals are denied before the source is asked."""
    source = Grants({"*": {"d1"}, "": {"d1"}})
    guard = Guard(NOTHING, access_source=source)
    result = guard.check(QUERY, [chunk("d1")], access=AccessContext(principal))
    assert result.allowed_indices == ()
    assert source.asked == []
    assert guard.prefilter(QUERY, AccessContext(principal)) is None


def test_the_query_gate_never_sees_a_chunk_the_caller_may_not() -> None:
    """A withheld chunk carrying IS 2062 cannot make the domain gate accept an IS 2062 query
    (it would reveal that such a document exists)."""

    class Flat:  # a constant embedder: similarity 0, so only the identifier tier can accept
        def embed_query(self, text: str) -> list[float]:
            return [1.0, 0.0]

        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            return [[0.0, 1.0] for _ in texts]

    hidden = chunk("s1", "Structural steel requirements.", standard="IS 2062")
    open_guard = Guard.from_policy("bis", embedder=Flat(), access_source=Grants({"ana": {"s1"}}))
    closed_guard = Guard.from_policy("bis", embedder=Flat(), access_source=Grants({}))
    access = AccessContext("ana")
    assert open_guard.check("IS 2062 requirements", [hidden], access=access).query.allowed
    closed = closed_guard.check("IS 2062 requirements", [hidden], access=access)
    assert not closed.query.allowed
    assert closed.decisions[0].stage == "authz"


def test_the_scope_joins_the_pushdown_and_a_failed_scope_pushes_nothing() -> None:
    """A bounded scope adds the doc_id list to the other constraints; an empty one says
    nothing can pass; a scope that raises pushes nothing, and the check still decides."""
    policy = parse_policy("version: 1\nname: typed\naccess: {attributes: [contract_type]}\n")
    access = AccessContext("ana", contract_type={"MSA"})
    guard = Guard(policy, access_source=Grants({"ana": {"d1", "d2"}}))
    constraints = guard.prefilter(QUERY, access)
    assert constraints is not None
    assert constraints["doc_id"].values == {"d1", "d2"}
    assert constraints["contract_type"].values == {"MSA"}
    assert Guard(policy, access_source=Grants({})).prefilter(QUERY, access) is None
    failing = Guard(policy, access_source=Grants({"ana": {"d1"}}, fail="scope"))
    assert set(failing.prefilter(QUERY, access) or ()) == {"contract_type"}
    checked = failing.check(QUERY, [chunk("d1", contract_type="MSA"), chunk("d2")], access=access)
    assert checked.allowed_indices == (0,)


def test_the_audit_record_names_the_source_and_version_and_validates() -> None:
    """The record gains access_source (source, token, counts) and stays schema-valid."""
    result = Guard(NOTHING, access_source=Grants({"ana": {"d1"}})).check(
        QUERY, [chunk("d1"), chunk("d2")], access=AccessContext("ana")
    )
    record = result.audit()
    jsonschema.validate(record, audit_schema())
    assert record["access_source"] == {
        "source": "grants",
        "token": "v1",
        "resources": 2,
        "granted": 1,
        "failure": None,
        "acl_ages": None,
    }
    assert "access_source" not in Guard(NOTHING).check(QUERY, [chunk("d1")]).audit()


def clock() -> datetime:
    """The fixed now of the ACL-age tests."""
    return datetime(2026, 12, 1, tzinfo=timezone.utc)


def test_without_a_live_check_stale_copied_acls_are_denied() -> None:
    """Under acl_freshness and no source, a copy older than the bound or undated is denied;
    the record gives the oldest and newest ages."""
    live = LiveAccess.of(FRESH, None, clock)
    assert live is not None
    chunks = [
        chunk("d1", acl_synced_at="2026-11-30T12:00:00+00:00"),
        chunk("d2", acl_synced_at="2026-11-20"),
        chunk("d3"),
    ]
    denied, record = live.judge(chunks, AccessContext("ana"))
    assert set(denied) == {1, 2}
    assert {stage for stage, _ in denied.values()} == {"acl_age"}
    assert record.acl_ages is not None
    assert (record.acl_ages.oldest_s, record.acl_ages.newest_s) == (11 * 86400, 43200)
    assert record.acl_ages.undated == 1


def test_with_a_live_check_the_copied_acl_age_is_only_recorded() -> None:
    """With a source the live answer decides: a stale copy of a granted resource passes."""
    live = LiveAccess.of(FRESH, Grants({"ana": {"d1"}}), clock)
    assert live is not None
    denied, record = live.judge([chunk("d1", acl_synced_at="2020-01-01")], AccessContext("ana"))
    assert denied == {}
    assert record.acl_ages is not None
    assert record.acl_ages.oldest_s is not None
    assert record.acl_ages.oldest_s > 365 * 86400
    guard = Guard(FRESH)
    stale = guard.check(QUERY, [chunk("d1", acl_synced_at="2020-01-01")])
    assert stale.decisions[0].stage == "acl_age"
    assert stale.audit()["access_source"]["acl_ages"]["field"] == "acl_synced_at"


def test_shadow_mode_records_the_live_denial_and_enforces_nothing() -> None:
    """A shadow policy lets every chunk through and records the would-be authz denial."""
    shadow = parse_policy("version: 1\nname: trial\nmode: shadow\n")
    result = Guard(shadow, access_source=Grants({})).check(
        QUERY, [chunk("d1")], access=AccessContext("ana")
    )
    assert result.allowed_indices == (0,)
    record = result.audit()
    assert record["chunks"][0]["stage"] == "authz"
    assert record["chunks"][0]["enforced"] is False
    assert record["access_source"]["granted"] == 0


def test_a_guard_with_a_picklable_source_pickles_with_it() -> None:
    """Pickling keeps the access source (a copy still denies what it does not grant)."""
    guard = Guard(NOTHING, access_source=Grants({"ana": {"d1"}}))
    copy = pickle.loads(pickle.dumps(guard))
    assert copy.access_source is not None
    result = copy.check(QUERY, [chunk("d1"), chunk("d2")], access=AccessContext("ana"))
    assert result.allowed_indices == (0,)


async def test_the_async_check_applies_the_same_access_stage() -> None:
    """``acheck`` denies and records exactly what ``check`` does."""
    guard = Guard(NOTHING, access_source=Grants({"ana": {"d1"}}))
    chunks = [chunk("d1"), chunk("d2"), chunk(None)]
    sync = guard.check(QUERY, chunks, access=AccessContext("ana"))
    later = await guard.acheck(QUERY, chunks, access=AccessContext("ana"))
    assert later.allowed_indices == sync.allowed_indices == (0,)
    assert [d.reason for d in later.decisions] == [d.reason for d in sync.decisions]
    assert later.access_source == sync.access_source


class Malformed(Grants):
    """A source whose Answers hold the wrong types: what a hand-written source gets wrong."""

    def __init__(self, answers: Answers) -> None:
        super().__init__({})
        self.answers = answers

    def check(self, principal: str, resources: Sequence[str]) -> Answers:
        return self.answers


@pytest.mark.parametrize(
    "answers",
    [
        Answers("d1"),  # type: ignore[arg-type] - a string would grant its substrings
        Answers({"d1": True, "d2": False}),  # type: ignore[arg-type] - a mapping, its keys
        Answers(r for r in ("d1", "d2")),  # type: ignore[arg-type] - a generator, once
        Answers(frozenset({"d1", "d2"}), token=7),  # type: ignore[arg-type]
        Answers(frozenset({1})),  # type: ignore[arg-type]
    ],
    ids=["str", "mapping", "generator", "token", "non-str id"],
)
def test_malformed_answers_deny_every_chunk(answers: Answers) -> None:
    """Answers whose fields hold the wrong types grant nothing (fail closed), the reason
    says what was malformed, and the audit record still validates."""
    result = Guard(NOTHING, access_source=Malformed(answers)).check(
        QUERY, [chunk("d1"), chunk("d2"), chunk("1")], access=AccessContext("ana")
    )
    assert result.allowed_indices == ()
    assert "malformed Answers" in result.decisions[0].reason
    jsonschema.validate(result.audit(), audit_schema())


def test_a_sources_own_reason_stays_out_of_the_record() -> None:
    """A source's reason text may quote a metadata value: the record says only "denied"."""
    quoting = Malformed(Answers(frozenset(), "v1", {"d1": f"no access to {SECRET}"}))
    result = Guard(NOTHING, access_source=quoting).check(
        QUERY, [chunk("d1")], access=AccessContext("ana")
    )
    assert SECRET in result.decisions[0].reason  # in process, the reason keeps the detail
    assert SECRET not in str(result.audit())
