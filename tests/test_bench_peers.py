"""Smoke test of benchmarks/bench_peers.py at a small size, so that the comparison with the
peers cannot rot: it runs, both sides agree, and each section reports what it promises."""

from __future__ import annotations

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
    assert "RagContextGuard" not in alone
    assert "bare filter" not in alone
