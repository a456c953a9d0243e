"""The request plan: one query read once for one caller, before anything is retrieved."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import TYPE_CHECKING

from rag_guard_integrations.core.constraints import Allowed, Constraints
from rag_guard_integrations.core.decisions import QueryDecision

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from rag_guard_integrations.authz.source import Scope
    from rag_guard_integrations.core.access import AccessContext
    from rag_guard_integrations.core.stage import Request
    from rag_guard_integrations.guards.stage import Part, Pushdown


# The query verdict without a query stage or clause intents, shared (frozen, empty evidence).
NO_QUERY_STAGE = QueryDecision(evidence=MappingProxyType({}))


@dataclass(frozen=True, slots=True)
class RequestPlan:
    """What a guard reads of one request before retrieval, computed once by
    :meth:`~rag_guard_integrations.Guard.plan` and handed to
    :meth:`~rag_guard_integrations.Guard.check` with the chunks retrieved for it.

    ``normalized`` is the query normalised once; ``intents`` the clause ids it asks for;
    ``constraints`` the pushdown filter (None: no chunk can pass, so nothing need be fetched);
    ``scope`` an access source's scope of the caller; ``rejected`` the verdict of a query
    rejected before retrieval (the domain blocklist, or a stage that failed); ``refusal`` the
    text to answer with when nothing can pass or the query is rejected. ``fetch_hint`` is
    reserved (None). Each stage's own reading of the request rides along, so the check reads
    nothing of the query again. The repr holds no text of the query.

    Example:
        >>> from rag_guard_integrations import Guard
        >>> plan = Guard.from_policy("contracts").plan(
        ...     "What is the termination notice period?", {"contract_type": ["MSA"]})
        >>> plan
        RequestPlan(intents=('TERMINATION_NOTICE',), constrains=['contract_type', 'clause_id'], \
scope=None, rejected=None)
    """

    query: str = field(repr=False)
    normalized: str = field(repr=False)
    access: AccessContext | None = field(repr=False)
    intents: tuple[str, ...]
    constraints: Constraints | None = field(repr=False)
    scope: Scope | None
    rejected: QueryDecision | None
    refusal: str | None = field(repr=False)
    fetch_hint: None = field(default=None, repr=False)
    # The guard that made the plan, and each of its stages' part, in its stage order.
    owner: str = field(default="", repr=False, compare=False)
    parts: tuple[Part, ...] = field(default=(), repr=False, compare=False)
    request: Request | None = field(default=None, repr=False, compare=False)
    # The pushdown of the policy as enforced (shadow mode pushes nothing down); ``pushed``
    # is False when the plan was made for a check alone and the pushdown not yet read.
    enforced: Constraints | None = field(default=None, repr=False, compare=False)
    pushed: bool = field(default=True, repr=False, compare=False)

    def __repr__(self) -> str:
        constrains = None if self.constraints is None else list(self.constraints)
        rejected = None if self.rejected is None else self.rejected.tier
        return (
            f"RequestPlan(intents={self.intents!r}, constrains={constrains!r}, "
            f"scope={_scope_kind(self.scope)}, rejected={rejected!r})"
        )


def _scope_kind(scope: Scope | None) -> str:
    if scope is None:
        return "None"
    return "bounded" if scope.is_bounded else "unbounded"


def join(contributions: Iterable[Pushdown]) -> tuple[Constraints | None, Scope | None]:
    """The stages' pushdown contributions as one filter (a value must satisfy every stage that
    names its attribute) and the access source's scope; None when no chunk can pass.

    Example:
        >>> from rag_guard_integrations.guards.stage import Pushdown
        >>> join([Pushdown({"t": Allowed(frozenset({"a", "b"}))}),
        ...       Pushdown({"t": Allowed(frozenset({"b"}))})])
        (Constraints(t=all:['b']), None)
        >>> join([Pushdown({"t": Allowed(frozenset({"a"}))}), Pushdown(None)])
        (None, None)
    """
    joined: dict[str, Allowed] = {}
    scope: Scope | None = None
    for contribution in contributions:
        scope = contribution.scope or scope
        if contribution.constraints is None:
            return None, scope
        for key, allowed in contribution.constraints.items():
            held = joined.get(key)
            both = allowed if held is None else Allowed(held.values & allowed.values, held.match)
            if not both.values:
                return None, scope
            joined[key] = both
    return Constraints(joined), scope


def unseen(parts: Sequence[Part]) -> str | None:
    """The first refusal a stage's reading gives (a question naming what the caller may not
    see), or None."""
    return next((part.refusal for part in parts if part.refusal is not None), None)


def query_decision(verdicts: Sequence[QueryDecision], plan: RequestPlan) -> QueryDecision:
    """The verdict on the query from its query stages' ``verdicts`` (in order, the last the
    first that rejects, if one does): the rejecting one, else the first, with the clause ids
    the plan read (a failure's rejection as it is)."""
    refusal = unseen(plan.parts)
    if not verdicts:
        if not plan.intents and refusal is None:
            return NO_QUERY_STAGE
        return QueryDecision(intents=plan.intents, refusal=refusal)
    decision = verdicts[0] if verdicts[-1].allowed else verdicts[-1]
    if decision.tier == "error":
        return decision
    if decision.allowed and refusal is not None:
        return replace(decision, intents=plan.intents, refusal=refusal)
    return replace(decision, intents=plan.intents)
