"""Threshold calibration: pure sweeps on known signals, then the real bis guard and its CLI."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from rag_guard_integrations import load_policy
from rag_guard_integrations.cli import main
from rag_guard_integrations.data import DATA_DIR
from rag_guard_integrations.evaluation.calibrate import (
    Sweep,
    evaluate_point,
    grid,
    plot,
    recommend,
    sweep,
    sweep_split,
)
from rag_guard_integrations.evaluation.split import half_of
from rag_guard_integrations.guards.domain import DomainSignals

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

QUERIES = DATA_DIR / "bis_queries.jsonl"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def dense(score: float | None) -> DomainSignals:
    """Signals of a query with no term, identifier or root."""
    return DomainSignals(similarity=score, similarity_source="retriever")


# Four in-domain queries (one rooted) and three out-of-domain ones (one blocklisted).
SIGNALS = [
    dense(0.80), dense(0.60), DomainSignals(root=("water", "isi"), similarity=0.30),
    DomainSignals(identifier=("IS 269", "standard", 0)),
    DomainSignals(term="bitcoin"), dense(0.50), dense(0.20),
]  # fmt: skip
LABELS = [True, True, True, True, False, False, False]


def test_grid_is_inclusive_and_rounded() -> None:
    """A grid includes both ends and has no float drift."""
    assert grid(0.2, 0.3, 0.05) == (0.2, 0.25, 0.3)
    assert grid(0.0, 0.6, 0.02)[-1] == 0.6
    with pytest.raises(ValueError, match="step > 0"):
        grid(0.5, 0.4, 0.01)


def test_point_counts_tiers_and_rates() -> None:
    """One threshold pair gives per-tier counts and both rates."""
    point = evaluate_point(SIGNALS, LABELS, 0.20, 0.55)
    assert point.tiers_in == {"blocklist": 0, "identifier": 1, "root": 1, "kind": 0, "dense": 2,
                              "everyday": 0, "below_threshold": 0}  # fmt: skip
    assert point.tiers_out == {"blocklist": 1, "identifier": 0, "root": 0, "kind": 0,
                               "dense": 0, "everyday": 0, "below_threshold": 2}  # fmt: skip
    assert (point.pass_rate, point.block_rate) == (1.0, 1.0)
    loose = evaluate_point(SIGNALS, LABELS, 0.40, 0.45)
    assert (loose.pass_rate, loose.block_rate) == (0.75, 2 / 3)


def test_sweep_curves_are_monotonic_and_recommendation_is_feasible() -> None:
    """Raising a threshold never passes more in-domain nor blocks fewer out-of-domain queries."""
    result = sweep(SIGNALS, LABELS, current=(0.20, 0.45), target=0.75)
    for curve in (result.min_curve, result.root_curve):
        passes = [p.pass_rate or 0.0 for p in curve]
        blocks = [p.block_rate or 0.0 for p in curve]
        assert passes == sorted(passes, reverse=True)
        assert blocks == sorted(blocks)
    assert result.current.min_similarity == 0.45
    best = result.recommended
    assert best is not None
    assert best.pass_rate == 1.0
    assert best.block_rate == 1.0
    assert best.min_similarity == 0.51  # the feasible optimum closest to the current 0.45
    assert best.root_min_similarity == 0.20
    assert (result.queries_in, result.queries_out) == (4, 3)


def test_without_out_of_domain_queries_the_strictest_feasible_pair_wins() -> None:
    """With only in-domain queries, the highest thresholds that keep the target are chosen."""
    inside = [s for s, label in zip(SIGNALS, LABELS, strict=True) if label]
    result = sweep(inside, [True] * len(inside), target=0.75)
    assert result.recommended is not None
    assert result.recommended.min_similarity == 0.80
    assert result.recommended.block_rate is None


def test_unreachable_target_and_bad_input() -> None:
    """No feasible point gives None; mismatched or label-free input is a ValueError."""
    assert recommend([evaluate_point([dense(0.1)], [True], 0.2, 0.45)], 0.95, (0.2, 0.45)) is None
    with pytest.raises(ValueError, match="one per query"):
        sweep(SIGNALS, LABELS[:-1])
    with pytest.raises(ValueError, match="in_domain: true"):
        sweep([dense(0.5)], [False])
    with pytest.raises(ValueError, match="target"):
        sweep(SIGNALS, LABELS, target=1.5)


def test_plot_writes_a_png(tmp_path: Path) -> None:
    """The plot is a non-empty PNG file."""
    result = sweep(SIGNALS, LABELS, target=0.75)
    path = plot(result, tmp_path / "sub" / "curves.png")
    data = path.read_bytes()
    assert data.startswith(PNG_MAGIC)
    assert len(data) > 10_000


def test_cli_on_the_bundled_queries(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The real guard: the recommendation keeps the pass rate and the plot is written."""
    png = tmp_path / "curves.png"
    code = main(["calibrate", "--queries", str(QUERIES), "--plot", str(png), "--json"])
    assert code == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["policy"] == "bis"
    assert printed["queries"]["in_domain"] >= 70
    assert printed["queries"]["out_of_domain"] >= 30
    assert printed["recommended"]["pass_rate"] >= 0.95
    assert printed["recommended"]["block_rate"] >= printed["current"]["block_rate"]
    spec = load_policy("bis").domain
    assert spec is not None
    assert spec.kinds is not None
    assert printed["current"]["root_min_similarity"] == spec.root_min_similarity
    assert printed["current"]["kind_min_margin"] == spec.kinds.min_margin
    assert len(printed["min_similarity_curve"]) == 61
    assert len(printed["kind_min_margin_curve"]) == 51
    assert printed["recommended_margin"]["pass_rate"] >= 0.95
    assert png.read_bytes().startswith(PNG_MAGIC)
    assert printed["plot"] == str(png)


def test_cli_unreachable_target_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A target no thresholds reach is a finding: exit 1 and a note in the table."""
    queries = tmp_path / "queries.jsonl"
    # A blocklisted term rejects the first query at tier 1, whatever the thresholds.
    queries.write_text(
        '{"query": "price of bitcoin", "in_domain": true}\n'
        '{"query": "IS 2062 structural steel grades", "in_domain": true}\n',
        encoding="utf-8",
    )
    assert main(["calibrate", "--queries", str(queries), "--target", "1.0"]) == 1
    assert "no thresholds keep" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--target", "0"], "--target must be in (0, 1]"),
        (["--corpus", "nope"], "no bundled corpus 'nope'"),
    ],
)
def test_cli_bad_arguments_exit_2(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Bad arguments are one stderr line naming the value, exit 2."""
    assert main(["calibrate", "--queries", str(QUERIES), *args]) == 2
    err = capsys.readouterr().err
    assert message in err
    assert err.count("\n") == 1


def test_sweep_round_trips_to_json() -> None:
    """The sweep record is JSON-serialisable with both curves and the recommendation."""
    result: Sweep = sweep(SIGNALS, LABELS, target=0.75)
    record = json.loads(json.dumps(result.to_dict()))
    assert set(record) == {"target", "queries", "current", "recommended", "recommended_margin",
                           "min_similarity_curve", "root_min_similarity_curve",
                           "kind_min_margin_curve"}  # fmt: skip
    assert record["kind_min_margin_curve"] == []


def test_plot_without_a_suffix_returns_the_file_it_wrote(tmp_path: Path) -> None:
    """A path without a suffix gets ``.png``, and the returned path is the file written."""
    path = plot(sweep(SIGNALS, LABELS, target=0.75), tmp_path / "curves")
    assert path == tmp_path / "curves.png"
    assert path.read_bytes().startswith(PNG_MAGIC)


# --- choosing on a fixed split -----------------------------------------------------------------

NAMES = [f"query {i}" for i in range(40)]
TUNE = [q for q in NAMES if half_of(q) == "tune"]
HELD = [q for q in NAMES if half_of(q) == "held_back"]


def test_split_sweep_chooses_on_the_tune_half_only() -> None:
    """An out-of-domain query of the held-back half cannot move the choice; it is measured."""
    queries = [*TUNE[:4], *HELD[:3]]
    signals = [dense(0.8), dense(0.7), dense(0.3), dense(0.2), dense(0.8), dense(0.2), dense(0.75)]
    labels = [True, True, False, False, True, False, False]
    result = sweep_split(signals, labels, queries, current=(0.20, 0.45), target=1.0)
    alone = sweep(signals[:4], labels[:4], current=(0.20, 0.45), target=1.0)
    assert result.tune.recommended == alone.recommended
    assert (result.tune.queries_in, result.tune.queries_out) == (2, 2)
    held = result.held_back_recommended
    assert held is not None
    assert (held.pass_rate, held.block_rate) == (1.0, 0.5)
    assert result.held_back_current.min_similarity == 0.45
    assert set(result.to_dict()) == {"tune", "held_back"}


def test_split_sweep_needs_one_query_per_signal() -> None:
    """Signals, labels and queries of different lengths are a ValueError naming the counts."""
    with pytest.raises(ValueError, match="2 signals, 2 labels and 1 queries"):
        sweep_split([dense(0.5), dense(0.6)], [True, False], ["a"])


def test_policy_threshold_is_the_one_chosen_on_the_tune_half(
    shared_data: Callable[[str], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """The bis thresholds are what ``calibrate --split`` recommends on the bundled questions and
    CLINC150, and they hold on the held-back half: pass >= 0.97, and at most four of its ~830
    out-of-domain queries (CLINC150 and everyday questions that name a product) accepted."""
    clinc = shared_data("clinc_oos.json")
    names = ("", "products_", "everyday_", "fresh_", "final_")
    files = [str(DATA_DIR / f"bis_{name}queries.jsonl") for name in names]
    args = ["calibrate", "--queries", *files, "--clinc", str(clinc), "--split"]
    assert main([*args, "--target", "0.97", "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    spec = load_policy("bis").domain
    assert spec is not None
    assert spec.kinds is not None
    chosen = printed["tune"]["recommended"]
    assert (chosen["root_min_similarity"], chosen["min_similarity"]) == (
        spec.root_min_similarity,
        spec.min_similarity,
    )
    assert printed["tune"]["recommended_margin"]["kind_min_margin"] == spec.kinds.min_margin
    held = printed["held_back"]["recommended"]
    assert held["pass_rate"] >= 0.97
    assert held["block_rate"] >= 0.995
