"""``rag-guard eval clauses``: clause fingerprints measured on real CUAD clauses."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from rag_guard_integrations import load_policy, parse_policy
from rag_guard_integrations.cli import main
from rag_guard_integrations.data.clause_examples import EXAMPLES_DIR
from rag_guard_integrations.evaluation.clauses import (
    CUAD_CATEGORIES,
    FALSE_MATCH_TARGET,
    RECALL_TARGET,
    SPLITS,
    evaluate_clauses,
    evaluate_split,
    load_records,
    split_of,
)

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

CUAD = "cuad_clauses.jsonl"
CHECKS = EXAMPLES_DIR / "checks.jsonl"
POLICY = load_policy("contracts")
# The clauses a chunk can be: the whole-contract (summary) clause is measured on none.
CLAUSES = [c for c, spec in POLICY.clauses.items() if not spec.whole_contract]


@pytest.fixture(scope="module")
def cuad_path(shared_data: Callable[[str], Path]) -> Path:
    """The real CUAD excerpts kept beside the repository."""
    return shared_data(CUAD)


@pytest.fixture(scope="module")
def cuad_records(cuad_path: Path) -> list[dict[str, object]]:
    """The CUAD excerpts as records."""
    return load_records(cuad_path)


@pytest.fixture(scope="module")
def cuad_result(cuad_records: list[dict[str, object]]) -> dict[str, object]:
    """The evaluation of the built-in contracts policy on CUAD."""
    return evaluate_clauses(cuad_records, POLICY)


def test_result_has_the_documented_shape(cuad_result: dict[str, object]) -> None:
    """One entry per policy clause: categories, the combined recall and false_match_rate in
    [0, 1], the regex's alone, and the semantic signal's with its threshold where it has one."""
    assert set(cuad_result) == {"clauses"}
    clauses = cuad_result["clauses"]
    assert isinstance(clauses, dict)
    assert list(clauses) == CLAUSES
    for clause_id, scores in clauses.items():
        spec = POLICY.clauses[clause_id]
        signals = {"regex"} | ({"semantic"} if spec.semantic is not None else set())
        assert set(scores) == {"categories", "recall", "false_match_rate"} | signals
        assert scores["categories"] == list(CUAD_CATEGORIES.get(clause_id, ()))
        assert 0.0 <= scores["false_match_rate"] <= 1.0
        if spec.semantic is not None:
            assert scores["semantic"]["min_score"] == spec.semantic.min_score
        if clause_id in CUAD_CATEGORIES:
            assert 0.0 <= scores["recall"] <= 1.0
            assert scores["recall"] >= scores["regex"]["recall"]
        else:
            assert scores["recall"] is None


def test_the_combined_fingerprint_is_the_regex_or_else_the_semantic_signal() -> None:
    """A clause the regex misses counts for the combined fingerprint when the semantic signal
    finds it; another clause's text counts for neither."""
    records = [
        {"text": "This Agreement is governed by the laws of Ohio.", "category": "Governing Law"},
        {"text": "All questions about this Agreement are decided under Ohio law.",
         "category": "Governing Law"},
        {"text": "Supplier shall carry liability insurance.", "category": "Insurance"},
    ]  # fmt: skip
    policy = parse_policy(
        "clauses:\n  GOVERNING_LAW:\n    intents: [law]\n"
        "    fingerprint: {regex: '\\bgoverned by\\b', semantic: {min_score: 0.5}}\n"
    )
    scores = evaluate_clauses(records, policy)["clauses"]["GOVERNING_LAW"]
    assert scores["regex"] == {"recall": 0.5, "false_match_rate": 0.0}
    assert scores["semantic"] == {"recall": 1.0, "false_match_rate": 0.0, "min_score": 0.5}
    assert (scores["recall"], scores["false_match_rate"]) == (1.0, 0.0)


def test_a_category_naming_a_clause_id_is_that_clause() -> None:
    """Excerpts labelled with a clause id (the package's check set) count for that clause."""
    records = [{"text": "Invoices are payable within 30 days.", "category": "PAYMENT_TERMS"},
               {"text": "Licensee may sublicense.", "category": "License Grant"}]  # fmt: skip
    scores = evaluate_clauses(records, POLICY)["clauses"]["PAYMENT_TERMS"]
    assert (scores["recall"], scores["regex"]["recall"]) == (1.0, 1.0)
    assert scores["categories"] == []


def test_the_check_set_measures_every_clause(capsys: pytest.CaptureFixture[str]) -> None:
    """The package's own check set gives a recall for every clause, unlike CUAD."""
    assert main(["eval", "clauses", "--data", str(CHECKS), "--json"]) == 0
    clauses = json.loads(capsys.readouterr().out)["clauses"]
    fingerprinted = [c for c, spec in POLICY.clauses.items() if spec.fingerprint is not None]
    assert all(clauses[c]["recall"] is not None for c in fingerprinted)


def test_mapping_names_real_categories_and_policy_clauses(
    cuad_records: list[dict[str, object]],
) -> None:
    """Every mapped CUAD category occurs in the data and every mapped clause is in the policy."""
    categories = {r["category"] for r in cuad_records}
    assert set(CUAD_CATEGORIES) <= set(POLICY.clauses)
    for mapped in CUAD_CATEGORIES.values():
        assert set(mapped) <= categories


@pytest.mark.parametrize("clause_id", sorted(CUAD_CATEGORIES))
def test_fingerprints_reach_their_target_on_real_clauses(
    cuad_result: dict[str, dict[str, dict[str, float]]], clause_id: str
) -> None:
    """Recall >= 0.9 and false-match rate <= 0.05 for every mapped clause id."""
    scores = cuad_result["clauses"][clause_id]
    assert scores["false_match_rate"] <= FALSE_MATCH_TARGET
    assert scores["recall"] >= RECALL_TARGET


def test_rates_are_shares_of_matched_excerpts() -> None:
    """Recall counts the clause's own categories, the false-match rate every other one."""
    records = [
        {"text": "This Agreement is governed by the laws of Ohio.", "category": "Governing Law"},
        {"text": "Ohio it is.", "category": "Governing Law"},
        {"text": "The deal is construed under the laws of Peru.", "category": "Insurance"},
        {"text": "Supplier shall carry insurance.", "category": "Insurance"},
        {"text": "Licensee pays royalties.", "category": "License Grant"},
    ]
    scores = evaluate_clauses(records, POLICY)["clauses"]["GOVERNING_LAW"]
    assert scores["recall"] == 0.5
    assert scores["false_match_rate"] == pytest.approx(1 / 3)


def test_text_is_normalised_before_matching() -> None:
    """A zero-width space or full-width letters in an excerpt do not hide the clause."""
    texts = ["governed by the ｌａｗｓ of Ohio", "gov\u200berned by the laws of Peru"]
    records = [{"text": text, "category": "Governing Law"} for text in texts]
    assert evaluate_clauses(records, POLICY)["clauses"]["GOVERNING_LAW"]["recall"] == 1.0


def test_clause_without_fingerprint_accepts_every_excerpt() -> None:
    """A clause with no fingerprint lets everything through, so both rates are 1."""
    policy = parse_policy("clauses:\n  GOVERNING_LAW:\n    intents: ['governing law']\n")
    records = [{"text": "a", "category": "Governing Law"}, {"text": "b", "category": "Insurance"}]
    scores = evaluate_clauses(records, policy)["clauses"]["GOVERNING_LAW"]
    assert (scores["recall"], scores["false_match_rate"]) == (1.0, 1.0)


def test_record_without_text_or_category_is_a_clear_error() -> None:
    """A record missing its fields names its position and the fields it needs."""
    with pytest.raises(ValueError, match=r"record 1 needs string fields 'text' and 'category'"):
        evaluate_clauses([{"text": "x", "category": "y"}, {"text": 3}], POLICY)


def test_cli_json_prints_the_evaluation(
    capsys: pytest.CaptureFixture[str], cuad_path: Path, cuad_result: dict[str, object]
) -> None:
    """``eval clauses --json`` prints exactly what evaluate_clauses returns."""
    assert main(["eval", "clauses", "--data", str(cuad_path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == cuad_result


def test_cli_table_lists_every_clause(capsys: pytest.CaptureFixture[str], cuad_path: Path) -> None:
    """Without --json the command prints a table with one row per clause: combined, regex and
    semantic recall and false-match rate, and the target."""
    assert main(["eval", "clauses", "--data", str(cuad_path), "--policy", "contracts"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "all 300 excerpts"
    assert out.splitlines()[1].split() == [
        "clause", "recall", "regex", "semantic", "false", "match", "regex", "semantic", "on",
        "target",
    ]  # fmt: skip
    for clause_id in CLAUSES:
        assert clause_id in out
    assert "CONTRACT_OVERVIEW" not in out
    assert "target: recall >= 0.9" in out


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"text": "a", "category": "b"}\nnot json\n', "line 2: not valid JSON"),
        ("[1, 2]\n", "line 1: expected a JSON object"),
        ("\n\n", "no records"),
        ('{"text": "a"}\n', "record 0 needs string fields"),
    ],
)
def test_cli_bad_data_is_one_line_on_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, message: str
) -> None:
    """Malformed data exits 2 with one line naming the problem, never a traceback."""
    data = tmp_path / "bad.jsonl"
    data.write_text(content, encoding="utf-8")
    assert main(["eval", "clauses", "--data", str(data), "--json"]) == 2
    err = capsys.readouterr().err
    assert message in err
    assert len(err.strip().splitlines()) == 1


def test_cli_missing_data_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A data path that does not exist is a usage error naming the path."""
    missing = tmp_path / "nope.jsonl"
    assert main(["eval", "clauses", "--data", str(missing)]) == 2
    assert "nope.jsonl" in capsys.readouterr().err


def test_split_is_by_document_and_fixed() -> None:
    """Excerpts of one contract share a half, and the half depends on the document name only."""
    first = {"contract_title": "ACME-EX-10.1-SUPPLY AGREEMENT", "text": "a", "category": "x"}
    second = {**first, "text": "something else entirely"}
    assert split_of(first) == split_of(second) == "held_back"
    assert split_of({"document_name": "Other", "text": "a"}) in SPLITS


def test_split_result_has_both_halves_that_add_up(
    cuad_records: list[dict[str, object]],
) -> None:
    """``--split`` reports the tune and held-back halves, which together hold every excerpt."""
    result = evaluate_split(cuad_records, POLICY)
    assert set(result["split"]) == set(SPLITS)
    assert sum(part["records"] for part in result["split"].values()) == len(cuad_records)
    for part in result["split"].values():
        assert list(part["clauses"]) == CLAUSES
        assert 0.0 <= part["pooled_recall"] <= 1.0


def test_held_back_half_stays_near_the_tuned_half(cuad_records: list[dict[str, object]]) -> None:
    """Pooled recall on the held-back half is within 0.05 of the half the patterns were tuned on."""
    halves = evaluate_split(cuad_records, POLICY)["split"]
    assert halves["tune"]["pooled_recall"] - halves["held_back"]["pooled_recall"] <= 0.05


def test_cli_split_table_shows_both_halves(
    capsys: pytest.CaptureFixture[str], cuad_path: Path
) -> None:
    """``eval clauses --split`` prints a table per half and each half's pooled recall."""
    assert main(["eval", "clauses", "--data", str(cuad_path), "--split"]) == 0
    out = capsys.readouterr().out
    assert "\ntune half: " in out
    assert "\nheld-back half: " in out
    assert "tune half: pooled recall " in out
    assert "held-back half: pooled recall " in out
