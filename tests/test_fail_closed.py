"""Fail closed everywhere: an exception inside any stage withholds the chunks it concerns, and
the audit record says which stage failed and why."""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING, Any

import pytest

from rag_guard_integrations import AccessContext, Chunk, Guard, parse_policy
from rag_guard_integrations.classify.base import Classification
from rag_guard_integrations.guards.access import AccessGuard, HintGuard
from rag_guard_integrations.guards.clause import ClauseGuard
from rag_guard_integrations.guards.combination import CombinationGuard

if TYPE_CHECKING:
    from collections.abc import Callable

    from rag_guard_integrations import GuardResult

RULES = r"""
version: 1
access: {attributes: [tenant]}
clauses:
  PAYMENT_TERMS:
    intents: ['\bpayment terms?\b']
    fingerprint: '\bwithin \d+ days\b'
domain:
  blocklist: [bitcoin]
  min_similarity: 0.3
classifiers:
  builtin: {money: financial}
labels:
  financial: {description: money figures}
  person: {description: names of people}
rules:
  - name: money_and_names
    trigger: {all_present: [financial, person]}
"""
UNCLASSIFIED_RULE = """
  - name: unclassified_content
    trigger: {all_present: [unclassified]}
"""
WARN_ONLY = RULES.replace(
    "    trigger: {all_present: [financial",
    "    action: warn\n    trigger: {all_present: [financial",
)
QUERY = "What are the payment terms?"
ACCESS = AccessContext(tenant={"t"})
ERROR = "RuntimeError: injected"


def chunks() -> list[Chunk]:
    meta = {"tenant": "t", "clause_id": "PAYMENT_TERMS"}
    return [
        Chunk("Invoices are payable within 30 days, late fees of $500 apply.", meta, 0.9),
        Chunk(
            "Each invoice is due within 45 days of receipt.", {**meta, "x_regex_hint": "due"}, 0.8
        ),
    ]


def run(guard: Guard, mode: str) -> GuardResult:
    if mode == "async":
        return asyncio.run(guard.acheck(QUERY, chunks(), access=ACCESS))
    return guard.check(QUERY, chunks(), access=ACCESS)


def boom(*_: Any, **__: Any) -> Any:
    raise RuntimeError("injected")


async def aboom(*_: Any, **__: Any) -> Any:
    raise RuntimeError("injected")


def guard_for(text: str = RULES + UNCLASSIFIED_RULE) -> Guard:
    return Guard(parse_policy(text))


def break_check(monkeypatch: pytest.MonkeyPatch, check: type) -> None:
    # A batched check falls back to its chunk-by-chunk call when the batch fails: break both.
    for name in ("__call__", "check_many"):
        monkeypatch.setattr(check, name, boom, raising=False)


def break_label_reading(monkeypatch: pytest.MonkeyPatch) -> None:
    # The engine reads labels in one batch, and chunk by chunk when the batch fails.
    for name in ("labels_many", "metadata_labels"):
        monkeypatch.setattr(f"rag_guard_integrations.engine.labelling.{name}", boom)


# (stage injected, how, stage recorded on the chunks): query stages reject the whole query.
INJECTIONS: list[tuple[str, Callable[[pytest.MonkeyPatch, Guard], None], str]] = [
    ("domain decide", lambda mp, g: mp.setattr(g.query_checks[0], "decide", boom), "domain"),
    ("clause detect", lambda mp, g: mp.setattr(g.clause, "detect", boom), "domain"),
    ("access check", lambda mp, g: break_check(mp, AccessGuard), "access"),
    ("hint check", lambda mp, g: break_check(mp, HintGuard), "hint"),
    ("clause check", lambda mp, g: break_check(mp, ClauseGuard), "clause"),
    ("labels reading", lambda mp, g: break_label_reading(mp), "labels"),
    ("combination", lambda mp, g: mp.setattr(CombinationGuard, "__call__", boom), "combination"),
]


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_without_faults_both_chunks_pass(mode: str) -> None:
    """The baseline: with nothing broken both chunks pass, so each fault below flips them."""
    assert len(run(guard_for(), mode).allowed) == 2


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize(
    ("name", "inject", "stage"), INJECTIONS, ids=[name for name, _, _ in INJECTIONS]
)
def test_a_failing_stage_withholds_every_chunk_and_says_why(
    monkeypatch: pytest.MonkeyPatch,
    name: str,
    inject: Callable[[pytest.MonkeyPatch, Guard], None],
    stage: str,
    mode: str,
) -> None:
    """An exception in the stage passes nothing; each decision names the stage and the error
    (a query stage names the error's type only: its message may quote a chunk), and the
    no-text record the error's type only."""
    guard = guard_for()
    inject(monkeypatch, guard)
    result = run(guard, mode)
    assert result.allowed == []
    assert result.refusal is not None
    named = "RuntimeError" if stage == "domain" else ERROR
    for decision in result.decisions:
        assert (decision.allowed, decision.stage) == (False, stage)
        assert named in decision.reason
        assert "fail closed" in decision.reason
    if stage == "domain":
        assert (result.query.allowed, result.query.tier) == (False, "error")
        assert named in result.query.reason
    # The no-text record names the failing stage and the error's type, not its message.
    record = json.dumps(result.to_dict(include_text=False))
    failed = "query" if stage == "domain" else stage
    assert f"{failed} check failed (RuntimeError)" in record
    assert "injected" not in record


def test_the_warn_only_policy_has_no_block_rule() -> None:
    """The warn-only variant below really is one: no rule of it blocks."""
    assert {rule.action for rule in guard_for(WARN_ONLY).policy.rules} == {"warn"}


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize(
    ("policy", "stage"),
    [(RULES + UNCLASSIFIED_RULE, "combination"), (RULES, "labels"), (WARN_ONLY, "labels")],
    ids=["pack_blocks_unclassified", "no_unclassified_rule", "warn_only_rules"],
)
def test_a_failing_classifier_withholds_its_chunks(
    monkeypatch: pytest.MonkeyPatch, policy: str, stage: str, mode: str
) -> None:
    """Recognisers that raise leave their chunks ``unclassified`` and withheld: by the pack's
    rule when it has one, else by the guard itself, even when every rule only warns."""
    guard = guard_for(policy)
    assert guard.classifier is None
    assert guard.recognizers is not None
    monkeypatch.setattr(guard.recognizers, "classify_many", boom)
    monkeypatch.setattr(guard.recognizers, "aclassify_many", aboom)
    result = run(guard, mode)
    assert result.allowed == []
    for decision in result.decisions:
        assert (decision.allowed, decision.stage) == (False, stage)
        assert f"recognizers check failed ({ERROR})" in decision.reason
        assert "unclassified" in decision.labels


@pytest.mark.parametrize(
    "answer",
    [
        [],
        None,
        [Classification(frozenset({"financial"}))] * 3,
        ["financial", "financial"],
        (c for c in [Classification(frozenset()), Classification(frozenset())]),
    ],
    ids=["too_few", "none", "too_many", "not_classifications", "generator"],
)
def test_a_classifier_answering_nonsense_withholds_its_chunks(
    monkeypatch: pytest.MonkeyPatch, answer: object
) -> None:
    """A wrong number or kind of results is a classifier failure, not a pass."""
    guard = guard_for(RULES)
    assert guard.recognizers is not None
    monkeypatch.setattr(guard.recognizers, "classify_many", lambda texts: answer)
    result = run(guard, "sync")
    assert result.allowed == []
    assert {d.stage for d in result.decisions} == {"labels"}
    assert "wrong number or kind of results" in result.decisions[0].reason


def test_a_failing_check_only_withholds_the_chunk_it_failed_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A check that breaks on one chunk withholds that chunk alone; the other is still judged."""
    original = HintGuard.__call__

    def flaky(self: HintGuard, chunk: Chunk, request: Any) -> str | None:
        if "x_regex_hint" in chunk.metadata:
            raise RuntimeError("injected")
        return original(self, chunk, request)

    monkeypatch.setattr(HintGuard, "__call__", flaky)
    result = guard_for().check(QUERY, chunks(), access=ACCESS)
    assert [(d.allowed, d.stage) for d in result.decisions] == [(True, "passed"), (False, "hint")]


def test_labels_that_cannot_be_read_are_withheld_without_a_rule() -> None:
    """Array-like or nested classification metadata gives ``unclassified``, withheld even by a
    policy with no rule for it, and the reason names the metadata problem."""
    import numpy as np

    meta = {"tenant": "t", "clause_id": "PAYMENT_TERMS"}
    bad = [
        Chunk("Payable within 30 days.", {**meta, "classifications": np.array(["a", "b"])}, 0.9),
        Chunk("Payable within 30 days.", {**meta, "classifications": [["financial"]]}, 0.9),
        Chunk("Payable within 30 days.", {**meta, "classification": 7}, 0.9),
    ]
    result = guard_for(RULES).check(QUERY, [*bad, *chunks()], access=ACCESS)
    assert result.allowed_indices == (3, 4)
    for decision in result.decisions[:3]:
        assert decision.stage == "labels"
        assert decision.labels == {"unclassified"}
        assert "metadata 'classification" in decision.reason


def quoting(*args: Any, **_: Any) -> Any:
    """Raise with a message that quotes every chunk text it can find in its arguments."""
    texts = [a.text for a in args if isinstance(a, Chunk)]
    for arg in args:
        if isinstance(arg, list | tuple):
            texts += [x.text if isinstance(x, Chunk) else str(x) for x in arg]
    raise ValueError(f"cannot handle {texts!r}")


async def aquoting(*args: Any, **kwargs: Any) -> Any:
    return quoting(*args, **kwargs)


class Quoting:
    """A classifier whose failures quote the text it was given."""

    def classify_many(self, texts: Any) -> list[Classification]:
        return [Classification.failed(f"model said: {text.upper()}") for text in texts]

    async def aclassify_many(self, texts: Any) -> list[Classification]:
        return self.classify_many(texts)

    def bind(self, vocabulary: Any) -> Quoting:
        return self


SECRETS = ("late fees of $500", "due within 45 days of receipt")
LEAKS: list[tuple[str, Callable[[pytest.MonkeyPatch, Guard], None]]] = [
    ("domain", lambda mp, g: mp.setattr(g.query_checks[0], "decide", quoting)),
    ("hint", lambda mp, g: mp.setattr(HintGuard, "__call__", quoting)),
    ("clause", lambda mp, g: mp.setattr(ClauseGuard, "check_many", quoting)),
    ("combination", lambda mp, g: mp.setattr(CombinationGuard, "__call__", quoting)),
    (
        "recognizers",
        lambda mp, g: (
            mp.setattr(g.recognizers, "classify_many", quoting),
            mp.setattr(g.recognizers, "aclassify_many", aquoting),
        ),
    ),
]


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("inject", [i for _, i in LEAKS], ids=[n for n, _ in LEAKS])
def test_a_no_text_record_holds_no_text_from_a_failing_stage(
    monkeypatch: pytest.MonkeyPatch, inject: Callable[[pytest.MonkeyPatch, Guard], None], mode: str
) -> None:
    """An error message that quotes a chunk stays out of the no-text record: the chunks are
    withheld, and the record holds no run of their text."""
    guard = guard_for()
    inject(monkeypatch, guard)
    result = run(guard, mode)
    assert result.allowed == []
    assert all("fail closed" in d.reason for d in result.decisions)
    record = json.dumps(result.to_dict(include_text=False)).casefold()
    for secret in SECRETS:
        for word in secret.split():
            if len(word) >= 6:
                assert word.casefold() not in record, word


def test_a_classifier_error_quoting_the_chunk_is_scrubbed() -> None:
    """A model classifier's own error text quoting the chunk stays out of the no-text record."""
    guard = Guard(parse_policy(RULES), classifier=Quoting())
    result = guard.check(QUERY, chunks(), access=ACCESS)
    assert result.allowed == []
    assert all("model said" in d.reason for d in result.decisions)
    record = json.dumps(result.to_dict(include_text=False)).casefold()
    assert "receipt" not in record
    assert "invoices" not in record
