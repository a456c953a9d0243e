"""``rag-guard calibrate --clauses``: each semantic threshold swept over labelled excerpts and
recommended by the documented rule, on the tune half with ``--split``."""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING

import pytest

from rag_guard_integrations import load_policy
from rag_guard_integrations.cli import main
from rag_guard_integrations.data.clause_examples import EXAMPLES_DIR
from rag_guard_integrations.evaluation.calibrate_clauses import (
    SCORE_GRID,
    ClausePoint,
    calibrate_clauses,
    recommend,
)
from rag_guard_integrations.evaluation.clauses import load_records
from rag_guard_integrations.evaluation.split import half_of

if TYPE_CHECKING:
    from pathlib import Path

CHECKS = EXAMPLES_DIR / "checks.jsonl"
POLICY = load_policy("contracts")


def curve_point(score: float, semantic: float | None, false_match: float) -> ClausePoint:
    """A point whose semantic recall and combined false-match rate are given."""
    rates = {"recall": semantic, "false_match_rate": false_match}
    return ClausePoint(score, 1.0, false_match, {"recall": 0.8, "false_match_rate": 0.0}, rates)


def test_the_rule_takes_the_middle_of_the_best_feasible_stretch() -> None:
    """Within the false-match limit: most semantic recall, then fewest false matches, then the
    middle threshold of what is left."""
    points = [(0.3, 1.0, 0.06), (0.4, 0.9, 0.03), (0.5, 0.9, 0.02), (0.6, 0.9, 0.02),
              (0.7, 0.9, 0.02), (0.8, 0.5, 0.0)]  # fmt: skip
    curve = [curve_point(*point) for point in points]
    chosen = recommend(curve, max_false_match=0.04)
    assert chosen is not None
    assert chosen.min_score == 0.6


def test_no_threshold_is_recommended_when_the_regex_alone_matches_too_much() -> None:
    """A clause whose every point exceeds the limit gets no recommendation."""
    assert recommend([curve_point(0.5, 0.9, 0.08), curve_point(0.9, 0.1, 0.06)], 0.04) is None


@pytest.fixture(scope="module")
def checks() -> list[dict[str, object]]:
    """The package's own check set: clauses written apart from the examples."""
    return load_records(CHECKS)


def test_each_semantic_clause_gets_a_curve_of_every_signal(checks: list[dict[str, object]]) -> None:
    """The regex is the same at every threshold, the semantic signal finds fewer clauses as
    the threshold rises, and the combined fingerprint matches at least what the regex does."""
    found = calibrate_clauses(checks, POLICY)
    assert [c.clause_id for c in found] == [
        c for c, spec in POLICY.clauses.items() if spec.semantic is not None
    ]
    for calibration in found:
        curve = calibration.curve
        assert [p.min_score for p in curve] == list(SCORE_GRID)
        assert len({(p.regex["recall"], p.regex["false_match_rate"]) for p in curve}) == 1
        recalls = [p.semantic["recall"] or 0.0 for p in curve]
        assert recalls == sorted(recalls, reverse=True)
        assert all(
            (p.false_match_rate or 0.0) >= (p.regex["false_match_rate"] or 0.0) for p in curve
        )


def test_with_a_split_the_choice_is_made_on_the_tune_half(checks: list[dict[str, object]]) -> None:
    """Excerpts are split by their contract title: the curve is the tune half's, and the
    held-back half is measured at the current and the recommended threshold."""
    titled = [{**r, "contract_title": f"check contract {i % 7}"} for i, r in enumerate(checks)]
    tune = [r for r in titled if half_of(str(r["contract_title"])) == "tune"]
    split = {c.clause_id: c for c in calibrate_clauses(titled, POLICY, split=True)}
    alone = {c.clause_id: c for c in calibrate_clauses(tune, POLICY)}
    for clause_id, calibration in split.items():
        assert calibration.curve == alone[clause_id].curve
        assert calibration.held_back_current is not None
        assert (calibration.held_back_recommended is None) == (calibration.recommended is None)


def test_cli_json_names_the_rule_and_every_clause(
    capsys: pytest.CaptureFixture[str], checks: list[dict[str, object]]
) -> None:
    """``calibrate --clauses F --json`` prints the limit and each clause's points."""
    code = main(["calibrate", "--clauses", str(CHECKS), "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code in (0, 1)
    assert (out["policy"], out["max_false_match"], out["chosen_on"]) == ("contracts", 0.04, "all")
    assert set(out["clauses"]["GOVERNING_LAW"]) == {"current", "recommended", "curve"}
    assert out["clauses"]["GOVERNING_LAW"]["current"]["min_score"] == 0.6


def test_cli_table_shows_current_and_recommended(capsys: pytest.CaptureFixture[str]) -> None:
    """Without --json each clause has a row at its current and its recommended threshold."""
    main(["calibrate", "--clauses", str(CHECKS), "--max-false-match", "0.05"])
    out = capsys.readouterr().out
    assert out.splitlines()[0].split()[:3] == ["clause", "at", "min_score"]
    assert re.search(r"^GOVERNING_LAW +current, all excerpts +0\.600 ", out, re.MULTILINE)
    assert re.search(r"^GOVERNING_LAW +recommended, all excerpts ", out, re.MULTILINE)
    assert "rule: on all excerpts, the combined false-match rate <= 0.05" in out


def test_cli_needs_one_source_and_a_semantic_policy(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Both sources at once is a usage error; a policy with nothing to calibrate is one line."""
    with pytest.raises(SystemExit) as usage:
        main(["calibrate", "--clauses", str(CHECKS), "--queries", "q.jsonl"])
    assert usage.value.code == 2
    assert "not allowed with argument" in capsys.readouterr().err
    plain = tmp_path / "plain.yaml"
    plain.write_text("clauses:\n  X:\n    intents: [x]\n    fingerprint: x\n", encoding="utf-8")
    assert main(["calibrate", "--clauses", str(CHECKS), "--policy", str(plain)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.endswith("has no semantic fingerprint to calibrate")
    assert len(err.splitlines()) == 1
