"""Run decision case files: each chunk's decision under a guard, compared with what the file
expects (``rag-guard policy test``) or with the decision under another policy
(``rag-guard policy diff``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rag_guard_integrations.core.errors import DataError

if TYPE_CHECKING:
    from rag_guard_integrations.authz.cases import Case, ChunkCase
    from rag_guard_integrations.core.decisions import ChunkDecision
    from rag_guard_integrations.engine.guard import Guard


@dataclass(frozen=True, slots=True)
class Decided:
    """One chunk's decision in one case: outcome (allow, deny, redact), stage, rule, reason."""

    case: str
    chunk: int
    outcome: str
    stage: str
    rule: str | None
    reason: str

    def brief(self) -> str:
        """``deny (authz)`` or ``deny (combination, rule default_cardholder)``."""
        rule = f", rule {self.rule}" if self.rule else ""
        return f"{self.outcome} ({self.stage}{rule})"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "case": self.case,
            "chunk": self.chunk,
            "outcome": self.outcome,
            "stage": self.stage,
            "rule": self.rule,
            "reason": self.reason,
        }


@dataclass(frozen=True, slots=True)
class Mismatch:
    """A decision that is not the one expected; ``expected`` as the file writes it."""

    decided: Decided
    expected: str

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {**self.decided.to_dict(), "expected": self.expected}


def decide(guard: Guard, case: Case) -> list[tuple[ChunkCase, Decided]]:
    """Each chunk of ``case`` with its decision under ``guard``."""
    items = case.items()
    result = guard.check(case.query, [item.as_input() for item in items], access=case.context())
    return [
        (item, _decided(case.name, decision))
        for item, decision in zip(items, result.decisions, strict=True)
    ]


def _decided(case: str, decision: ChunkDecision) -> Decided:
    if not decision.allowed:
        outcome = "deny"
    elif decision.redactions:
        outcome = "redact"
    else:
        outcome = "allow"
    stage = "passed" if decision.allowed else decision.stage
    return Decided(case, decision.index, outcome, stage, decision.rule, decision.reason)


def mismatches(guard: Guard, cases: list[Case]) -> tuple[int, list[Mismatch]]:
    """How many decisions were checked, and those that differ from what the cases expect
    (outcome, and stage and rule where the case names them)."""
    checked = 0
    found: list[Mismatch] = []
    for case in cases:
        for item, decided in decide(guard, case):
            if item.expect is None:
                raise DataError(
                    f"case {case.name!r} chunk {decided.chunk} has no expect; add allow, deny "
                    "or redact"
                )
            checked += 1
            wanted = (item.expect, item.stage or decided.stage, item.rule or decided.rule)
            if wanted != (decided.outcome, decided.stage, decided.rule):
                shown = item.expect + (f" ({item.stage})" if item.stage else "")
                shown += f", rule {item.rule}" if item.rule else ""
                found.append(Mismatch(decided, shown))
    return checked, found


def changes(old: Guard, new: Guard, cases: list[Case]) -> tuple[int, list[tuple[Decided, Decided]]]:
    """How many decisions were compared, and each that changes from ``old`` to ``new``
    (outcome, stage or rule)."""
    compared = 0
    changed: list[tuple[Decided, Decided]] = []
    for case in cases:
        for (_, before), (_, after) in zip(decide(old, case), decide(new, case), strict=True):
            compared += 1
            if (before.outcome, before.stage, before.rule) != (
                after.outcome,
                after.stage,
                after.rule,
            ):
                changed.append((before, after))
    return compared, changed
