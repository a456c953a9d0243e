"""Guard.plan: a request is read once (one normalisation, one clause match of the query), and
check(plan, chunks) judges as the short form does."""

from __future__ import annotations

import asyncio
import pickle
from itertools import count
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rag_guard_integrations import AccessContext, Guard, parse_policy
from rag_guard_integrations.core import normalize as normalize_module
from rag_guard_integrations.core.errors import ArgumentError, InputError
from rag_guard_integrations.data import load_corpus
from rag_guard_integrations.engine import RequestPlan
from rag_guard_integrations.guards.clause_query import QueryReader
from rag_guard_integrations.guards.domain import DomainGuard
from rag_guard_integrations.guards.domain_identifiers import IdentifierReader
from tests.work_counter import calls_of

if TYPE_CHECKING:
    from collections.abc import Callable

    from rag_guard_integrations import GuardResult

pytestmark = pytest.mark.unit

CONTRACTS = load_corpus("contracts")[:12]
BIS = load_corpus("bis")[:12]
MSA = AccessContext(contract_type={"MSA", "NDA"})
# A fresh question per request, so that no cache of an earlier request hides a repeated read.
_fresh = count()


def _question(text: str) -> str:
    return f"{text} (request {next(_fresh)})"


def _decisions(result: GuardResult) -> list[tuple[Any, ...]]:
    return [(d.index, d.allowed, d.stage, str(d.reason)) for d in result.decisions]


def _reads(request: Callable[[], object], query: str) -> dict[str, int]:
    """How often one request normalises ``query``, matches it against the clause patterns and
    reads it for the domain (the calls behind each cache, counted by a profiler)."""
    normalised, matched = calls_of(request, normalize_module.normalize, QueryReader._reading)
    return {
        "normalisations": sum(call["text"] == query for call in normalised),
        "clause matches": len(matched),
    }


@pytest.mark.parametrize(
    ("policy", "text", "chunks", "access"),
    [
        ("contracts", "What is the termination notice period?", CONTRACTS, MSA),
        ("contracts", "Summarize the NDA", CONTRACTS, MSA),
        ("bis", "Scope of IS 2062 for steel plates", BIS, None),
    ],
)
@pytest.mark.parametrize("mode", ["plan", "aplan", "short"])
def test_a_request_normalises_and_matches_its_query_once(
    policy: str, text: str, chunks: list[Any], access: AccessContext | None, mode: str
) -> None:
    """Plan, pushdown and check of one request normalise the query once and match it against
    the clause patterns once (none without clauses), by plan + check, plan + acheck or the
    short form check(query, chunks, access=...)."""
    guard = Guard.from_policy(policy)
    query = _question(text)

    def request() -> None:
        if mode == "short":
            guard.check(query, chunks, access=access)
            return
        plan = guard.plan(query, access)
        assert plan.constraints is not None  # what a retriever pushes into its store
        if mode == "plan":
            guard.check(plan, chunks)
        else:
            asyncio.run(guard.acheck(plan, chunks))

    expected = {"normalisations": 1, "clause matches": 1 if policy == "contracts" else 0}
    assert _reads(request, query) == expected


def test_a_domain_query_is_read_once_per_request() -> None:
    """The domain gate reads the query's terms and identifiers once, in the plan, and decides
    on that reading with the chunks."""
    guard = Guard.from_policy("bis")
    query = _question("Scope of IS 2062 for steel plates")

    def request() -> None:
        guard.check(guard.plan(query), BIS)

    read, typed = calls_of(request, DomainGuard.read, IdentifierReader.typed)
    assert (len(read), len(typed)) == (1, 1)


@pytest.mark.parametrize(
    ("policy", "text", "chunks", "access"),
    [
        ("contracts", "What is the termination notice period?", CONTRACTS, MSA),
        ("contracts", "Can we terminate early?", CONTRACTS, AccessContext(contract_type={"SOW"})),
        ("contracts", "What is the weather like?", CONTRACTS, MSA),
        ("contracts", "What does the SOW say about payment?", CONTRACTS, MSA),
        ("bis", "Scope of IS 2062 for steel plates", BIS, None),
        ("bis", "what is the price of bitcoin", BIS, None),
        ("default", "anything", CONTRACTS, None),
    ],
)
def test_check_of_a_plan_decides_as_the_short_form(
    policy: str, text: str, chunks: list[Any], access: AccessContext | None
) -> None:
    """check(plan, chunks) and acheck(plan, chunks) give the decisions, query verdict and
    refusal of check(query, chunks, access=...)."""
    guard = Guard.from_policy(policy)
    short = guard.check(text, chunks, access=access)
    plan = guard.plan(text, access)
    for result in (guard.check(plan, chunks), asyncio.run(guard.acheck(plan, chunks))):
        assert _decisions(result) == _decisions(short)
        assert result.query == short.query
        assert result.refusal == short.refusal
    assert guard.prefilter(text, access) == plan.constraints


WORDS = [
    "termination", "notice", "payment", "terms", "MSA", "SOW", "NDA", "summarize",
    "governing", "law", "confidential", "the", "what", "is", "bitcoin", "IS 2062", "?",
]  # fmt: skip
TYPES = ["MSA", "SOW", "NDA", "DPA"]
GUARDS = {name: Guard.from_policy(name) for name in ("contracts", "bis")}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    policy=st.sampled_from(sorted(GUARDS)),
    words=st.lists(st.sampled_from(WORDS), min_size=1, max_size=6),
    allowed=st.frozensets(st.sampled_from(TYPES)),
    picks=st.lists(st.integers(0, len(CONTRACTS) - 1), max_size=6),
)
def test_a_plan_decides_as_the_short_form_on_any_request(
    policy: str, words: list[str], allowed: frozenset[str], picks: list[int]
) -> None:
    """For any question, caller and retrieval, checking the plan gives the short form's
    decisions, verdict and refusal, and the plan's constraints are prefilter's."""
    guard = GUARDS[policy]
    query = " ".join(words)
    access = AccessContext(contract_type=allowed)
    chunks = [(CONTRACTS if policy == "contracts" else BIS)[i % 12] for i in picks]
    short = guard.check(query, chunks, access=access)
    plan = guard.plan(query, access)
    planned = guard.check(plan, chunks)
    assert _decisions(planned) == _decisions(short)
    assert (planned.query, planned.refusal) == (short.query, short.refusal)
    assert plan.constraints == guard.prefilter(query, access)


def test_a_plan_carries_the_request_read_once() -> None:
    """The plan holds the query, its normal form, who asks, the clause ids and the pushdown."""
    guard = Guard.from_policy("contracts")
    plan = guard.plan("What is the Termination notice period?", {"contract_type": ["MSA"]})
    assert plan.query == "What is the Termination notice period?"
    assert plan.normalized == "what is the termination notice period?"
    assert plan.access == AccessContext(contract_type={"MSA"})
    assert plan.intents == ("TERMINATION_NOTICE",)
    assert plan.constraints is not None
    assert set(plan.constraints) == {"contract_type", "clause_id"}
    assert (plan.scope, plan.rejected, plan.fetch_hint) == (None, None, None)


def test_a_plan_that_lets_nothing_pass_says_what_to_answer() -> None:
    """No allowed value, or a question naming a contract the caller may not see: no
    constraints, and the refusal to answer with."""
    guard = Guard.from_policy("contracts")
    empty = guard.plan("What is the termination notice period?", {"contract_type": []})
    assert empty.constraints is None
    assert empty.refusal == guard.policy.no_context_refusal
    unseen = guard.plan("What does the SOW say about termination?", {"contract_type": ["MSA"]})
    assert unseen.constraints is None
    assert unseen.refusal is not None
    assert "SOW" in unseen.refusal


def test_a_blocklisted_query_is_rejected_in_the_plan() -> None:
    """The domain blocklist rejects the query before retrieval, with the policy's refusal;
    checking the plan rejects every chunk under the domain stage."""
    guard = Guard.from_policy("bis")
    plan = guard.plan("what is the price of bitcoin")
    assert plan.rejected is not None
    assert plan.rejected.tier == "blocklist"
    assert guard.policy.domain is not None
    assert plan.refusal == guard.policy.domain.refusal
    result = guard.check(plan, BIS[:3])
    assert result.allowed == []
    assert {d.stage for d in result.decisions} == {"domain"}
    assert guard.plan("Scope of IS 2062").rejected is None


def test_a_shadow_plan_pushes_nothing_down_and_rejects_nothing() -> None:
    """Under mode: shadow a store filter or a skipped fetch would enforce: the plan does
    neither, and its check still records the evaluation."""
    guard = Guard(
        parse_policy("version: 1\nname: s\nmode: shadow\ndomain: {blocklist: [bitcoin]}\n")
    )
    plan = guard.plan("bitcoin price")
    assert (plan.constraints, plan.rejected) == ({}, None)
    result = guard.check(plan, [{"text": "bitcoin is up"}])
    assert len(result.allowed) == 1
    assert result.shadow is not None
    assert not result.shadow.query.allowed


def test_a_plan_is_frozen_picklable_and_its_repr_holds_no_query_text() -> None:
    """A plan cannot be changed, survives pickling (a copy checks the same), and its repr
    names neither the query nor the caller's values."""
    guard = Guard.from_policy("contracts")
    plan = guard.plan("What is the termination notice period for Acme?", MSA)
    with pytest.raises(AttributeError):
        plan.query = "other"  # type: ignore[misc]
    copy = pickle.loads(pickle.dumps(plan))
    assert isinstance(copy, RequestPlan)
    assert copy == plan
    assert _decisions(guard.check(copy, CONTRACTS)) == _decisions(guard.check(plan, CONTRACTS))
    shown = repr(plan)
    for text in ("termination", "notice", "Acme", "period", "MSA", "NDA"):
        assert text not in shown
    assert "TERMINATION_NOTICE" in shown


def test_a_pickled_guard_accepts_its_plans() -> None:
    """A guard's pickled copy (a worker's) checks the plans the guard made."""
    guard = Guard.from_policy("contracts")
    plan = guard.plan("What is the termination notice period?", MSA)
    worker = pickle.loads(pickle.dumps(guard))
    assert _decisions(worker.check(plan, CONTRACTS)) == _decisions(guard.check(plan, CONTRACTS))


def test_a_plan_of_another_guard_is_an_argument_error() -> None:
    """A plan made by one guard is refused by another, with a one-line message."""
    plan = Guard.from_policy("contracts").plan("What is the termination notice period?", MSA)
    other = Guard.from_policy("contracts")
    with pytest.raises(ArgumentError, match="another guard") as raised:
        other.check(plan, CONTRACTS)
    assert "\n" not in str(raised.value)
    with pytest.raises(ArgumentError, match="another guard"):
        asyncio.run(other.acheck(plan, CONTRACTS))


def test_access_beside_a_plan_is_an_argument_error() -> None:
    """The plan holds who is asking: access= beside it is refused, with a one-line message."""
    guard = Guard.from_policy("contracts")
    plan = guard.plan("What is the termination notice period?", MSA)
    with pytest.raises(ArgumentError, match="access=") as raised:
        guard.check(plan, CONTRACTS, access=MSA)
    assert "\n" not in str(raised.value)


def test_a_query_that_is_not_text_is_an_input_error() -> None:
    """plan() of bytes says what the query must be."""
    with pytest.raises(InputError, match="query must be a str, got bytes"):
        Guard.from_policy("contracts").plan(b"termination?")  # type: ignore[arg-type]
