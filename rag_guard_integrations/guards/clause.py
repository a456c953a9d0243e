"""The clause guard: which clause the query asks for, and which chunks really are that clause."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rag_guard_integrations.core.patterns import PatternSet, matches
from rag_guard_integrations.core.reasons import Reason
from rag_guard_integrations.core.sentences import clause_text
from rag_guard_integrations.guards.registry import Stage
from rag_guard_integrations.policy.loader import load_policy

if TYPE_CHECKING:
    from collections.abc import Mapping

    from rag_guard_integrations.core.chunk import Chunk
    from rag_guard_integrations.core.stage import Request
    from rag_guard_integrations.policy.loader import PolicyRef
    from rag_guard_integrations.policy.schema import ClauseSpec, OnNoIntent


class ClauseGuard:
    """Keep a chunk only if its ``clause_id`` is one the query asks for and its text matches
    that clause's fingerprint. A query that names no clause is refused, or, with
    ``on_no_intent="access_only"``, left to the access checks with no clause restriction.

    Example:
        >>> from rag_guard_integrations import load_policy
        >>> guard = ClauseGuard.from_policy(load_policy("contracts"))
        >>> guard.detect("what is the termination notice period?")
        ('TERMINATION_NOTICE',)
    """

    name = "clause"

    def __init__(
        self, clauses: Mapping[str, ClauseSpec], on_no_intent: OnNoIntent = "refuse"
    ) -> None:
        self.clause_ids = tuple(clauses)
        self.on_no_intent = on_no_intent
        owners: list[str] = []
        patterns: list[str] = []
        for clause_id, spec in clauses.items():
            owners.extend([clause_id] * len(spec.intents))
            patterns.extend(spec.intents)
        self._owners = tuple(owners)
        self._intents = PatternSet(patterns)
        self._fingerprints = {
            clause_id: regex
            for clause_id, spec in clauses.items()
            if (regex := spec.fingerprint_regex) is not None
        }

    @classmethod
    def from_policy(cls, policy: PolicyRef) -> ClauseGuard | None:
        """The clause guard of ``policy``, or None when it defines no clauses."""
        policy = load_policy(policy)
        return cls(policy.clauses, policy.on_no_intent) if policy.clauses else None

    def detect(self, normalized_query: str) -> tuple[str, ...]:
        """Clause ids the (normalised) query asks for, in policy order."""
        hits = {self._owners[i] for i in self._intents.matching(normalized_query)}
        return tuple(c for c in self.clause_ids if c in hits)

    @property
    def restricts_without_intent(self) -> bool:
        """True when a query naming no clause lets no chunk through (``on_no_intent: refuse``)."""
        return self.on_no_intent == "refuse"

    def __call__(self, chunk: Chunk, request: Request) -> Reason | None:
        # Records name the policy's clause ids only, never the chunk's own clause_id value.
        if not request.intents:
            if not self.restricts_without_intent:
                return None  # access_only: the access checks alone decide
            return _NO_INTENT
        clause_id = chunk.metadata.get("clause_id")
        if clause_id is None:
            return _NO_CLAUSE_ID
        if clause_id not in request.intents:
            return _NOT_ASKED  # the clause ids asked for are the query decision's intents
        intent = request.intents[request.intents.index(clause_id)]
        fingerprint = self._fingerprints.get(intent)
        if fingerprint is not None and not matches(fingerprint, clause_text(chunk.text)):
            return Reason.fixed(f"the text does not match the {intent} fingerprint")
        return None


_NO_INTENT = Reason.fixed("the query asks for no clause this policy knows")
_NO_CLAUSE_ID = Reason.fixed("the chunk carries no clause_id")
_NOT_ASKED = Reason.fixed("the chunk's clause_id is not one the query asks for")


STAGES = (Stage("clause", 20, ClauseGuard.from_policy),)
