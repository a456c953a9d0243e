"""The one refusal rule: when an adapter answers with a text instead of calling the model."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rag_guard_integrations.core.decisions import GuardResult
    from rag_guard_integrations.policy.schema import Policy


def refusal_for(result: GuardResult, kept: int, policy: Policy) -> str | None:
    """The text to answer with instead of calling the model, or None when it may answer.

    The guard's own refusal (a rejected query gets the domain refusal), else the policy's
    ``no_context_refusal`` when nothing is left to hand on; never under ``mode: shadow``, which
    records and changes nothing, so the model answers as it would without the guard.

    Example:
        >>> from rag_guard_integrations import Guard
        >>> guard = Guard.from_policy("contracts")
        >>> result = guard.check("termination notice period?", [])
        >>> refusal_for(result, 0, guard.policy)
        'No authorized matching clause found.'
    """
    if policy.mode == "shadow":
        return None
    if result.refusal is not None:
        return result.refusal
    return None if kept else policy.no_context_refusal
