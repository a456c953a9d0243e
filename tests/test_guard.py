"""Tests for the Guard pipeline: ordered subset, default deny, hints, normalisation, fail closed."""

from __future__ import annotations

import asyncio
import json
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rag_guard_integrations import (
    AccessContext,
    Chunk,
    Guard,
    InputError,
    PolicyError,
    parse_policy,
)
from rag_guard_integrations.core.constraints import Constraints

if TYPE_CHECKING:
    from rag_guard_integrations.classify.base import Classification

POLICY = r"""
version: 1
access: {attributes: [contract_type]}
clauses:
  TERMINATION_NOTICE:
    intents: ['\bterminat\w*\b.*\bnotice\b', '\bnotice period\b']
    fingerprint: '\b(days|business days)[''’]?\s+(prior\s+)?written\s+notice\b'
  GOVERNING_LAW:
    intents: ['\bgoverning law\b']
    fingerprint: '\bgoverned by\b'
"""
QUERY = "What is the termination notice period?"
MSA = Chunk(
    "Either party may terminate on thirty (30) days' written notice.",
    {"contract_type": "MSA", "clause_id": "TERMINATION_NOTICE"},
)
SOW = Chunk(
    "The client may terminate this SOW on 45 days' written notice.",
    {"contract_type": "SOW", "clause_id": "TERMINATION_NOTICE"},
)
LAW = Chunk(
    "This agreement is governed by the laws of New York.",
    {"contract_type": "MSA", "clause_id": "GOVERNING_LAW"},
)


@pytest.fixture(scope="module")
def guard() -> Guard:
    return Guard(parse_policy(POLICY))


def test_allowed_contract_type_and_clause_pass(guard: Guard) -> None:
    """Only the MSA termination clause passes for an MSA-only caller."""
    result = guard.check(QUERY, [SOW, LAW, MSA], access=AccessContext(contract_type={"MSA"}))
    assert result.allowed == [MSA]
    assert result.query.intents == ("TERMINATION_NOTICE",)
    assert [d.stage for d in result.decisions] == ["access", "clause", "passed"]


def test_access_given_as_mapping_is_accepted(guard: Guard) -> None:
    """A plain mapping works as an access context."""
    result = guard.check(QUERY, [SOW, MSA], access={"contract_type": ["SOW"]})
    assert result.allowed == [SOW]


@pytest.mark.parametrize(
    ("access", "reason"),
    [
        (None, "the access context grants no contract_type (default deny)"),
        (AccessContext(principal="bob"), "the access context grants no contract_type"),
        (AccessContext(contract_type=set()), "is not in the caller's allowlist"),
    ],
)
def test_default_deny_without_an_allowlist(guard: Guard, access: Any, reason: str) -> None:
    """No allowlist for an access-controlled attribute denies everything and says why."""
    result = guard.check(QUERY, [MSA, SOW], access=access)
    assert result.allowed == []
    assert reason in result.decisions[0].reason
    assert result.refusal == "No authorized matching clause found."


def test_chunk_without_the_attribute_is_denied(guard: Guard) -> None:
    """A chunk that does not carry the access attribute is denied."""
    bare = Chunk(MSA.text, {"clause_id": "TERMINATION_NOTICE"})
    result = guard.check(QUERY, [bare], access=AccessContext(contract_type={"MSA"}))
    assert result.decisions[0].reason == "the chunk carries no contract_type (default deny)"


def test_unknown_intent_passes_nothing(guard: Guard) -> None:
    """A query that names no known clause passes nothing and carries the refusal."""
    result = guard.check("Who won the match?", [MSA], access=AccessContext(contract_type={"MSA"}))
    assert result.allowed == []
    assert result.query.intents == ()
    assert result.refusal == "No authorized matching clause found."


def test_text_without_the_fingerprint_is_denied(guard: Guard) -> None:
    """A chunk labelled as the clause whose text lacks the fingerprint is denied."""
    fake = Chunk("Termination is discussed elsewhere.", dict(MSA.metadata))
    result = guard.check(QUERY, [fake], access=AccessContext(contract_type={"MSA"}))
    assert (
        result.decisions[0].reason == "the text does not match the TERMINATION_NOTICE fingerprint"
    )


@pytest.mark.parametrize(
    ("hint", "allowed"),
    [
        (r"thirty \(30\) days", True),
        (r"sixty \(60\) days", False),
        (".*", True),
        ("(a)\\1", False),
        (["not", "a", "pattern"], False),
    ],
)
def test_untrusted_hint_can_only_restrict(guard: Guard, hint: Any, allowed: bool) -> None:
    """A *_regex_hint may add a restriction; a permissive one cannot relax the fingerprint."""
    chunk = Chunk(MSA.text, {**MSA.metadata, "termination_regex_hint": hint})
    result = guard.check(QUERY, [chunk], access=AccessContext(contract_type={"MSA"}))
    assert bool(result.allowed) is allowed


def test_permissive_hint_does_not_rescue_a_chunk_without_fingerprint(guard: Guard) -> None:
    """A hint matching everything leaves a chunk without the fingerprint denied."""
    chunk = Chunk("No notice terms here.", {**MSA.metadata, "termination_regex_hint": ".*"})
    result = guard.check(QUERY, [chunk], access=AccessContext(contract_type={"MSA"}))
    assert result.allowed == []


@pytest.mark.parametrize(
    "query",
    [
        "What is the termi\u200bnation notice period?",
        "ＷＨＡＴ IS THE ＴＥＲＭＩＮＡＴＩＯＮ ＮＯＴＩＣＥ period?",
        "What is the terminati\u043en n\u043etice\u00ad period?",
        "termination\n\n   notice\u202e period",
    ],
)
def test_normalisation_defeats_spelling_tricks_in_intents(guard: Guard, query: str) -> None:
    """Zero-width, full-width, homoglyph and bidi variants of a query still detect the clause."""
    result = guard.check(query, [MSA], access=AccessContext(contract_type={"MSA"}))
    assert result.query.intents == ("TERMINATION_NOTICE",)
    assert result.allowed == [MSA]


def test_normalisation_applies_to_fingerprints(guard: Guard) -> None:
    """A chunk with full-width digits and zero-width characters still matches its fingerprint."""
    chunk = Chunk("Terminate on ３０ da\u200bys’ writ\u00adten notice.", dict(MSA.metadata))
    result = guard.check(QUERY, [chunk], access=AccessContext(contract_type={"MSA"}))
    assert result.allowed == [chunk]


def test_a_raising_check_blocks_and_records_why(guard: Guard) -> None:
    """An exception inside a per-chunk check denies that chunk (fail closed) and says so."""

    class Broken:
        name = "broken"

        def __call__(self, chunk: Chunk, request: object) -> str | None:
            raise RuntimeError("boom")

    guard = Guard(guard.policy, checks=[Broken()])
    result = guard.check(QUERY, [MSA], access=AccessContext(contract_type={"MSA"}))
    assert result.allowed == []
    assert result.decisions[0].stage == "broken"
    assert "RuntimeError: boom" in result.decisions[0].reason


def test_a_raising_query_stage_rejects_the_query(
    guard: Guard, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An exception while reading the query's intents rejects the query with tier 'error'."""

    def explode(*_: object) -> tuple[str, ...]:
        raise ValueError("bad")

    monkeypatch.setattr(guard.stages["clause"].reader, "scope", explode)
    result = guard.check(QUERY, [MSA], access=AccessContext(contract_type={"MSA"}))
    assert not result.query.allowed
    assert result.query.tier == "error"
    assert result.allowed == []


class RaisingClassifier:
    def classify(self, text: str) -> Classification:
        raise RuntimeError("down")

    def classify_many(self, texts: Any) -> list[Classification]:
        raise RuntimeError("down")

    async def aclassify_many(self, texts: Any) -> list[Classification]:
        raise RuntimeError("down")

    def bind(self, vocabulary: Any) -> RaisingClassifier:
        return self


@pytest.mark.parametrize("run", ["sync", "async"])
def test_a_raising_classifier_labels_unclassified_and_blocks(run: str) -> None:
    """A classifier that raises leaves its chunks unclassified, which the rule then blocks."""
    policy = parse_policy(
        "rules:\n  - name: no_unclassified\n    trigger: {all_present: [unclassified]}\n"
    )
    guard = Guard(policy, classifier=RaisingClassifier())
    chunks = [{"text": "untagged"}, {"text": "tagged", "meta": {"classification": "public"}}]
    result = guard.check("q", chunks) if run == "sync" else asyncio.run(guard.acheck("q", chunks))
    assert [d.allowed for d in result.decisions] == [False, True]
    assert "RuntimeError: down" in result.decisions[0].reason
    assert "unclassified" in result.decisions[0].labels


@pytest.mark.parametrize("query", [b"bytes", None, 3])
def test_non_string_query_is_an_input_error(guard: Guard, query: Any) -> None:
    """A query that is not a str raises InputError (a TypeError) naming its type."""
    with pytest.raises(InputError, match="query must be a str"):
        guard.check(query, [MSA])


def test_result_is_json_ready_and_can_leave_text_out(guard: Guard) -> None:
    """to_dict() serialises; include_text=False leaves chunk text out of the audit record."""
    result = guard.check(QUERY, [MSA, SOW], access=AccessContext(contract_type={"MSA"}))
    full = json.dumps(result.to_dict())
    assert "thirty (30)" in full
    assert "thirty (30)" not in json.dumps(result.to_dict(include_text=False))


def test_async_equals_sync(guard: Guard) -> None:
    """acheck decides exactly as check does."""
    access = AccessContext(contract_type={"SOW"})
    sync = guard.check(QUERY, [MSA, SOW, LAW], access=access)
    other = asyncio.run(guard.acheck(QUERY, [MSA, SOW, LAW], access=access))
    assert sync.to_dict() == other.to_dict()


def test_concurrent_checks_never_mix_access_contexts(guard: Guard) -> None:
    """Threads and asyncio tasks with different principals each see only their own context."""
    contexts = [AccessContext(principal=t, contract_type={t}) for t in ("MSA", "SOW")] * 50

    def allowed(ctx: AccessContext) -> set[str]:
        result = guard.check(QUERY, [MSA, SOW], access=ctx)
        return {c.metadata["contract_type"] for c in result.allowed}

    with ThreadPoolExecutor(max_workers=8) as pool:
        seen = list(pool.map(allowed, contexts))
    assert seen == [{ctx.principal} for ctx in contexts]

    async def gather() -> list[Any]:
        return await asyncio.gather(*(guard.acheck(QUERY, [MSA, SOW], access=c) for c in contexts))

    results = asyncio.run(gather())
    assert [r.allowed[0].metadata["contract_type"] for r in results] == [
        c.principal for c in contexts
    ]


chunk_strategy = st.builds(
    lambda ctype, clause, text: Chunk(text, {"contract_type": ctype, "clause_id": clause}),
    st.sampled_from(["MSA", "SOW", "NDA", None]),
    st.sampled_from(["TERMINATION_NOTICE", "GOVERNING_LAW", "OTHER"]),
    st.sampled_from([MSA.text, SOW.text, LAW.text, "", "random words"]),
)


@settings(max_examples=200, deadline=None)
@given(
    chunks=st.lists(chunk_strategy, max_size=15),
    allowed=st.frozensets(st.sampled_from(["MSA", "SOW", "NDA"])),
    query=st.sampled_from([QUERY, "governing law?", "termination notice and governing law", "hi"]),
)
def test_output_is_an_ordered_subset_within_the_allowlist(
    guard: Guard, chunks: list[Chunk], allowed: frozenset[str], query: str
) -> None:
    """For any input the allowed chunks are the same objects, in input order, all permitted."""
    result = guard.check(query, chunks, access=AccessContext(contract_type=allowed))
    positions = [chunks.index(c) for c in result.allowed]
    assert positions == sorted(positions)
    assert all(any(c is a for a in chunks) for c in result.allowed)
    assert all(c.metadata["contract_type"] in allowed for c in result.allowed)
    assert len(result.decisions) == len(chunks)
    assert (
        result.to_dict()
        == guard.check(query, chunks, access=AccessContext(contract_type=allowed)).to_dict()
    )


@pytest.mark.parametrize(
    ("query", "access", "expected"),
    [
        (
            QUERY,
            {"contract_type": ["MSA"]},
            {"contract_type": frozenset({"MSA"}), "clause_id": frozenset({"TERMINATION_NOTICE"})},
        ),
        (
            "termination notice and governing law",
            {"contract_type": ["SOW"]},
            {
                "contract_type": frozenset({"SOW"}),
                "clause_id": frozenset({"TERMINATION_NOTICE", "GOVERNING_LAW"}),
            },
        ),
        (QUERY, None, None),
        (QUERY, {"contract_type": []}, None),
        ("Who won the match?", {"contract_type": ["MSA"]}, None),
    ],
)
def test_prefilter_is_what_every_allowed_chunk_must_carry(
    guard: Guard, query: str, access: Any, expected: Any
) -> None:
    """prefilter gives the allowlists and asked clause ids, or None when nothing could pass."""
    wanted = None if expected is None else Constraints.of(expected)
    assert guard.prefilter(query, access) == wanted


def test_refusal_when_nothing_could_pass_even_for_an_empty_retrieval(guard: Guard) -> None:
    """An empty retrieval carries the refusal when the request could match nothing anyway."""
    assert guard.check("Who won the match?", []).refusal == "No authorized matching clause found."
    assert guard.check(QUERY, []).refusal == "No authorized matching clause found."
    assert guard.check(QUERY, [], access={"contract_type": ["MSA"]}).refusal is None


ACCESS_ONLY = Guard(parse_policy(POLICY + "on_no_intent: access_only\n"))


def test_access_only_lets_authorised_chunks_through_when_no_clause_is_named() -> None:
    """Under access_only a query naming no clause gets the chunks its access allows, any clause."""
    result = ACCESS_ONLY.check(
        "Can we terminate early?", [MSA, SOW, LAW], access={"contract_type": ["MSA"]}
    )
    assert result.allowed == [MSA, LAW]
    assert [d.stage for d in result.decisions if not d.allowed] == ["access"]
    assert result.refusal is None


def test_access_only_still_restricts_a_query_that_names_a_clause() -> None:
    """A recognised clause intent keeps its clause and fingerprint checks under access_only."""
    result = ACCESS_ONLY.check(QUERY, [MSA, LAW], access={"contract_type": ["MSA"]})
    assert result.allowed == [MSA]


def test_refuse_is_the_default_and_denies_every_chunk(guard: Guard) -> None:
    """Without on_no_intent, a query naming no clause lets nothing through and is refused."""
    assert parse_policy(POLICY).on_no_intent == "refuse"
    result = guard.check("Can we terminate early?", [MSA, LAW], access={"contract_type": ["MSA"]})
    assert result.allowed == []
    assert result.refusal == "No authorized matching clause found."


@pytest.mark.parametrize(
    ("access", "expected"),
    [
        ({"contract_type": ["MSA"]}, {"contract_type": frozenset({"MSA"})}),
        ({"contract_type": []}, None),
        (None, None),
    ],
)
def test_access_only_prefilter_pushes_down_the_allowlists_only(access: Any, expected: Any) -> None:
    """prefilter agrees with check: no clause restriction, the access allowlists still apply."""
    wanted = None if expected is None else Constraints.of(expected)
    assert ACCESS_ONLY.prefilter("What happens if we terminate?", access) == wanted


def test_unknown_on_no_intent_value_is_a_policy_error() -> None:
    """A value other than refuse or access_only is refused at load time, naming the key."""
    with pytest.raises(PolicyError, match="on_no_intent"):
        parse_policy(POLICY + "on_no_intent: allow\n")
