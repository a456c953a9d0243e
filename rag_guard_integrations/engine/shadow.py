"""``mode: shadow``: evaluate and record everything, enforce only what is not in shadow mode.

The guard always evaluates the whole policy as if it were enforced; that result rides along
as ``GuardResult.shadow`` (so the audit records it, marked unenforced). What is applied is,
for a shadow policy, nothing at all, and for shadow rules, the evaluation without them.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from rag_guard_integrations.core.decisions import PASSED, ChunkDecision, GuardResult
from rag_guard_integrations.core.reasons import Reason
from rag_guard_integrations.engine.stages import set_stage

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from rag_guard_integrations.core.chunk import Chunk
    from rag_guard_integrations.guards.stage import SetStage
    from rag_guard_integrations.policy.schema import Policy

SHADOW_REASON = Reason.fixed("shadow mode: evaluated and recorded, not enforced")


@dataclass(frozen=True, slots=True)
class Shadow:
    """What a policy with shadow parts enforces: nothing (``whole``), or its rules that are
    not in shadow mode (``enforced``, None when none are left)."""

    whole: bool
    enforced: SetStage | None = None

    @classmethod
    def of(cls, policy: Policy) -> Shadow | None:
        """The shadow plan of ``policy``, or None when it has no shadow parts."""
        if policy.mode == "shadow":
            return cls(whole=True)
        kept = [rule for rule in policy.rules if rule.mode != "shadow"]
        if len(kept) == len(policy.rules):
            return None
        return cls(False, set_stage(policy.model_copy(update={"rules": kept})))

    def apply(
        self,
        evaluated: GuardResult,
        chunks: Sequence[Chunk],
        enforce: Callable[[SetStage | None], GuardResult],
    ) -> GuardResult:
        """The applied result, carrying ``evaluated`` (the whole policy enforced) as its
        ``shadow``; ``enforce`` re-runs the combination stage with the enforced rules.

        A shadow policy changes nothing, whatever the evaluation decided: every chunk passes
        unmasked, the query is allowed, no refusal is given (not even for an empty retrieval)
        and no rule fires, so ``on_block: raise`` has nothing to raise for."""
        if not self.whole:
            return replace(enforce(self.enforced), shadow=evaluated)
        decisions = tuple(
            ChunkDecision(d.index, chunks[d.index], True, PASSED, SHADOW_REASON, None, d.labels)
            for d in evaluated.decisions
        )
        info = evaluated.request
        return GuardResult(
            replace(evaluated.query, allowed=True, refusal=None),
            decisions,
            unknown_labels=evaluated.unknown_labels,
            refusal=None,
            request=None if info is None else replace(info, mode="shadow"),
            notices=evaluated.notices,
            shadow=evaluated,
        )
