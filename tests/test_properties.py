"""Property tests of the whole Guard (access, hints, clauses, classifier, combination rules):
the guarantees of the design hold for any chunks, queries and access contexts."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rag_guard_integrations import AccessContext, Chunk, Guard, parse_policy
from rag_guard_integrations.guards.combination import Labelled

if TYPE_CHECKING:
    from collections.abc import Iterator

    from rag_guard_integrations import GuardResult

POLICY = r"""
version: 1
access: {attributes: [tenant, region]}
clauses:
  PAYMENT_TERMS:
    intents: ['\bpayment\b']
    fingerprint: '\bwithin \d+ days\b'
  GOVERNING_LAW:
    intents: ['\blaw\b']
    fingerprint: '\bgoverned by\b'
linking: {keys: [entity]}
classifiers:
  builtin: {email: contact, money: financial}
labels:
  financial: {description: money figures}
  contact: {description: e-mail addresses}
  person: {description: names of people}
  health: {description: medical conditions}
rules:
  - name: money_and_contact
    trigger: {all_present: [financial, contact]}
  - name: money_and_person
    trigger: {all_present: [financial, person]}
  - name: person_health_linked
    trigger: {all_present: [person, health], scope: linked}
  - name: health_seen
    action: warn
    trigger: {all_present: [health]}
  - name: unclassified_content
    trigger: {all_present: [unclassified]}
"""
TEXTS = [
    "Invoices are payable within 30 days; a late fee of $500 applies.",
    "Payable within 45 days of receipt; questions to ap@acme.example.",
    "Each invoice is due within 10 days.",
    "This agreement is governed by the laws of Delaware.",
    "Governed by English law; claims above $1,000,000 are excluded.",
    "Nothing about payment or law here.",
    "",
]
QUERIES = ["What are the payment terms?", "Which law applies?", "payment and law", "hello"]
EXAMPLES = 300

access_of = st.builds(
    lambda tenants, regions, principal: AccessContext(
        principal, tenant=tenants, **({} if regions is None else {"region": regions})
    ),
    # Default deny (an empty allowlist, no region at all) is drawn, but rarely.
    st.sampled_from([{"t1"}, {"t2"}, {"t1", "t2"}, {"t1", "t2", "t3"}] * 3 + [set()]),
    st.sampled_from([{"eu"}, {"us"}, {"eu", "us"}] * 3 + [None]),
    st.sampled_from(["alice", "bob", None]),
)
# Texts with the clause they are (OTHER: none); most chunks carry their own clause id.
CLAUSE_TEXTS = (
    [("PAYMENT_TERMS", t) for t in TEXTS[:3]]
    + [("GOVERNING_LAW", t) for t in TEXTS[3:5]]
    + [("OTHER", t) for t in TEXTS[5:]]
)
labels_of = st.one_of(
    st.none(),
    st.lists(st.sampled_from(["financial", "person", "health", "Public", "PERSON"]), max_size=3),
    st.sampled_from([3, [["person"]]]),
)


def _meta(
    clause_text: tuple[str, str], claimed: str | None, **values: object
) -> tuple[str, dict[str, object]]:
    """A chunk's text and metadata; None drops a key."""
    clause, text = clause_text
    meta = {"clause_id": claimed or clause, **values}
    return text, {key: value for key, value in meta.items() if value is not None}


@cache
def chunk_for(access: AccessContext) -> st.SearchStrategy[Chunk]:
    """Chunks whose access values are mostly ones ``access`` allows, and whose clause id mostly
    fits their text, so that many reach the later stages; the rest are forbidden, malformed or
    mislabelled. Cached: building strategies per example would cost more than the checks."""
    lists = access.allowlists
    allowed_tenants = sorted(lists.get("tenant", ())) or ["t1"]
    allowed_regions = sorted(lists.get("region", ())) or ["eu"]
    visible = st.builds(
        _meta,
        st.sampled_from(CLAUSE_TEXTS),
        st.sampled_from([None, None, None, "GOVERNING_LAW"]),
        tenant=st.sampled_from(allowed_tenants),
        region=st.sampled_from(allowed_regions),
        classifications=labels_of,
        entity=st.sampled_from(["e1", "e2", None]),
        x_regex_hint=st.sampled_from([None] * 6 + [r"within \d+", "governed", "(a)\\1"]),
    )
    other = st.builds(
        _meta,
        st.sampled_from(CLAUSE_TEXTS),
        st.none(),
        tenant=st.sampled_from(["t3", ["t1", "t2"], [], 7, None]),
        region=st.sampled_from(["eu", "us", None]),
        classifications=labels_of,
    )
    return st.builds(
        lambda text_meta, score: Chunk(text_meta[0], text_meta[1], score),
        st.sampled_from([visible, visible, visible, other]).flatmap(lambda kind: kind),
        st.one_of(st.none(), st.floats(0, 1)),
    )


# A request: chunks and the access context they are checked for.
request_of = access_of.flatmap(
    lambda access: st.tuples(st.lists(chunk_for(access), min_size=1, max_size=10), st.just(access))
)
query_of = st.sampled_from(QUERIES)
properties = settings(
    max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


@pytest.fixture(scope="module")
def guard() -> Guard:
    return Guard(parse_policy(POLICY))


@pytest.fixture(scope="module")
def pool() -> Iterator[ThreadPoolExecutor]:
    with ThreadPoolExecutor(max_workers=8) as executor:
        yield executor


def permitted(chunk: Chunk, access: AccessContext) -> bool:
    """The allowlist rule, restated independently of the guard."""
    for attribute in ("tenant", "region"):
        value = chunk.metadata.get(attribute)
        allowed = access.allowlists.get(attribute)
        if value is None or allowed is None:
            return False
        values = value if isinstance(value, list) else [value]
        if not values or any(str(v) not in allowed for v in values):
            return False
    return True


@properties
@given(request=request_of, query=query_of)
def test_output_is_an_ordered_subset_of_the_input(
    guard: Guard, request: tuple[list[Chunk], AccessContext], query: str
) -> None:
    """The allowed chunks are the input objects themselves, unmodified, in input order, and
    there is one decision per input chunk."""
    chunks, access = request
    result = guard.check(query, chunks, access=access)
    assert [d.index for d in result.decisions] == list(range(len(chunks)))
    assert all(d.chunk is chunks[d.index] for d in result.decisions)
    indices = list(result.allowed_indices)
    assert indices == sorted(set(indices))
    assert [id(c) for c in result.allowed] == [id(chunks[i]) for i in indices]


@properties
@given(request=request_of, query=query_of)
def test_nothing_outside_the_allowlist_passes(
    guard: Guard, request: tuple[list[Chunk], AccessContext], query: str
) -> None:
    """Every allowed chunk carries allowed values for every access-controlled attribute."""
    chunks, access = request
    result = guard.check(query, chunks, access=access)
    assert all(permitted(chunk, access) for chunk in result.allowed)


@properties
@given(request=request_of, query=query_of)
def test_no_block_rule_fires_on_the_output(
    guard: Guard, request: tuple[list[Chunk], AccessContext], query: str
) -> None:
    """Re-running the combination rules on the allowed chunks fires no block rule, only chunks
    carrying a block trigger label were removed by them, and checking the output again keeps
    all of it."""
    chunks, access = request
    combination = guard.stages["combination"]
    result = guard.check(query, chunks, access=access)
    kept = [
        Labelled(d.index, d.labels, d.chunk.score, d.chunk.metadata)
        for d in result.decisions
        if d.allowed
    ]
    assert combination(kept).violations == ()
    triggers = {
        label
        for rule in guard.policy.rules
        if rule.action == "block"
        for label in rule.trigger.all_present
    }
    assert all(d.labels & triggers for d in result.decisions if d.stage == "combination")
    again = guard.check(query, result.allowed, access=access)
    assert again.allowed == result.allowed
    assert again.is_safe


@properties
@given(request=request_of, query=query_of)
def test_the_result_is_deterministic(
    guard: Guard, request: tuple[list[Chunk], AccessContext], query: str
) -> None:
    """The same input gives the same audit record, synchronously and asynchronously."""
    chunks, access = request
    first = guard.check(query, chunks, access=access).to_dict()
    assert guard.check(query, list(chunks), access=access).to_dict() == first
    assert asyncio.run(guard.acheck(query, chunks, access=access)).to_dict() == first


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    requests=st.lists(
        request_of.flatmap(lambda r: st.tuples(st.just(r[0]), query_of, st.just(r[1]))),
        min_size=2,
        max_size=8,
    ),
)
def test_concurrent_checks_never_mix_requests(
    guard: Guard, pool: ThreadPoolExecutor, requests: list[tuple[list[Chunk], str, Any]]
) -> None:
    """Checks with different access contexts run at once in threads and as asyncio tasks each
    give exactly the result they give alone."""
    alone = [guard.check(q, c, access=a).to_dict() for c, q, a in requests]

    def one(request: tuple[list[Chunk], str, AccessContext]) -> GuardResult:
        chunks, query, access = request
        return guard.check(query, chunks, access=access)

    threaded = [r.to_dict() for r in pool.map(one, requests * 2)]
    assert threaded == alone * 2

    async def gather() -> list[GuardResult]:
        return await asyncio.gather(*(guard.acheck(q, c, access=a) for c, q, a in requests * 2))

    assert [r.to_dict() for r in asyncio.run(gather())] == alone * 2
