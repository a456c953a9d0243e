"""Calibration of the domain guard: sweep both similarity thresholds over labelled queries.

Each query is retrieved and embedded once; its :class:`DomainSignals` are then re-judged at every
grid point with the pure :func:`tier_for`, so a sweep of thousands of points costs no embedding.
With a split (:func:`sweep_split`) the thresholds are chosen on the tune half of the queries and
measured on the held-back half as well (:func:`~rag_guard_integrations.evaluation.split.half_of`
of the query text). A policy with a ``kinds`` section is judged with its kind tier and everyday
veto; the kind tier's ``min_margin`` is swept too, with the similarity pair fixed at the one
recommended (or the current one when none is).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rag_guard_integrations.core.errors import ArgumentError, DataError, MissingExtraError
from rag_guard_integrations.evaluation.split import SPLITS, half_of
from rag_guard_integrations.guards.domain import REJECTING, TIERS, DomainSignals, tier_for

if TYPE_CHECKING:
    from collections.abc import Sequence

    from rag_guard_integrations.policy.schema import KindSpec


def grid(start: float, stop: float, step: float) -> tuple[float, ...]:
    """Evenly spaced thresholds from ``start`` to ``stop`` inclusive, rounded to 4 places."""
    if step <= 0 or stop < start:
        raise ArgumentError(
            f"a grid needs step > 0 and stop >= start, got {start}..{stop} by {step}"
        )
    count = round((stop - start) / step)
    return tuple(round(start + i * step, 4) for i in range(count + 1))


MIN_GRID = grid(0.20, 0.80, 0.01)
ROOT_GRID = grid(0.00, 0.60, 0.02)
MARGIN_GRID = grid(-0.10, 0.40, 0.01)


@dataclass(frozen=True, slots=True)
class SweepPoint:
    """Outcome of one pair of thresholds over the labelled queries."""

    root_min_similarity: float
    min_similarity: float
    pass_rate: float | None
    block_rate: float | None
    tiers_in: dict[str, int]
    tiers_out: dict[str, int]
    kind_min_margin: float | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready record."""
        return {
            "root_min_similarity": self.root_min_similarity,
            "min_similarity": self.min_similarity,
            "kind_min_margin": self.kind_min_margin,
            "pass_rate": self.pass_rate,
            "block_rate": self.block_rate,
            "tiers_in_domain": self.tiers_in,
            "tiers_out_of_domain": self.tiers_out,
        }


@dataclass(frozen=True, slots=True)
class Sweep:
    """Both one-dimensional curves, the current thresholds and the recommended ones.

    ``min_curve`` varies ``min_similarity`` at the current ``root_min_similarity``;
    ``root_curve`` varies ``root_min_similarity`` at the current ``min_similarity``.
    ``recommended`` comes from the full grid and is None when no point reaches ``target``.
    With a kind tier, ``margin_curve`` varies its ``min_margin`` at the recommended pair (or
    the current one) and ``recommended_margin`` is its best point, chosen the same way.
    """

    target: float
    queries_in: int
    queries_out: int
    current: SweepPoint
    min_curve: tuple[SweepPoint, ...]
    root_curve: tuple[SweepPoint, ...]
    recommended: SweepPoint | None
    margin_curve: tuple[SweepPoint, ...] = ()
    recommended_margin: SweepPoint | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready record."""
        margin = self.recommended_margin
        return {
            "target": self.target,
            "queries": {"in_domain": self.queries_in, "out_of_domain": self.queries_out},
            "current": self.current.to_dict(),
            "recommended": self.recommended.to_dict() if self.recommended else None,
            "recommended_margin": margin.to_dict() if margin else None,
            "min_similarity_curve": [p.to_dict() for p in self.min_curve],
            "root_min_similarity_curve": [p.to_dict() for p in self.root_curve],
            "kind_min_margin_curve": [p.to_dict() for p in self.margin_curve],
        }


def evaluate_point(
    signals: Sequence[DomainSignals],
    labels: Sequence[bool],
    root_min: float,
    dense_min: float,
    kinds: KindSpec | None = None,
) -> SweepPoint:
    """Per-tier counts, in-domain pass rate and out-of-domain block rate at one threshold pair
    (and the kind thresholds of ``kinds``)."""
    inside: Counter[str] = Counter()
    outside: Counter[str] = Counter()
    for signal, in_domain in zip(signals, labels, strict=True):
        (inside if in_domain else outside)[tier_for(signal, root_min, dense_min, kinds)] += 1
    n_in, n_out = sum(inside.values()), sum(outside.values())
    passed = n_in - sum(inside[t] for t in REJECTING)
    blocked = sum(outside[t] for t in REJECTING)
    return SweepPoint(
        root_min, dense_min,
        passed / n_in if n_in else None,
        blocked / n_out if n_out else None,
        {t: inside[t] for t in TIERS}, {t: outside[t] for t in TIERS},
        None if kinds is None else kinds.min_margin,
    )  # fmt: skip


def sweep(
    signals: Sequence[DomainSignals],
    labels: Sequence[bool],
    *,
    current: tuple[float, float] = (0.20, 0.45),
    target: float = 0.95,
    min_grid: Sequence[float] = MIN_GRID,
    root_grid: Sequence[float] = ROOT_GRID,
    kinds: KindSpec | None = None,
) -> Sweep:
    """Sweep ``(root_min_similarity, min_similarity)`` and recommend a pair.

    The recommendation keeps the in-domain pass rate at or above ``target`` and, among such
    pairs, blocks the most out-of-domain queries, then passes the most in-domain ones, then
    stays closest to ``current``. With no out-of-domain queries nothing can be measured as
    blocked, so it takes the strictest pair that still reaches ``target``.

    Example:
        >>> signals = [DomainSignals(similarity=0.7), DomainSignals(similarity=0.4)]
        >>> sweep(signals, [True, False]).recommended.min_similarity
        0.45
    """
    if len(signals) != len(labels):
        raise ArgumentError(f"{len(signals)} signals but {len(labels)} labels; pass one per query")
    if not any(labels):
        raise DataError("calibration needs in-domain queries; label some with in_domain: true")
    if not 0.0 < target <= 1.0:
        raise ArgumentError(f"target={target!r} must be in (0, 1]")
    root_now, min_now = current

    def point(root: float, dense: float, at: KindSpec | None = kinds) -> SweepPoint:
        return evaluate_point(signals, labels, root, dense, at)

    recommended = recommend([point(r, m) for r in root_grid for m in min_grid], target, current)
    margin_curve: tuple[SweepPoint, ...] = ()
    recommended_margin = None
    if kinds is not None:
        pair = (
            current
            if recommended is None
            else (recommended.root_min_similarity, recommended.min_similarity)
        )
        margin_curve = tuple(
            point(*pair, kinds.model_copy(update={"min_margin": m})) for m in MARGIN_GRID
        )
        recommended_margin = recommend(margin_curve, target, pair, kinds.min_margin)
    return Sweep(
        target=target,
        queries_in=sum(labels),
        queries_out=len(labels) - sum(labels),
        current=point(root_now, min_now),
        min_curve=tuple(point(root_now, m) for m in min_grid),
        root_curve=tuple(point(r, min_now) for r in root_grid),
        recommended=recommended,
        margin_curve=margin_curve,
        recommended_margin=recommended_margin,
    )


@dataclass(frozen=True, slots=True)
class SplitSweep:
    """A sweep on the tune half of :func:`~rag_guard_integrations.evaluation.split.half_of`
    (by query text), and the held-back half judged at the current and the recommended pair."""

    tune: Sweep
    held_back_current: SweepPoint
    held_back_recommended: SweepPoint | None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready record."""
        recommended = self.held_back_recommended
        return {
            "tune": self.tune.to_dict(),
            "held_back": {
                "current": self.held_back_current.to_dict(),
                "recommended": recommended.to_dict() if recommended else None,
            },
        }


def sweep_split(
    signals: Sequence[DomainSignals],
    labels: Sequence[bool],
    queries: Sequence[str],
    *,
    current: tuple[float, float] = (0.20, 0.45),
    target: float = 0.95,
    kinds: KindSpec | None = None,
) -> SplitSweep:
    """:func:`sweep` on the queries of the tune half only; the held-back half is measured at
    the pair chosen there, so the choice is judged on queries it never saw.

    Example:
        >>> queries = ["steel", "cement", "weather", "films"]
        >>> signals = [DomainSignals(similarity=s) for s in (0.7, 0.6, 0.3, 0.4)]
        >>> result = sweep_split(signals, [True, True, False, False], queries, target=0.5)
        >>> result.held_back_recommended.block_rate
        1.0
    """
    if not len(signals) == len(labels) == len(queries):
        raise ArgumentError(
            f"{len(signals)} signals, {len(labels)} labels and {len(queries)} queries; pass one "
            "of each per query"
        )
    halves: dict[str, list[int]] = {half: [] for half in SPLITS}
    for index, query in enumerate(queries):
        halves[half_of(query)].append(index)
    tune, held = halves["tune"], halves["held_back"]
    result = sweep(
        [signals[i] for i in tune],
        [labels[i] for i in tune],
        current=current,
        target=target,
        kinds=kinds,
    )
    held_signals, held_labels = [signals[i] for i in held], [labels[i] for i in held]
    chosen = result.recommended
    margin = result.recommended_margin
    chosen_kinds = kinds
    if kinds is not None and margin is not None and margin.kind_min_margin is not None:
        chosen_kinds = kinds.model_copy(update={"min_margin": margin.kind_min_margin})
    return SplitSweep(
        tune=result,
        held_back_current=evaluate_point(held_signals, held_labels, *current, kinds),
        held_back_recommended=None
        if chosen is None
        else evaluate_point(
            held_signals,
            held_labels,
            chosen.root_min_similarity,
            chosen.min_similarity,
            chosen_kinds,
        ),
    )


def recommend(
    points: Sequence[SweepPoint],
    target: float,
    current: tuple[float, float],
    margin: float | None = None,
) -> SweepPoint | None:
    """The best feasible point (see :func:`sweep`), or None when none reaches ``target``;
    ``margin`` is the current kind margin, for the distance along a margin curve."""
    feasible = [p for p in points if p.pass_rate is not None and p.pass_rate >= target]
    if not feasible:
        return None
    if all(p.block_rate is None for p in feasible):
        return max(feasible, key=lambda p: (p.min_similarity, p.root_min_similarity))

    def rank(point: SweepPoint) -> tuple[float, float, float]:
        distance = abs(point.root_min_similarity - current[0]) + abs(
            point.min_similarity - current[1]
        )
        if margin is not None and point.kind_min_margin is not None:
            distance += abs(point.kind_min_margin - margin)
        return (point.block_rate or 0.0, point.pass_rate or 0.0, -distance)

    return max(feasible, key=rank)


def plot(result: Sweep, path: str | Path) -> Path:
    """Write a PNG of pass rate and block rate against each threshold; returns the path."""
    try:
        # A bare Figure draws without pyplot, so a notebook's plotting backend is left alone.
        from matplotlib.figure import Figure  # noqa: PLC0415 - the plot extra is optional
    except ImportError:
        raise MissingExtraError(
            "plotting needs matplotlib; run pip install 'rag-guard-integrations[plot]'"
        ) from None
    out = Path(path)
    if not out.suffix:  # matplotlib would add one: name the file it writes
        out = out.with_suffix(".png")
    curves = [
        (result.min_curve, "min_similarity", "dense threshold", result.recommended),
        (result.root_curve, "root_min_similarity", "root floor", result.recommended),
    ]
    if result.margin_curve:
        curves.append((result.margin_curve, "kind_min_margin", "kind margin",
                       result.recommended_margin))  # fmt: skip
    figure = Figure(figsize=(5.5 * len(curves), 4.2))
    axes = figure.subplots(1, len(curves), sharey=True)
    for axis, (curve, field, title, chosen) in zip(axes, curves, strict=True):
        xs = [getattr(p, field) for p in curve]
        axis.plot(xs, [p.pass_rate for p in curve], label="in-domain pass rate", color="tab:green")
        if result.queries_out:
            axis.plot(xs, [p.block_rate for p in curve], label="out-of-domain block rate",
                      color="tab:red")  # fmt: skip
        axis.axhline(result.target, color="grey", linestyle=":", label=f"target {result.target}")
        now = getattr(result.current, field)
        if now is not None:
            axis.axvline(now, color="black", linestyle="--", label="current")
        if chosen is not None:
            axis.axvline(getattr(chosen, field), color="tab:blue", linestyle="-.",
                         label="recommended")  # fmt: skip
        axis.set_title(title)
        axis.set_xlabel(field)
        axis.grid(alpha=0.3)
    rates = [r for curve, *_ in curves for p in curve
             for r in (p.pass_rate, p.block_rate) if r is not None]  # fmt: skip
    axes[0].set_ylabel("rate")
    axes[0].set_ylim(max(0.0, min(rates, default=0.0) - 0.05), 1.02)
    axes[-1].legend(loc="lower left", fontsize=8)
    figure.suptitle(f"Domain guard calibration ({result.queries_in} in, {result.queries_out} out)")
    figure.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(out, dpi=100)
    return out
