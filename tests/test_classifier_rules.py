"""Which rules need a classifier: lint's notes, the guard's load-time notice, and the labels a
chunk's text alone can get."""

from __future__ import annotations

import json
import logging

import pytest

from rag_guard_integrations import Guard, load_policy, parse_policy
from rag_guard_integrations.classify import PatternClassifier
from rag_guard_integrations.cli import main
from rag_guard_integrations.policy.producible import classifier_rules, recognised_labels

POLICY = """
version: 1
name: mixed
labels: {financial: {}, compensation: {}, person_name: {}}
classifiers: {builtin: {money: financial, person: person_name}}
rules:
  - {name: pay, trigger: {all_present: [compensation, person_name]}}
  - {name: money_person, trigger: {all_present: [financial, person_name]}}
"""


def test_a_rule_with_a_label_no_recogniser_gives_needs_a_classifier() -> None:
    """Only the rule whose trigger names an unrecognised label is listed, with that label."""
    (line,) = classifier_rules(parse_policy(POLICY))
    assert line.startswith("rule 'pay' needs a classifier")
    assert line.endswith("no recogniser gives 'compensation'")


def test_recognised_labels_are_the_recognisers_labels_and_unclassified() -> None:
    """Declared labels are not recognised ones: only recogniser labels count."""
    assert recognised_labels(parse_policy(POLICY)) == {"financial", "person_name", "unclassified"}


@pytest.mark.parametrize("pack", ["default", "finance", "hipaa", "gdpr"])
def test_headline_rules_of_every_pack_need_no_classifier(pack: str) -> None:
    """The cardholder, client-financials, health and national-id rules fire from text."""
    needing = " ".join(classifier_rules(load_policy(pack)))
    for rule in (
        "default_cardholder",
        "default_financials_client",
        "default_health_person",
        "default_national_id_person",
        "finance_cardholder_data",
        "hipaa_health_name",
        "gdpr_health_person",
    ):
        assert f"'{rule}'" not in needing


def test_lint_prints_the_rules_that_need_a_classifier_as_notes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``rag-guard lint default`` is OK (exit 0) and notes each classifier-only rule."""
    assert main(["lint", "default"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "default: OK"
    notes = [line for line in out if line.startswith("  note: ")]
    assert any("'default_compensation_employee'" in line for line in notes)
    assert not any("'default_cardholder'" in line for line in notes)
    assert main(["lint", "default", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] is True
    assert [f"  note: {n}" for n in report["notes"]["default"]] == notes


def test_a_guard_without_a_classifier_says_once_which_rules_need_one(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """An INFO record at build time names the rules; results carry no warning for it."""
    with caplog.at_level(logging.INFO, logger="rag_guard_integrations"):
        guard = Guard(parse_policy(POLICY))
        result = guard.check("q", [{"text": "Pay for Jane Roe: $100"}])
    infos = [
        r.getMessage()
        for r in caplog.records
        if r.levelno == logging.INFO and r.name == "rag_guard_integrations"
    ]
    assert len(infos) == 1
    assert "'mixed' has no classifier attached" in infos[0]
    assert "'pay'" in infos[0]
    assert result.notices == ()


def test_a_pattern_classifier_with_more_recognisers_counts_theirs() -> None:
    """Recognisers of an attached pattern classifier make a rule fire from text too."""
    text = POLICY.replace("{all_present: [compensation, person_name]}", "{all_present: [pii]}")
    text = text.replace("person_name: {}}", "person_name: {}, pii: {}}")
    policy = parse_policy(text)
    assert classifier_rules(policy)
    classifier = PatternClassifier(["email"])
    assert classifier_rules(policy, classifier.recognizers) == []
