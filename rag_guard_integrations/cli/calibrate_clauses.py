"""``rag-guard calibrate --clauses``: each clause fingerprint's semantic threshold, swept over
labelled excerpts and recommended (on the tune half with ``--split``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rag_guard_integrations.cli.console import print_json, table
from rag_guard_integrations.core.errors import DataError
from rag_guard_integrations.evaluation.calibrate_clauses import (
    DEFAULT_MAX_FALSE_MATCH,
    calibrate_clauses,
)
from rag_guard_integrations.evaluation.clauses import load_records
from rag_guard_integrations.policy.loader import load_policy

if TYPE_CHECKING:
    import argparse

    from rag_guard_integrations.evaluation.calibrate_clauses import ClausePoint

EXIT_OK, EXIT_NO_POINT = 0, 1
HEADER = (
    "clause", "at", "min_score", "recall", "regex", "semantic",
    "false match", "regex", "semantic",
)  # fmt: skip


def run_clauses(args: argparse.Namespace) -> int:
    """Print (or ``--json``) the sweep; exit 1 when a clause has no feasible threshold."""
    from pathlib import Path  # noqa: PLC0415

    limit = DEFAULT_MAX_FALSE_MATCH if args.max_false_match is None else args.max_false_match
    policy = load_policy(args.policy or "contracts")
    if not any(spec.semantic for spec in policy.clauses.values()):
        raise DataError(f"policy {policy.name} has no semantic fingerprint to calibrate")
    found = calibrate_clauses(
        load_records(Path(args.clauses)), policy, split=args.split, max_false_match=limit
    )
    if args.json:
        print_json(
            {
                "policy": policy.name,
                "max_false_match": limit,
                "chosen_on": "tune" if args.split else "all",
                "clauses": {c.clause_id: c.to_dict() for c in found},
            }
        )
    else:
        chosen = "tune half" if args.split else "all excerpts"
        over = "the tune half" if args.split else "all excerpts"
        rows: list[tuple[Any, ...]] = []
        for c in found:
            points = [(f"current, {chosen}", c.current), (f"recommended, {chosen}", c.recommended)]
            if args.split:
                points += [
                    ("current, held back", c.held_back_current),
                    ("recommended, held back", c.held_back_recommended),
                ]
            rows += [_row(c.clause_id, name, p) for name, p in points if p is not None]
            if c.recommended is None:
                rows.append((c.clause_id, "recommended", "none", *["-"] * 6))
        print(table(HEADER, rows))
        print(
            f"\nrule: on {over}, the combined false-match rate <= {limit}; then the most clauses "
            "found by the semantic signal alone, the fewest false matches, the middle threshold"
        )
    return EXIT_OK if all(c.recommended is not None for c in found) else EXIT_NO_POINT


def _row(clause_id: str, name: str, p: ClausePoint) -> tuple[Any, ...]:
    return (
        clause_id, name, p.min_score,
        _rate(p.recall), _rate(p.regex["recall"]), _rate(p.semantic["recall"]),
        _rate(p.false_match_rate), _rate(p.regex["false_match_rate"]),
        _rate(p.semantic["false_match_rate"]),
    )  # fmt: skip


def _rate(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"
