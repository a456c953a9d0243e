"""Calibration of the clause fingerprints' semantic signal: sweep each clause's ``min_score``
over labelled excerpts and recommend one per clause.

The signals are computed once (:func:`~.clauses.signal_table`: one embedding batch), then the
fingerprint is judged again at every grid point as the clause guard combines it. The rule:
among the thresholds at which the combined fingerprint's false-match rate stays at or below
``max_false_match``, take those where the semantic signal alone finds the most of the clause's
excerpts (it is what must find the clauses a regex misses: the regex's own recall on the data
it was written from says nothing about that), then those with the lowest combined false-match
rate, and of those the middle one (the edge of a flat stretch is the least stable on excerpts
it was not chosen on). A clause with no excerpts of its own gets the middle of its thresholds
with the fewest false matches; one with no feasible threshold gets no recommendation (its
regex alone already matches too much other text). With a split the choice is made on the tune
half, and the held-back half is measured at it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rag_guard_integrations.core.errors import ArgumentError
from rag_guard_integrations.evaluation.calibrate import grid
from rag_guard_integrations.evaluation.clauses import halves, is_own, rates, signal_table

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from rag_guard_integrations.evaluation.clauses import SignalTable
    from rag_guard_integrations.policy.schema import Policy

SCORE_GRID = grid(0.30, 0.95, 0.05)
DEFAULT_MAX_FALSE_MATCH = 0.04  # below the 0.05 target: unseen excerpts match a little more


@dataclass(frozen=True, slots=True)
class ClausePoint:
    """One clause's fingerprint at one ``min_score``: combined rates, and each signal's."""

    min_score: float
    recall: float | None
    false_match_rate: float | None
    regex: Mapping[str, float | None]
    semantic: Mapping[str, float | None]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready record."""
        return {
            "min_score": self.min_score,
            "recall": self.recall,
            "false_match_rate": self.false_match_rate,
            "regex": dict(self.regex),
            "semantic": dict(self.semantic),
        }


@dataclass(frozen=True, slots=True)
class ClauseCalibration:
    """One clause: the policy's threshold, the recommended one, and the curve (on the data it
    was chosen on), with the held-back half at both thresholds when there is a split."""

    clause_id: str
    current: ClausePoint
    recommended: ClausePoint | None
    curve: tuple[ClausePoint, ...]
    held_back_current: ClausePoint | None = None
    held_back_recommended: ClausePoint | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready record."""

        def point(p: ClausePoint | None) -> dict[str, Any] | None:
            return None if p is None else p.to_dict()

        record = {
            "current": point(self.current),
            "recommended": point(self.recommended),
            "curve": [p.to_dict() for p in self.curve],
        }
        if self.held_back_current is not None:
            record["held_back"] = {
                "current": point(self.held_back_current),
                "recommended": point(self.held_back_recommended),
            }
        return record


def point(table: SignalTable, policy: Policy, clause_id: str, min_score: float) -> ClausePoint:
    """The rates of ``clause_id``'s fingerprint on ``table`` at ``min_score``."""
    spec = policy.clauses[clause_id]
    own = [is_own(clause_id, category) for category in table.categories]
    combined = rates(table.accepted(spec, clause_id, min_score), own)
    semantic = rates([score >= min_score for score in table.semantic[clause_id]], own)
    regex = rates([hit is not False for hit in table.regex[clause_id]], own)
    return ClausePoint(min_score, combined["recall"], combined["false_match_rate"], regex, semantic)


def recommend(
    curve: Sequence[ClausePoint], max_false_match: float = DEFAULT_MAX_FALSE_MATCH
) -> ClausePoint | None:
    """The point the module's rule picks from ``curve``, or None when none is feasible.

    Example:
        >>> regex = {"recall": 0.8, "false_match_rate": 0.02}
        >>> curve = [ClausePoint(t, 1.0, f, regex, {"recall": r, "false_match_rate": f})
        ...          for t, r, f in [(0.3, 1.0, 0.08), (0.4, 0.9, 0.03), (0.5, 0.9, 0.03),
        ...                          (0.6, 0.9, 0.03), (0.7, 0.5, 0.02)]]
        >>> recommend(curve).min_score
        0.5
    """
    feasible = [p for p in curve if (p.false_match_rate or 0.0) <= max_false_match]
    if not feasible:
        return None

    def rank(p: ClausePoint) -> tuple[float, float]:
        return (p.semantic["recall"] or 0.0, -(p.false_match_rate or 0.0))

    best = max(rank(p) for p in feasible)
    tied = [p for p in feasible if rank(p) == best]
    return tied[(len(tied) - 1) // 2]


def calibrate_clauses(
    records: Sequence[Mapping[str, Any]],
    policy: Policy,
    *,
    split: bool = False,
    max_false_match: float = DEFAULT_MAX_FALSE_MATCH,
    scores: Sequence[float] = SCORE_GRID,
) -> list[ClauseCalibration]:
    """Sweep the ``min_score`` of every clause with a semantic signal and recommend one each.

    Args:
        records: Labelled excerpts (``text``, ``category``; ``contract_title`` for the split).
        policy: The policy whose semantic fingerprints are calibrated.
        split: Choose on the tune half only and measure the held-back half at the choice.
        max_false_match: The highest combined false-match rate a threshold may give.
        scores: The thresholds swept.
    """
    if not 0.0 <= max_false_match <= 1.0:
        raise ArgumentError(f"max_false_match={max_false_match!r} must be in [0, 1]")
    table = signal_table(records, policy)
    parts = halves(records) if split else {}
    chosen_on = table.subset(parts["tune"]) if split else table
    held = table.subset(parts["held_back"]) if split else None
    found = []
    for clause_id, spec in policy.clauses.items():
        if spec.semantic is None:
            continue
        curve = tuple(point(chosen_on, policy, clause_id, s) for s in scores)
        best = recommend(curve, max_false_match)
        current = spec.semantic.min_score
        found.append(
            ClauseCalibration(
                clause_id,
                point(chosen_on, policy, clause_id, current),
                best,
                curve,
                None if held is None else point(held, policy, clause_id, current),
                None
                if held is None or best is None
                else point(held, policy, clause_id, best.min_score),
            )
        )
    return found
