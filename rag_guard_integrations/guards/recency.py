"""The recency guard: deny chunks older than the policy's ``max_age_days``, and undated ones."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone
from typing import TYPE_CHECKING

from rag_guard_integrations.core.reasons import Reason
from rag_guard_integrations.guards.stage import Quiet, StageSpec
from rag_guard_integrations.policy.loader import load_policy

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from rag_guard_integrations.core.chunk import Chunk
    from rag_guard_integrations.core.stage import Request
    from rag_guard_integrations.policy.loader import PolicyRef
    from rag_guard_integrations.policy.schema import Policy


# Clocks disagree a little: a date up to a day ahead of ours still counts as now.
FUTURE_SKEW = timedelta(days=1)


def utc_now() -> datetime:
    """The current time, timezone-aware (the default clock)."""
    return datetime.now(timezone.utc)


class RecencyGuard(Quiet):
    """Deny a chunk whose ``field`` date is more than ``max_age_days`` old, missing, or more
    than a day in the future (it would never grow old).

    The date may be a ``datetime``, a ``date``, an ISO 8601 string or POSIX seconds; a naive
    one counts as UTC. ``clock`` gives the current time (inject a fixed one in tests).

    Example:
        >>> from rag_guard_integrations import Chunk
        >>> guard = RecencyGuard("updated_at", 30,
        ...                      clock=lambda: datetime(2026, 12, 1, tzinfo=timezone.utc))
        >>> guard(Chunk("...", {"updated_at": "2026-11-20"}), None) is None
        True
        >>> guard(Chunk("...", {"updated_at": "2025-01-05"}), None)
        'updated_at 2025-01-05 is 695 days old, over the 30 allowed'
    """

    name = "recency"

    def __init__(
        self, field: str, max_age_days: float, clock: Callable[[], datetime] = utc_now
    ) -> None:
        self.field = field
        self.max_age = timedelta(days=max_age_days)
        self.clock = clock

    @classmethod
    def from_policy(cls, policy: PolicyRef) -> RecencyGuard | None:
        """The recency check of ``policy``, or None when it has no ``recency`` section."""
        policy = load_policy(policy)
        spec = policy.recency
        return None if spec is None else cls(spec.field, spec.max_age_days)

    def check_many(self, chunks: Sequence[Chunk], state: object = None) -> list[Reason | None]:
        """:meth:`__call__` for each chunk."""
        return [self(chunk, None) for chunk in chunks]

    def __call__(self, chunk: Chunk, request: Request | None) -> Reason | None:
        # Records say which rule of recency the chunk broke, never its date (the chunk's own).
        field = self.field
        value = chunk.metadata.get(field)
        when = _as_datetime(value)
        if when is None:
            shown = "" if value is None else f" ({value!r} is not a date)"
            return Reason(
                f"the chunk carries no {field} date{shown} (undated is denied)",
                f"the chunk carries no {field} date (undated is denied)",
            )
        age = self.clock() - when
        if age < -FUTURE_SKEW:
            # A date ahead of the clock would pass for ever: it is a mistake or an evasion.
            return Reason(
                f"{field} {value} is in the future (denied)", f"{field} is in the future (denied)"
            )
        if age > self.max_age:
            allowed = self.max_age.days
            return Reason(
                f"{field} {value} is {age.days} days old, over the {allowed} allowed",
                f"{field} is older than the {allowed} days allowed",
            )
        return None


def _as_datetime(value: object) -> datetime | None:
    if isinstance(value, datetime):
        when = value
    elif isinstance(value, date):
        when = datetime(value.year, value.month, value.day)
    elif isinstance(value, str):
        try:
            when = datetime.fromisoformat(value.strip())
        except ValueError:
            return None
    elif isinstance(value, int | float) and not isinstance(value, bool):
        try:
            return datetime.fromtimestamp(value, timezone.utc)
        except (OverflowError, OSError, ValueError):
            return None
    else:
        return None
    return when if when.tzinfo is not None else when.replace(tzinfo=timezone.utc)


def _stage(policy: Policy, inputs: object) -> RecencyGuard | None:
    return RecencyGuard.from_policy(policy)


STAGE = StageSpec("recency", "recency", "chunk", _stage)
