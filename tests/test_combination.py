"""Tests for combination rules: parity scenarios, multi-hop linking, bridges, the safe subset."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rag_guard_integrations import ContextBlocked, Guard, parse_policy
from rag_guard_integrations.guards.combination import CombinationGuard, Labelled
from rag_guard_integrations.policy.schema import RuleSpec, TriggerSpec

POLICY = """
version: 1
linking: {keys: [entity, account_id]}
classify: never
rules:
  - name: financial_entity_reveal
    trigger: {all_present: [financial, entity_identifier]}
    message: Financial data combined with entity identifier
  - name: salary_names
    trigger: {all_present: [salary, employee_name]}
  - name: ab_rule
    trigger: {all_present: [a, b]}
  - name: bc_rule
    trigger: {all_present: [b, c]}
  - name: health_mention
    action: warn
    trigger: {all_present: [health]}
    message: Health data in context
  - name: linked_account
    trigger: {all_present: [balance, person], scope: linked}
"""


@pytest.fixture(scope="module")
def guard() -> Guard:
    return Guard(parse_policy(POLICY))


def chunk(text: str, *labels: str, **meta: Any) -> dict[str, Any]:
    return {"text": text, "meta": {"classifications": list(labels), **meta}}


def test_safe_set_passes(guard: Guard) -> None:
    """Chunks whose labels trigger no rule all pass and the result is safe."""
    result = guard.check("q", [chunk("a", "financial"), chunk("b", "public")])
    assert result.is_safe
    assert len(result.allowed) == 2


def test_financial_with_entity_blocks_with_the_right_rule(guard: Guard) -> None:
    """Financial plus entity identifier fires financial_entity_reveal and lists both carriers."""
    result = guard.check(
        "q", [chunk("rev", "financial"), chunk("acme", "entity_identifier"), chunk("x")]
    )
    assert not result.is_safe
    assert [v.rule for v in result.violations] == ["financial_entity_reveal"]
    assert result.violations[0].chunk_indices == (0, 1)
    assert result.violations[0].message == "Financial data combined with entity identifier"
    assert len(result.allowed) == 2


def test_violation_lists_every_carrier_not_one_per_label(guard: Guard) -> None:
    """All chunks carrying a trigger label are listed in the violation."""
    chunks = [chunk("1", "financial"), chunk("2", "financial"), chunk("3", "entity_identifier")]
    assert guard.check("q", chunks).violations[0].chunk_indices == (0, 1, 2)


def test_bridge_label_between_two_rules_is_reported(guard: Guard) -> None:
    """A, B, C fire ab_rule and bc_rule together; B is named as the bridge."""
    result = guard.check("q", [chunk("x", "a"), chunk("y", "b"), chunk("z", "c")])
    assert {v.rule for v in result.violations} == {"ab_rule", "bc_rule"}
    assert [(b.label, b.rules) for b in result.bridges] == [("b", ("ab_rule", "bc_rule"))]
    assert [d.allowed for d in result.decisions] == [True, False, True]


def test_block_and_warn_are_reported_apart(guard: Guard) -> None:
    """A warn rule lands in warnings, a block rule in violations; only block makes it unsafe."""
    result = guard.check(
        "q", [chunk("h", "health"), chunk("s", "salary"), chunk("e", "employee_name")]
    )
    assert [w.rule for w in result.warnings] == ["health_mention"]
    assert [v.rule for v in result.violations] == ["salary_names"]
    assert not result.is_safe
    assert result.decisions[0].allowed


def test_warn_only_leaves_the_set_safe(guard: Guard) -> None:
    """A warn-only rule records a warning and removes nothing."""
    result = guard.check("q", [chunk("h", "health")])
    assert result.is_safe
    assert result.warnings
    assert len(result.allowed) == 1


def test_two_independent_violations_are_both_reported(guard: Guard) -> None:
    """Two rules over disjoint labels both fire and both are reported."""
    chunks = [
        chunk("1", "financial"),
        chunk("2", "entity_identifier"),
        chunk("3", "salary"),
        chunk("4", "employee_name"),
    ]
    result = guard.check("q", chunks)
    assert {v.rule for v in result.violations} == {"financial_entity_reveal", "salary_names"}
    assert [d.index for d in result.decisions if d.allowed] == [0, 2]


@pytest.mark.parametrize(
    "item",
    [
        {"text": "no meta"},
        {"text": "none meta", "meta": None},
        {"page_content": "x", "metadata": None},
        {},
    ],
)
def test_missing_or_empty_metadata_and_text_are_handled(guard: Guard, item: dict[str, Any]) -> None:
    """Chunks without meta, with None meta or without text pass as unlabelled."""
    result = guard.check("q", [item])
    assert result.is_safe
    assert len(result.allowed) == 1


def test_empty_list_is_safe(guard: Guard) -> None:
    """An empty retrieved set is safe and has no refusal."""
    result = guard.check("q", [])
    assert result.is_safe
    assert result.allowed == []
    assert result.refusal is None


@pytest.mark.parametrize("bad", [None, "text", {"text": "x"}, 3])
def test_non_list_input_raises_type_error(guard: Guard, bad: Any) -> None:
    """Anything but a list of chunks is a TypeError naming what was passed."""
    with pytest.raises(TypeError, match="chunks must be a list"):
        guard.check("q", bad)


def test_linked_rule_fires_across_two_hops_with_its_chain(guard: Guard) -> None:
    """balance in A, account_id shared by A and B, entity shared by B and C, person in C."""
    chunks = [
        chunk("A", "balance", account_id="77"),
        chunk("B", account_id="77", entity="Acme"),
        chunk("C", "person", entity="acme"),
        chunk("D", "person", entity="Other"),
    ]
    result = guard.check("q", chunks)
    (violation,) = result.violations
    assert violation.rule == "linked_account"
    assert violation.chunk_indices == (0, 2)
    assert [(lk.a, lk.b, lk.key, lk.value) for lk in violation.links] == [
        (0, 1, "account_id", "77"),
        (1, 2, "entity", "acme"),
    ]
    assert result.decisions[3].allowed


def test_linked_rule_is_quiet_when_labels_sit_in_different_groups(guard: Guard) -> None:
    """balance and person in unlinked chunks do not fire a linked rule."""
    result = guard.check(
        "q", [chunk("A", "balance", account_id="1"), chunk("B", "person", entity="z")]
    )
    assert result.is_safe


def test_on_block_empty_and_raise() -> None:
    """on_block: empty withholds the whole set; raise raises ContextBlocked with the result."""
    chunks = [chunk("1", "a"), chunk("2", "b"), chunk("3")]
    empty = Guard(parse_policy(POLICY + "on_block: empty\n")).check("q", chunks)
    assert empty.allowed == []
    assert empty.refusal == "No authorized matching clause found."
    with pytest.raises(ContextBlocked) as caught:
        Guard(parse_policy(POLICY + "on_block: raise\n")).check("q", chunks)
    assert [v.rule for v in caught.value.result.violations] == ["ab_rule"]


def test_greedy_removes_the_label_with_fewest_carriers_then_lowest_score() -> None:
    """Fewest carriers goes first; on a tie the label whose best carrier scores lowest goes."""
    rule = RuleSpec(name="r", trigger=TriggerSpec(all_present=["x", "y"]))
    guard = CombinationGuard([rule])
    fewest = guard(
        [
            Labelled(0, frozenset({"x"})),
            Labelled(1, frozenset({"x"})),
            Labelled(2, frozenset({"y"})),
        ]
    )
    assert set(fewest.removed) == {2}
    tie = guard([Labelled(0, frozenset({"x"}), 0.9), Labelled(1, frozenset({"y"}), 0.3)])
    assert set(tie.removed) == {1}
    order = guard([Labelled(0, frozenset({"x"})), Labelled(1, frozenset({"y"}))])
    assert set(order.removed) == {1}


def test_duplicate_texts_are_distinct_chunks(guard: Guard) -> None:
    """Two chunks with the same text are judged by position, not merged."""
    result = guard.check("q", [chunk("same", "a"), chunk("same", "b"), chunk("same")])
    assert [d.allowed for d in result.decisions] == [True, False, True]


LABELS = ["a", "b", "c", "d", "e"]
rules_strategy = st.lists(
    st.tuples(
        st.lists(st.sampled_from(LABELS), min_size=1, max_size=3, unique=True),
        st.sampled_from(["block", "warn"]),
        st.sampled_from(["context", "linked"]),
    ),
    min_size=1,
    max_size=6,
)
chunks_strategy = st.lists(
    st.tuples(
        st.frozensets(st.sampled_from(LABELS), max_size=3),
        st.sampled_from(["k1", "k2", None]),
        st.one_of(st.none(), st.floats(0, 1)),
    ),
    max_size=12,
)


@settings(max_examples=300, deadline=None)
@given(rules=rules_strategy, items=chunks_strategy)
def test_no_block_rule_fires_on_the_allowed_subset(
    rules: list[tuple[list[str], str, str]],
    items: list[tuple[frozenset[str], str | None, float | None]],
) -> None:
    """For random rules and chunks, the output is an ordered subset on which no block rule fires,
    and chunks carrying no trigger label are never removed."""
    specs = [
        RuleSpec(name=f"r{i}", action=action, trigger=TriggerSpec(all_present=labels, scope=scope))
        for i, (labels, action, scope) in enumerate(rules)
    ]
    guard = CombinationGuard(specs, ["key"])
    labelled = [
        Labelled(i, labels, score, {"key": key} if key else {})
        for i, (labels, key, score) in enumerate(items)
    ]
    outcome = guard(labelled)
    kept = [item for item in labelled if item.index not in outcome.removed]
    assert not list(guard(kept).violations)
    trigger_labels = {
        label for spec in specs if spec.action == "block" for label in spec.trigger.all_present
    }
    for index in outcome.removed:
        assert labelled[index].labels & trigger_labels
    assert bool(outcome.violations) == bool(outcome.removed)


def nested(depth: int) -> Any:
    """A list nested ``depth`` levels deep around one value."""
    value: Any = "77"
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize(
    "value",
    [nested(5000), nested(2), {"id": "77"}, [["77"]], object()],
    ids=["nested_5000", "nested_2", "mapping", "list_of_lists", "object"],
)
def test_an_unreadable_linking_value_denies_that_chunk_alone(guard: Guard, value: Any) -> None:
    """A linking value that is not a scalar or a flat list denies its own chunk; the others
    are judged as usual and the audit record still builds."""
    chunks = [
        chunk("A", "balance", account_id=value),
        chunk("B", "financial"),
        chunk("C", "person", account_id="88"),
    ]
    result = guard.check("q", chunks)
    assert [d.allowed for d in result.decisions] == [False, True, True]
    assert result.decisions[0].stage == "linking"
    assert "linking key 'account_id'" in result.decisions[0].reason
    assert result.to_dict(include_text=True)["decisions"][0]["allowed"] is False


@pytest.mark.parametrize(
    "other",
    ["77", 77, "７７", "77\u200b", " 77 ", ["77"], "٧٧", "７７\u00ad"],
    ids=["same", "int", "full_width", "zero_width", "spaces", "list", "arabic_indic", "shy"],
)
def test_linking_values_are_normalised_like_text(guard: Guard, other: Any) -> None:
    """``77``, ``７７`` and ``77\\u200b`` are one account: the linked rule fires."""
    chunks = [chunk("A", "balance", account_id="77"), chunk("B", "person", account_id=other)]
    result = guard.check("q", chunks)
    assert [v.rule for v in result.violations] == ["linked_account"]
