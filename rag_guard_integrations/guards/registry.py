"""The stage registry: each guards module lists the stages it provides; the engine builds, for
a policy, the stages whose section the policy configures.

Three kinds, by what a stage judges: ``QUERY_STAGES`` the query, once per check, before any
chunk (the domain gate); ``STAGES`` each chunk alone (access, clause, recency, hints);
``SET_STAGES`` the labelled set that is left (the combination rules). A new guard is one module
here (its check class plus one of these tuples) and its section in the policy schema; nothing
else names it.
"""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

    from rag_guard_integrations.core.chunk import Chunk
    from rag_guard_integrations.core.decisions import QueryDecision
    from rag_guard_integrations.core.stage import ChunkCheck
    from rag_guard_integrations.embeddings import Embedder
    from rag_guard_integrations.guards.combination import (
        CombinationOutcome,
        Labelled,
        LabelledSet,
    )
    from rag_guard_integrations.guards.domain_identifiers import IdentifierLookup
    from rag_guard_integrations.policy.schema import Policy


class QueryCheck(Protocol):
    """A query stage: decides once per check whether the query may be answered at all."""

    def decide(self, query: str, chunks: Sequence[Chunk]) -> QueryDecision:
        """The verdict on ``query``, given the chunks retrieved for it."""
        ...


class SetCheck(Protocol):
    """A set stage: judges the labelled chunks left together and names the ones to remove."""

    @property
    def links_chunks(self) -> bool:
        """Whether it reads each chunk's linking values (then read before it runs)."""
        ...

    def unreadable_links(self, metadata: Mapping[str, Any]) -> str | None:
        """Why one chunk's linking values cannot be read (the chunk is denied), or None."""
        ...

    def __call__(self, items: Sequence[Labelled] | LabelledSet) -> CombinationOutcome:
        """The rules that fire on ``items`` and the removals that make the set safe."""
        ...


@dataclass(frozen=True, slots=True)
class QueryInputs:
    """What a query stage may need besides the policy: the embedder (None: the default one,
    loaded on first use) and the collection's standard identifiers, or a lookup of them."""

    embedder: Embedder | None = None
    identifiers: tuple[str, ...] | IdentifierLookup = ()


@dataclass(frozen=True, slots=True)
class Stage:
    """One per-chunk stage: ``build`` returns its check for a policy, or None when the policy
    does not configure it; stages run by ascending ``order``.

    Example:
        >>> [stage.name for stage in builtin_stages()]
        ['non_text', 'access', 'clause', 'recency', 'hint']
    """

    name: str
    order: int
    build: Callable[[Policy], ChunkCheck | None]


@dataclass(frozen=True, slots=True)
class QueryStage:
    """One query stage: ``build`` returns its check for a policy and the guard's
    :class:`QueryInputs`, or None; the first that rejects the query decides.

    Example:
        >>> [stage.name for stage in builtin_query_stages()]
        ['domain']
    """

    name: str
    order: int
    build: Callable[[Policy, QueryInputs], QueryCheck | None]


@dataclass(frozen=True, slots=True)
class SetStage:
    """The set stage: ``build`` returns its check for a policy, or None. The engine runs one
    (the combination rules, which already hold every rule of the policy and its greedy
    removal); a second set stage would need the engine to merge two sets of removals.

    Example:
        >>> [stage.name for stage in builtin_set_stages()]
        ['combination']
    """

    name: str
    build: Callable[[Policy], SetCheck | None]


def _declared(attribute: str) -> list[Any]:
    """Every entry of ``attribute`` (a tuple of stages) across the guards package's modules."""
    package = importlib.import_module(__package__ or "rag_guard_integrations.guards")
    found: list[Any] = []
    for info in pkgutil.iter_modules(package.__path__):
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        found.extend(getattr(module, attribute, ()))
    return found


@lru_cache(maxsize=1)
def builtin_stages() -> tuple[Stage, ...]:
    """The per-chunk stages every module of the guards package declares, in running order."""
    return tuple(sorted(_declared("STAGES"), key=lambda stage: stage.order))


@lru_cache(maxsize=1)
def builtin_query_stages() -> tuple[QueryStage, ...]:
    """The query stages the guards package declares, in running order."""
    return tuple(sorted(_declared("QUERY_STAGES"), key=lambda stage: stage.order))


@lru_cache(maxsize=1)
def builtin_set_stages() -> tuple[SetStage, ...]:
    """The set stages the guards package declares (one: see :class:`SetStage`)."""
    return tuple(_declared("SET_STAGES"))


def policy_checks(policy: Policy) -> tuple[ChunkCheck, ...]:
    """The per-chunk checks ``policy`` configures, in running order."""
    return tuple(check for stage in builtin_stages() if (check := stage.build(policy)) is not None)


def query_checks(policy: Policy, inputs: QueryInputs) -> tuple[QueryCheck, ...]:
    """The query checks ``policy`` configures, in running order."""
    stages = builtin_query_stages()
    return tuple(check for stage in stages if (check := stage.build(policy, inputs)) is not None)


def set_check(policy: Policy) -> SetCheck | None:
    """The set check ``policy`` configures, or None when it configures none."""
    return next(
        (check for stage in builtin_set_stages() if (check := stage.build(policy)) is not None),
        None,
    )
