"""Tests for misconfiguration notices: missing access, unknown attributes, unproducible labels."""

from __future__ import annotations

import logging

import pytest

from rag_guard_integrations import AccessContext, Chunk, Guard, parse_policy
from rag_guard_integrations.classify import EmbeddingClassifier
from rag_guard_integrations.policy.lint import lint_text
from rag_guard_integrations.policy.loader import builtin_names

QUERY = "What is the termination notice period?"
MSA = Chunk(
    "Either party may terminate on thirty (30) days' written notice.",
    {"contract_type": "MSA", "clause_id": "TERMINATION_NOTICE"},
)
TYPO_RULE = """
version: 1
name: typo
labels: {financial: {}, entity_identifier: {}}
rules:
  - name: money_and_names
    trigger: {all_present: [finanical, entity_identifier]}
"""


@pytest.fixture(scope="module")
def contracts() -> Guard:
    return Guard.from_policy("contracts")


def messages(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]


def test_no_access_for_an_access_controlled_policy_warns(
    contracts: Guard, caplog: pytest.LogCaptureFixture
) -> None:
    """A contracts check without access logs a WARNING and says so on the result."""
    with caplog.at_level(logging.WARNING, logger="rag_guard_integrations"):
        result = contracts.check(QUERY, [MSA])
    assert result.allowed == []
    assert len(result.notices) == 1
    assert "brought no access" in result.notices[0]
    assert "contract_type" in result.notices[0]
    assert messages(caplog) == list(result.notices)
    assert result.audit()["notices"] == list(result.notices)


@pytest.mark.parametrize(
    ("given", "suggested"),
    [("Contract_Type", "contract_type"), ("contract_typ", "contract_type"), ("region", None)],
)
def test_undeclared_access_attribute_warns_with_the_near_name(
    contracts: Guard, caplog: pytest.LogCaptureFixture, given: str, suggested: str | None
) -> None:
    """An attribute the policy does not declare is named, with the near spelling or case."""
    with caplog.at_level(logging.WARNING, logger="rag_guard_integrations"):
        result = contracts.check(QUERY, [MSA], access={given: ["MSA"]})
    (notice,) = result.notices
    assert repr(given) in notice
    assert "has no effect" in notice
    if suggested is None:
        assert "did you mean" not in notice
    else:
        assert notice.endswith(f"did you mean {suggested!r}?")
    assert notice in messages(caplog)


def test_correct_access_gives_no_notice(contracts: Guard) -> None:
    """A well-formed request carries no notices."""
    result = contracts.check(QUERY, [MSA], access=AccessContext("ann", contract_type={"MSA"}))
    assert result.notices == ()
    assert len(result.allowed) == 1


def test_rule_label_nothing_produces_warns_once_and_notes_every_result(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A misspelt rule label is reported when the guard is built and on each result."""
    with caplog.at_level(logging.WARNING, logger="rag_guard_integrations"):
        guard = Guard(parse_policy(TYPO_RULE))
        first = guard.check("q", [Chunk("text")])
        second = guard.check("q", [Chunk("more")])
    (notice,) = first.notices
    assert "'money_and_names'" in notice
    assert "'finanical'" in notice
    assert notice.endswith("did you mean 'financial'?")
    assert second.notices == first.notices
    assert messages(caplog) == [notice]


def test_lint_reports_an_unproducible_rule_label_as_the_guard_notices_it() -> None:
    """Lint's problem for a misspelt rule label is the guard's notice, after the source."""
    _, problems = lint_text(TYPO_RULE, "typo.yaml")
    (notice,) = Guard(parse_policy(TYPO_RULE)).check("q", [Chunk("text")]).notices
    assert f"typo.yaml: {notice}" in problems


def test_an_unproducible_label_with_no_near_spelling_names_the_fix() -> None:
    """Without a close declared label, the notice says to declare it or add a recogniser."""
    text = TYPO_RULE.replace("finanical", "zzz")
    (notice,) = Guard(parse_policy(text)).check("q", [Chunk("text")]).notices
    assert "'zzz'" in notice
    assert notice.endswith("; declare the label or add a recogniser")


def test_model_classifier_can_produce_any_vocabulary_label(embedder: object) -> None:
    """With an embedding classifier attached, no rule label counts as unproducible."""
    guard = Guard(parse_policy(TYPO_RULE), classifier=EmbeddingClassifier(embedder))  # type: ignore[arg-type]
    assert guard.check("q", [Chunk("text")]).notices == ()


@pytest.mark.parametrize("name", builtin_names())
def test_builtin_policies_are_not_misconfigured(name: str) -> None:
    """Every built-in policy's rules trigger on labels something configured produces."""
    guard = Guard.from_policy(name)
    assert (
        guard.check("q", [], access={a: [] for a in guard.policy.access.attributes}).notices == ()
    )


def test_lint_reports_an_undeclared_label_a_pattern_gives_as_undeclared() -> None:
    """A rule label a recogniser gives but labels: does not declare is reported once, as
    undeclared; a label nothing gives is reported once, as unproducible."""
    text = TYPO_RULE + (
        "classifiers:\n  patterns:\n    - {name: code, label: finanical, regex: 'fin-\\\\d+'}\n"
    )
    _, problems = lint_text(text, "typo.yaml")
    mentioning = [p for p in problems if "'finanical'" in p]
    assert len(mentioning) == 1
    assert "that labels: does not declare" in mentioning[0]
    _, problems = lint_text(TYPO_RULE, "typo.yaml")
    assert len([p for p in problems if "'finanical'" in p]) == 1
