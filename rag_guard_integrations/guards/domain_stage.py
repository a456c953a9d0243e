"""The domain guard as the engine's query stage: the query read once per request, before anything
is retrieved (tier 1 decides there), and the other tiers judged on the chunks that reach it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rag_guard_integrations.guards.domain import DomainGuard
from rag_guard_integrations.guards.stage import Part, Quiet, StageSpec

if TYPE_CHECKING:
    from collections.abc import Sequence

    from rag_guard_integrations.core.chunk import Chunk
    from rag_guard_integrations.core.decisions import QueryDecision
    from rag_guard_integrations.core.stage import Request
    from rag_guard_integrations.guards.stage import StageInputs
    from rag_guard_integrations.policy.schema import Policy


class DomainStage(Quiet):
    """Runs a :class:`DomainGuard` as a query stage.

    The plan reads the query once (:meth:`DomainGuard.read`: its terms and the identifiers it
    names): a blocklisted query is rejected there, before anything is retrieved (the plan's
    ``rejected``); any other query is decided on that reading and the chunks that reach this
    stage.

    Example:
        >>> from rag_guard_integrations.core.stage import Request
        >>> stage = DomainStage(DomainGuard.from_policy("bis"))
        >>> part = stage.prepare(Request("price of bitcoin", "price of bitcoin", (), None))
        >>> part.rejected.tier
        'blocklist'
    """

    name = "domain"

    def __init__(self, guard: DomainGuard) -> None:
        self.guard = guard

    @property
    def refusal(self) -> str | None:
        """The policy's refusal for a query out of the domain."""
        return self.guard.spec.refusal

    def prepare(self, request: Request) -> Part:
        """The query's reading; a blocklisted query is rejected with no chunk to look at."""
        reading = self.guard.read(request.query, request.normalized_query)
        if reading.lexical.term is not None:
            return Part(rejected=self.guard.decide(request.query, (), reading=reading))
        return Part(reading)

    def decide(self, part: Part, request: Request, chunks: Sequence[Chunk]) -> QueryDecision:
        """The verdict on the query given ``chunks``, from the plan's reading."""
        return self.guard.decide(request.query, chunks, reading=part.state)


def _stage(policy: Policy, inputs: StageInputs) -> DomainStage | None:
    guard = DomainGuard.from_policy(policy, inputs.embedder, inputs.identifiers)
    return None if guard is None else DomainStage(guard)


STAGE = StageSpec("domain", "domain", "query", _stage)
