"""The query side of the clause guard: which clauses a question asks for, and which contracts
it names (by the access attribute values the policy says how to recognise)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Generic, TypeVar

from rag_guard_integrations.core.cache import BoundedCache
from rag_guard_integrations.core.constraints import Allowed
from rag_guard_integrations.core.patterns import PatternSet

if TYPE_CHECKING:
    from collections.abc import Mapping

    from rag_guard_integrations.core.access import AccessContext
    from rag_guard_integrations.policy.schema import AccessSpec, ClauseSpec

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class QueryScope:
    """What one question asks for.

    ``intents``: the clause ids it asks for. ``whole_contract``: it asks about whole contracts
    (a summary), so every clause may answer. ``named``: per access attribute, the values the
    question names, as the chunks must hold them (match mode of the policy). ``unseen``: named
    ``(attribute, value)`` pairs the caller may not see; the question is then refused.
    """

    intents: tuple[str, ...] = ()
    whole_contract: bool = False
    named: Mapping[str, Allowed] = field(default_factory=dict)
    unseen: tuple[tuple[str, str], ...] = ()


class QueryReader:
    """Reads questions for the clause guard, each kind of pattern in one RE2 pass.

    A clause's ``intents`` name it; when none match, ``broad_intents`` do ("Can we terminate?"
    asks for every termination clause); when neither match, the intents of ``whole_contract``
    clauses do ("Summarize the MSA"). ``access.mentions`` recognise the attribute values a
    question names ("And for the SOW?"). A question is read once: the prefilter, the query
    verdict and the chunk checks of one request share the reading (cached by its text).

    Example:
        >>> from rag_guard_integrations import load_policy
        >>> policy = load_policy("contracts")
        >>> reader = QueryReader(policy.clauses, policy.access)
        >>> reader.intents("can we terminate early?")
        ('TERMINATION_NOTICE',)
    """

    def __init__(self, clauses: Mapping[str, ClauseSpec], access: AccessSpec) -> None:
        self.clause_ids = tuple(clauses)
        self._whole = frozenset(c for c, spec in clauses.items() if spec.whole_contract)
        tiers: tuple[list[tuple[str, str]], ...] = ([], [], [])  # intents, broad, whole contract
        for clause_id, spec in clauses.items():
            tiers[2 if spec.whole_contract else 0].extend((clause_id, p) for p in spec.intents)
            tiers[1].extend((clause_id, p) for p in spec.broad_intents)
        self._tiers: tuple[_Owned[str], ...] = tuple(_Owned(tier) for tier in tiers)
        self._access = access
        self._mentions: _Owned[tuple[str, str]] = _Owned(
            [((attribute, value), pattern)
             for attribute, values in access.mentions.items()
             for value, patterns in values.items()
             for pattern in patterns]
        )  # fmt: skip
        self._read: BoundedCache[str, tuple[tuple[str, ...], frozenset[tuple[str, str]]]] = (
            BoundedCache(256)
        )

    def intents(self, normalized_query: str) -> tuple[str, ...]:
        """Clause ids the (normalised) question asks for, in policy order."""
        return self._reading(normalized_query)[0]

    def _reading(self, text: str) -> tuple[tuple[str, ...], frozenset[tuple[str, str]]]:
        """The intents and the named ``(attribute, value)`` pairs of a question, read once."""
        if (found := self._read.get(text)) is not None:
            return found
        intents: tuple[str, ...] = ()
        for tier in self._tiers:
            if hits := tier.owners(text):
                intents = tuple(c for c in self.clause_ids if c in hits)
                break
        return self._read.put(text, (intents, frozenset(self._mentions.owners(text))))

    def scope(self, normalized_query: str, access: AccessContext | None) -> QueryScope:
        """The whole reading of a question for a caller (see :class:`QueryScope`)."""
        intents, mentioned = self._reading(normalized_query)
        allowlists = access.allowlists if access is not None else {}
        named: dict[str, set[str]] = {}
        unseen: list[tuple[str, str]] = []
        for attribute, value in sorted(mentioned):
            named.setdefault(attribute, set()).add(value)
            if value not in allowlists.get(attribute, ()):
                unseen.append((attribute, value))
        return QueryScope(
            intents,
            bool(intents) and self._whole.issuperset(intents),
            {a: Allowed(frozenset(v), self._access.match_of(a)) for a, v in named.items()},
            tuple(unseen),
        )


class _Owned(Generic[T]):
    """Patterns with an owner each, matched in one pass: the owners of those that occur."""

    def __init__(self, owned: list[tuple[T, str]]) -> None:
        self._owners = [owner for owner, _ in owned]
        self._set = PatternSet([pattern for _, pattern in owned])

    def owners(self, text: str) -> set[T]:
        return {self._owners[i] for i in self._set.matching(text)} if self._owners else set()
