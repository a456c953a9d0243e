"""The engine's stage list: every stage a policy can configure, in the order they judge.

A chunk is denied by the first stage that denies it. An access source judges every candidate
first, then what is not text and the access allowlists, so that no later stage, the domain
gate included, sees a chunk the caller may not (filtering is not authorisation): the answer a
question gets never depends on another caller's chunks. A query stage that rejects the query
denies every chunk still in; the hints scan every metadata key, so they run last, on what is
left; a guard's own checks (``Guard(checks=[...])``) follow the policy's chunk stages; the set
stage judges the labelled chunks still in. A new stage is its module and one entry here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rag_guard_integrations.guards import (
    access,
    clause,
    combination,
    domain_stage,
    live_access,
    non_text,
    recency,
)
from rag_guard_integrations.guards.stage import CheckStage, StageInputs, StageSpec

if TYPE_CHECKING:
    from collections.abc import Iterable

    from rag_guard_integrations.core.stage import ChunkCheck
    from rag_guard_integrations.guards.stage import ChunkStage, Kind, QueryStage, SetStage
    from rag_guard_integrations.policy.schema import Policy

STAGES: tuple[StageSpec, ...] = (
    live_access.STAGE_SPEC,  # an access source's bulk check (or copied ACLs' age): first
    non_text.STAGE,  # what is not text is denied as such, before any stage reads its text
    access.ACCESS_STAGE,
    domain_stage.STAGE,  # the query gate: sees only the chunks the caller may see
    clause.STAGE,
    recency.STAGE,
    access.HINT_STAGE,
    combination.STAGE,
)
"""Every stage, in running order (see the module)."""


@dataclass(frozen=True, slots=True)
class Built:
    """The stages one policy configures: every one in running order with its kind (the set
    stage last), and the set stage (None when the policy has no rules)."""

    ordered: tuple[tuple[Kind, Any], ...]
    set_stage: SetStage | None

    @property
    def names(self) -> dict[str, Any]:
        """Each stage by its name (a name used twice: the first)."""
        found: dict[str, Any] = {}
        for _, stage in self.ordered:
            found.setdefault(stage.name, stage)
        return found

    @property
    def chunk_stages(self) -> tuple[ChunkStage, ...]:
        """The chunk stages, in running order."""
        return tuple(stage for kind, stage in self.ordered if kind == "chunk")

    @property
    def query_stages(self) -> tuple[QueryStage, ...]:
        """The query stages, in running order."""
        return tuple(stage for kind, stage in self.ordered if kind == "query")


def build(
    policy: Policy,
    inputs: StageInputs = StageInputs(),  # noqa: B008 - frozen, shared
    checks: Iterable[ChunkCheck] = (),
) -> Built:
    """The stages ``policy`` configures, in the order of :data:`STAGES`, with ``checks`` after
    the policy's chunk stages (the engine runs one set stage: it holds every rule and its
    greedy removal).

    Example:
        >>> from rag_guard_integrations import load_policy
        >>> [stage.name for _, stage in build(load_policy("contracts")).ordered]
        ['non_text', 'access', 'clause', 'hint', 'combination']
        >>> [stage.name for _, stage in build(load_policy("bis", "default")).ordered]
        ['non_text', 'domain', 'hint', 'combination']
    """
    ordered: list[tuple[Kind, Any]] = []
    sets: list[SetStage] = []
    for spec in STAGES:
        stage = spec.build(policy, inputs)
        if stage is None:
            continue
        if spec.kind == "set":
            sets.append(stage)
        else:
            ordered.append((spec.kind, stage))
    # A guard's own check that is a stage already (a ClauseGuard) reads the request itself.
    ordered.extend(
        ("chunk", check if hasattr(check, "prepare") else CheckStage(check)) for check in checks
    )
    if sets:
        ordered.append(("set", sets[0]))
    return Built(tuple(ordered), sets[0] if sets else None)


def set_stage(policy: Policy) -> SetStage | None:
    """The set stage ``policy`` configures (its rules), or None."""
    built = (spec.build(policy, StageInputs()) for spec in STAGES if spec.kind == "set")
    return next((stage for stage in built if stage is not None), None)
