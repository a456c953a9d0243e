"""Smoke test of benchmarks/bench_peers.py at a small size, so that the comparison with the
peers cannot rot: it runs, both sides agree, and each section reports what it promises."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from collections.abc import Iterator

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


@pytest.fixture(scope="module")
def bench() -> Iterator[Any]:
    sys.path.insert(0, str(BENCHMARKS))
    try:
        import bench_peers  # a script folder, not a package

        yield bench_peers
    finally:
        sys.path.remove(str(BENCHMARKS))


def test_combination_agrees_with_rag_context_guard_and_stays_safe(bench: Any) -> None:
    """On every random set both reach the same verdict and rules, and our subset is safe."""
    [row] = bench.compare_combination((10,), runs=40)
    assert row["sets"] == bench.SETS
    for key in ("same_is_safe", "same_rules", "ours_allowed_safe"):
        assert row[key] == row["sets"], key
    assert row["ours"]["median_us"] > 0
    assert row["ours_peak_kib"] > 0


def test_clause_guard_is_never_looser_than_the_bare_filter(bench: Any) -> None:
    """The contracts policy lets through at most what the bare metadata filter does."""
    [row] = bench.compare_clause((10,), runs=40)
    assert 0 < row["ours_passed"] <= row["bare_passed"]


def test_patterns_report_speed_and_quality_for_both(bench: Any) -> None:
    """Both classifiers are timed on both corpora (ours also with the names recognisers) and
    scored on the six shared entity types."""
    patterns = bench.compare_patterns(limit=12, rounds=1)
    for corpus in ("pii_samples", "cuad_clauses"):
        for side in ("presidio", "ours", "ours_names"):
            assert patterns["corpora"][corpus][side]["mb_per_s"] > 0
        assert patterns["corpora"][corpus]["ours"]["peak_kib"] > 0
        assert patterns["corpora"][corpus]["names_kept"] > 0
    assert set(patterns["quality"]["presidio"]) == set(patterns["quality"]["ours"])
    assert len(patterns["quality"]["ours"]) == 6
    table = bench.report(
        {
            "combination": bench.compare_combination((10,), runs=20),
            "patterns": patterns,
            "clause": bench.compare_clause((10,), runs=20),
        }
    )
    for section in ("RagContextGuard", "Presidio", "bare filter"):
        assert section in table
    alone = bench.report({"patterns": patterns})
    assert "Presidio" in alone
    assert "kept with names" in alone
    assert "peak KiB ours" in alone
    assert "RagContextGuard" not in alone
    assert "bare filter" not in alone


def test_only_runs_the_comparisons_named(bench: Any, capsys: pytest.CaptureFixture[str]) -> None:
    """``--only clause`` reports the clause comparison and nothing else."""
    assert bench.main(["--quick", "--only", "clause", "--json"]) == 0
    assert list(json.loads(capsys.readouterr().out)) == ["clause"]


def test_patterns_flag_is_only_patterns(bench: Any, capsys: pytest.CaptureFixture[str]) -> None:
    """``--patterns`` selects the pattern comparison as ``--only patterns`` does, alongside
    any other ``--only``."""
    assert bench.main(["--quick", "--patterns", "--only", "clause", "--json"]) == 0
    assert list(json.loads(capsys.readouterr().out)) == ["patterns", "clause"]


def test_hyperscan_comparison_times_every_pass(bench: Any) -> None:
    """The first-pass comparison times RE2's set, both Hyperscan modes and the scanner, and
    counts the patterns Hyperscan refuses."""
    import bench_hyperscan  # beside bench_peers, on the path the fixture sets

    result = bench_hyperscan.compare()
    for key in ("re2_set_us", "hyperscan_singlematch_us", "hyperscan_som_us", "scanner_us"):
        assert result[key] > 0, key
    assert result["texts"] > 0
