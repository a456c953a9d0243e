"""What a stage of the guard declares: the policy section that configures it, what it adds to
a request plan, what it contributes to pushdown, and its per-chunk, query or set part.

The engine runs an explicit, ordered list of :class:`StageSpec` (see
:mod:`rag_guard_integrations.engine.stages`) and names no stage: for one request it asks each
stage for its :class:`Part` (once, in :meth:`~rag_guard_integrations.Guard.plan`), joins their
:class:`Pushdown` contributions into the plan's constraints, then hands each stage its own part
back with the chunks the stages before it let through.

Three kinds, by what a stage judges: ``chunk`` stages each chunk (``check_many``), ``query``
stages the query given the chunks still in (``decide``: the domain gate), and the one ``set``
stage the labelled set that is left (the combination rules).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol

from rag_guard_integrations.core.errors import ArgumentError

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping, Sequence

    from rag_guard_integrations.authz.source import AccessSource, Scope
    from rag_guard_integrations.core.chunk import Chunk
    from rag_guard_integrations.core.constraints import Allowed
    from rag_guard_integrations.core.decisions import QueryDecision
    from rag_guard_integrations.core.stage import ChunkCheck, Request
    from rag_guard_integrations.embeddings import Embedder
    from rag_guard_integrations.guards.combination import (
        CombinationOutcome,
        Labelled,
        LabelledSet,
    )
    from rag_guard_integrations.guards.domain_identifiers import IdentifierLookup
    from rag_guard_integrations.policy.schema import Policy

Kind = Literal["chunk", "query", "set"]


@dataclass(frozen=True, slots=True)
class Part:
    """What one stage adds to a request plan, computed once per request.

    ``state`` is the stage's own reading of the request, handed back to its per-chunk, query
    or pushdown part; ``intents`` the clause ids the query asks for; ``refusal`` the text to
    answer with if nothing passes; ``rejected`` a verdict that already rejects the query
    before anything is retrieved (the domain blocklist).
    """

    state: Any = None
    intents: tuple[str, ...] = ()
    refusal: str | None = None
    rejected: QueryDecision | None = None


NO_PART = Part()
"""The part of a stage that reads nothing of the request."""


@dataclass(frozen=True, slots=True)
class Pushdown:
    """One stage's contribution to the pushdown filter: attribute -> allowed values that every
    chunk it could allow carries (None: no chunk can pass), and an access source's scope."""

    constraints: Mapping[str, Allowed] | None
    scope: Scope | None = None


UNCONSTRAINED = Pushdown({})
"""The contribution of a stage that pushes nothing down."""


class Stage(Protocol):
    """What every stage declares besides its kind's own part."""

    @property
    def name(self) -> str:
        """The stage's name, which records carry for the chunks it denies."""
        ...

    def prepare(self, request: Request) -> Part:
        """This stage's part of the plan for ``request`` (may raise: the query is rejected)."""
        ...

    def pushdown(self, part: Part, request: Request) -> Pushdown:
        """What every chunk this stage could allow carries, for a store to filter on."""
        ...


class ChunkStage(Stage, Protocol):
    """A per-chunk stage: judges each chunk alone (all of a check's at once).

    A stage whose ``reports`` names a :class:`~rag_guard_integrations.GuardResult` field
    returns :class:`Judged` verdicts, whose ``record`` fills that field.
    """

    @property
    def reports(self) -> str | None:
        """The result field its :class:`Judged` record fills, or None."""
        ...

    def check_many(self, chunks: Sequence[Chunk], state: Any) -> Sequence[str | None]:
        """Why each chunk is denied (None: it passes), in order; ``state`` is its part's."""
        ...


class QueryStage(Stage, Protocol):
    """A query stage: decides once per check whether the query may be answered at all, given
    the chunks the stages before it let through."""

    @property
    def refusal(self) -> str | None:
        """The text to answer with when this stage rejects a query (or fails)."""
        ...

    def decide(self, part: Part, request: Request, chunks: Sequence[Chunk]) -> QueryDecision:
        """The verdict on the request's query."""
        ...


class SetStage(Stage, Protocol):
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


class Judged(list[str | None]):
    """A chunk stage's verdicts with the record it reports (see :class:`ChunkStage`)."""

    def __init__(self, verdicts: Iterable[str | None], record: object) -> None:
        super().__init__(verdicts)
        self.record = record


@dataclass(frozen=True, slots=True)
class StageInputs:
    """What a stage may need besides the policy: the embedder (None: the default one, loaded
    on first use), the collection's standard identifiers or a lookup of them, and the access
    source asked live about every candidate."""

    embedder: Embedder | None = None
    identifiers: tuple[str, ...] | IdentifierLookup = ()
    access_source: AccessSource | None = None


@dataclass(frozen=True, slots=True)
class StageSpec:
    """One entry of the engine's stage list: its name, the policy section that configures it,
    its kind, and ``build``, which returns the stage for a policy or None when the policy does
    not configure it."""

    name: str
    section: str
    kind: Kind
    build: Callable[[Policy, StageInputs], Any]


class Quiet:
    """The defaults of :class:`Stage` (mixed in): no reading of the request, no pushdown
    contribution, no record to report; a stage overrides what it has."""

    reports: str | None = None

    def prepare(self, request: Request) -> Part:
        return NO_PART

    def pushdown(self, part: Part, request: Request) -> Pushdown:
        return UNCONSTRAINED


class CheckStage(Quiet):
    """A caller's own per-chunk check (``Guard(checks=[...])``) as a chunk stage: its state is
    the request, and its ``check_many`` is used when it has one.

    Example:
        >>> from rag_guard_integrations.core.chunk import Chunk
        >>> class EUOnly:
        ...     name = "region"
        ...     def __call__(self, chunk, request):
        ...         return None if chunk.metadata.get("region") == "EU" else "not EU"
        >>> stage = CheckStage(EUOnly())
        >>> stage.check_many([Chunk("a", {"region": "EU"}), Chunk("b")], None)
        [None, 'not EU']
    """

    def __init__(self, check: ChunkCheck) -> None:
        name = getattr(check, "name", None)
        if name is None and callable(check):  # a plain function: named by its own name
            name = getattr(check, "__name__", None)
        if not (callable(check) and isinstance(name, str) and name):
            raise ArgumentError(
                f"checks: {type(check).__name__} is not a check; pass a callable "
                "check(chunk, request) -> reason or None, with a name attribute (str)"
            )
        self.check = check
        self.name = name

    def prepare(self, request: Request) -> Part:
        return Part(request)

    def check_many(self, chunks: Sequence[Chunk], state: Any) -> Sequence[str | None]:
        many = getattr(self.check, "check_many", None)
        if many is not None:
            found: Sequence[str | None] = many(chunks, state)
            return found
        check = self.check
        return [check(chunk, state) for chunk in chunks]
