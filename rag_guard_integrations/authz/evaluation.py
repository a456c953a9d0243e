"""The access leakage check: (query, principal) cases over candidates a retriever without
pushdown returns, judged by a guard, scored against :meth:`SampleOrg.can_view`."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rag_guard_integrations.core.access import AccessContext

if TYPE_CHECKING:
    from rag_guard_integrations.authz.sample import SampleOrg
    from rag_guard_integrations.engine.guard import Guard

QUERIES = (
    "What does the quarterly plan say?",
    "Summarise the latest review.",
    "Which decisions were recorded?",
    "List the open actions.",
)


@dataclass(frozen=True, slots=True)
class Leakage:
    """``leak_rate``: the share of candidates the principal may not see that were allowed;
    ``authorised_recall``: the share of those they may see that were allowed."""

    cases: int
    leak_rate: float
    authorised_recall: float
    unauthorised: int
    authorised: int


def access_leakage(guard: Guard, org: SampleOrg, cases: int = 1000, k: int = 10) -> Leakage:
    """Run ``cases`` checks, each a random principal (one in no team included) and query over
    ``k`` random chunks of ``org``, through ``guard``.

    Example:
        >>> from rag_guard_integrations import Guard, parse_policy
        >>> from rag_guard_integrations.authz.sample import SampleOrg
        >>> guard = Guard(parse_policy("version: 1\\nname: nothing\\n"))
        >>> access_leakage(guard, SampleOrg.build(), cases=20).leak_rate > 0  # no source: leaks
        True
    """
    chunks = org.chunks()
    users = sorted(org.users)
    draw = random.Random(0)
    leaked = allowed_ok = unauthorised = authorised = 0
    for _ in range(cases):
        user = draw.choice(users)
        candidates = draw.sample(chunks, k)
        result = guard.check(draw.choice(QUERIES), candidates, access=AccessContext(user))
        allowed = set(result.allowed_indices)
        for index, chunk in enumerate(candidates):
            if org.can_view(user, chunk.metadata["doc_id"]):
                authorised += 1
                allowed_ok += index in allowed
            else:
                unauthorised += 1
                leaked += index in allowed
    return Leakage(
        cases,
        leaked / unauthorised if unauthorised else 0.0,
        allowed_ok / authorised if authorised else 1.0,
        unauthorised,
        authorised,
    )
