"""Combination rules over the retrieved set, and the greedy subset on which no block rule fires."""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import compress, filterfalse
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol, cast

from rag_guard_integrations.core.chunk_list import ChunkList
from rag_guard_integrations.core.decisions import Bridge, Link, Violation
from rag_guard_integrations.core.records import slot_filler
from rag_guard_integrations.guards.linking import (
    Group,
    connecting_links,
    link_groups,
    link_problem,
)
from rag_guard_integrations.guards.stage import Quiet, StageSpec
from rag_guard_integrations.policy.loader import load_policy

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator, Mapping, Sequence

    from rag_guard_integrations.guards.stage import StageInputs
    from rag_guard_integrations.policy.loader import PolicyRef
    from rag_guard_integrations.policy.schema import Policy, RuleSpec

# Actions that take chunks out of the set; the engine masks a ``redact`` rule's carriers
# instead of dropping them where it can.
REMOVING = frozenset({"block", "redact"})


@dataclass(frozen=True, slots=True)
class Labelled:
    """A chunk as the combination guard sees it: position, labels, score and metadata."""

    index: int
    labels: frozenset[str]
    score: float | None = None
    metadata: Mapping[str, Any] = field(default_factory=dict)


class Retrieved(Protocol):
    """What the combination guard reads of a chunk besides its labels: the score breaks ties
    between removals, the metadata links chunks. A ``Chunk`` and a ``Labelled`` are both."""

    @property
    def score(self) -> float | None: ...

    @property
    def metadata(self) -> Mapping[str, Any]: ...


@dataclass(frozen=True, slots=True)
class LabelledSet:
    """The retrieved set as the combination guard sees it: input positions and labels column
    by column, and the chunks themselves for scores and metadata (read only when needed). What
    the engine hands over, without an object per chunk.

    Example:
        >>> from rag_guard_integrations import Chunk
        >>> LabelledSet([0, 2], [frozenset({"financial"}), frozenset()], [Chunk("a"), Chunk("b")])
        ... # doctest: +ELLIPSIS
        LabelledSet(indices=[0, 2], ...)
    """

    indices: Sequence[int]
    labels: Sequence[frozenset[str]]
    chunks: Sequence[Retrieved]

    @classmethod
    def of(cls, items: Sequence[Labelled]) -> LabelledSet:
        """The set of ``items`` (indices kept as a range when they are 0, 1, 2, ...)."""
        indices: Sequence[int] = [i.index for i in items]
        if indices == list(range(len(indices))):
            indices = range(len(indices))
        return cls(indices, [i.labels for i in items], items)

    def __len__(self) -> int:
        return len(self.indices)


@dataclass(frozen=True, slots=True)
class CombinationOutcome:
    """Rules that fired (block and warn apart), bridge labels, and which chunks were removed."""

    violations: tuple[Violation, ...] = ()
    warnings: tuple[Violation, ...] = ()
    bridges: tuple[Bridge, ...] = ()
    removed: Mapping[int, str] = field(default_factory=dict)


# Made on every call: filled slot by slot; the outcome of a set on which no rule fires is shared.
_new_outcome = slot_filler(CombinationOutcome)
_NOTHING_FIRED = CombinationOutcome(removed=MappingProxyType({}))
_NO_SCORE = float("-inf")
_WHOLE_SET: Sequence[_LinkedGroup | None] = (None,)
_CACHE_SIZE = 1024  # entries per cache of a guard: label combinations, sets of fired rules


class _Plan(NamedTuple):
    """What a combination of labels present decides before any chunk is looked at: the rules
    that fire, the block rules among them, and (without linked rules) their firings and
    bridges."""

    candidates: tuple[RuleSpec, ...]
    blocks: tuple[RuleSpec, ...]
    firings: tuple[_Firing, ...] | None
    bridges: tuple[Bridge, ...] | None


class _Firing(NamedTuple):
    """A rule that fired, on the whole set (``pool`` None) or inside one linked group, with
    what its violation reports: name, action, message, trigger labels and scope."""

    rule: RuleSpec
    pool: _LinkedGroup | None
    name: str
    action: str
    message: str
    labels: tuple[str, ...]
    scope: str

    @classmethod
    def of(cls, rule: RuleSpec, pool: _LinkedGroup | None) -> _Firing:
        """The firing of ``rule`` in ``pool`` (None: the whole set)."""
        labels = tuple(rule.trigger.all_present)
        scope = rule.trigger.scope
        return cls(rule, pool, rule.name, rule.action, rule_message(rule), labels, scope)


def rule_message(rule: RuleSpec) -> str:
    """What a violation of ``rule`` says: its message, or which labels came together."""
    labels = " + ".join(rule.trigger.all_present)
    return rule.message or f"{labels} together in the retrieved context"


class CombinationGuard(Quiet):
    """Fire a rule when all its trigger labels occur across the set (or inside one linked group).

    Rules are indexed by label, so the cost grows with the labels present, not with every rule
    times every chunk.

    Example:
        >>> guard = CombinationGuard.from_policy("default")
        >>> outcome = guard([Labelled(0, frozenset({"financial"})),
        ...                  Labelled(1, frozenset({"entity_identifier"}))])
        >>> [v.rule for v in outcome.violations]
        ['default_financials_client']
    """

    name = "combination"

    def __init__(self, rules: Sequence[RuleSpec], linking_keys: Sequence[str] = ()) -> None:
        self.rules = tuple(rules)
        self.linking_keys = tuple(linking_keys)
        self._by_label: dict[str, list[int]] = {}
        for position, rule in enumerate(self.rules):
            for label in rule.trigger.all_present:
                self._by_label.setdefault(label, []).append(position)
        self._needs_groups = any(r.trigger.scope == "linked" for r in self.rules)
        self._bridge_cache: dict[tuple[int, ...], tuple[Bridge, ...]] = {}
        self._plans: dict[frozenset[str], _Plan] = {}

    @classmethod
    def from_policy(cls, policy: PolicyRef) -> CombinationGuard | None:
        """The combination guard of ``policy``, or None when it has no rules."""
        policy = load_policy(policy)
        return cls(policy.rules, policy.linking.keys) if policy.rules else None

    @property
    def links_chunks(self) -> bool:
        """Whether some rule fires over linked chunks, so each chunk's linking values are read."""
        return self._needs_groups

    def unreadable_links(self, metadata: Mapping[str, Any]) -> str | None:
        """Why one chunk's linking values cannot be read, or None (always None without linked
        rules). Checked per chunk, so one malformed chunk is denied alone."""
        return link_problem(metadata, self.linking_keys) if self._needs_groups else None

    @property
    def labels(self) -> frozenset[str]:
        """Every label some rule triggers on."""
        return frozenset(self._by_label)

    def __call__(self, items: Sequence[Labelled] | LabelledSet) -> CombinationOutcome:
        """Evaluate the rules on ``items`` and compute the removals that make the set safe."""
        chunks = items if isinstance(items, LabelledSet) else LabelledSet.of(items)
        carriers, overlap = self._carriers(chunks.labels)
        plan = self._plan(carriers)
        if not plan.candidates:
            return _NOTHING_FIRED
        firings, bridges = plan.firings, plan.bridges
        groups: list[_LinkedGroup] | None = None
        if firings is None or bridges is None:  # linked rules: where they fire depends on links
            groups = self._groups(chunks, range(len(chunks)))
            firings = tuple(
                _Firing.of(rule, pool) for rule in plan.candidates for pool in _pools(rule, groups)
            )
            bridges = self._bridges(firings)
        removing: list[Violation] = []
        warnings: list[Violation] = []
        # The engine's survivors when nothing was denied: positions are the input indices.
        indices = None if chunks.indices == range(len(chunks.indices)) else chunks.indices
        for firing in firings:
            if firing.action in REMOVING:
                removing.append(_violation(firing, indices, carriers, overlap))
            elif firing.action == "warn":
                warnings.append(_violation(firing, indices, carriers, overlap))
        violations = tuple(removing)
        removed = (
            self._safe_subset(chunks, carriers, overlap, plan.blocks, groups) if violations else {}
        )
        return _new_outcome(violations, tuple(warnings), bridges, removed)

    def _carriers(self, labels: Sequence[frozenset[str]]) -> tuple[dict[str, list[int]], bool]:
        """Label -> positions of the chunks carrying it, for the labels some rule names, and
        whether some chunk carries two of those labels (then the lists overlap).

        Chunks are grouped by their label set first: a retrieved set repeats a few sets many
        times, and a set is hashed once.
        """
        by_set: dict[frozenset[str], list[int]] = {}
        for position, carried in enumerate(labels):
            if carried:
                positions = by_set.get(carried)
                if positions is None:
                    by_set[carried] = [position]
                else:
                    positions.append(position)
        indexed = self._by_label
        carriers: dict[str, list[int]] = {}
        merged: set[str] = set()
        overlap = False
        for carried, positions in by_set.items():
            count = 0
            for label in carried:
                if label in indexed:
                    count += 1
                    known = carriers.get(label)
                    if known is None:
                        carriers[label] = positions
                    else:
                        carriers[label] = known + positions
                        merged.add(label)
            overlap = overlap or count > 1
        for label in merged:
            carriers[label].sort()  # runs of several label sets, each in order
        return carriers, overlap

    def _plan(self, carriers: Mapping[str, list[int]]) -> _Plan:
        """The rules whose trigger labels all occur somewhere in the set, in policy order (the
        removing ones: block rules, then redact rules), and what follows from them alone; kept
        per combination of labels present, which retrieved sets repeat."""
        labels = frozenset(carriers)
        plan = self._plans.get(labels)
        if plan is None:
            counts: dict[int, int] = {}
            for label in labels:
                for position in self._by_label.get(label, ()):
                    counts[position] = counts.get(position, 0) + 1
            candidates = tuple(
                self.rules[p]
                for p in sorted(counts)
                if counts[p] == len(self.rules[p].trigger.all_present)
            )
            # Block rules take their carriers before redact rules, whatever the order the
            # policies were named in: a redact rule beside a pack never turns the pack's
            # drop into a mask.
            blocks = tuple(rule for rule in candidates if rule.action == "block") + tuple(
                rule for rule in candidates if rule.action == "redact"
            )
            if self._needs_groups:
                plan = _Plan(candidates, blocks, None, None)
            else:
                firings = tuple(_Firing.of(rule, None) for rule in candidates)
                plan = _Plan(candidates, blocks, firings, _bridges(candidates))
            if len(self._plans) >= _CACHE_SIZE:
                self._plans.clear()
            self._plans[labels] = plan
        return plan

    def _groups(self, chunks: LabelledSet, positions: Iterable[int]) -> list[_LinkedGroup]:
        """Linked groups among the chunks at ``positions`` (ascending), each with its carriers
        of rule labels. Groups and their links are in positions, not input indices: a removal
        re-links one group from its own members, in work linear in the group."""
        indexed = self._by_label
        labels = chunks.labels
        chosen = [(p, chunks.chunks[p].metadata) for p in positions]
        out = []
        for group in link_groups(chosen, self.linking_keys):
            carriers: dict[str, list[int]] = {}
            for member in group.members:  # ascending, as given
                for label in labels[member]:
                    if label in indexed:
                        carriers.setdefault(label, []).append(member)
            out.append(_LinkedGroup(group, carriers))
        return out

    def _safe_subset(
        self,
        chunks: LabelledSet,
        carriers: Mapping[str, list[int]],
        overlap: bool,
        blocks: Sequence[RuleSpec],
        groups: list[_LinkedGroup] | None,
    ) -> dict[int, str]:
        """Greedy, as documented: while a block rule fires, remove the carriers of its trigger
        label with the fewest carriers (ties: lowest best score, then latest in retrieval).

        Removing chunks can stop a rule from firing but never start one, so one pass over the
        rules in policy order sees them in the order the documented loop would. A linked rule
        fires in each group that holds all its labels, independently of the others: one pass
        over the groups removes its carriers in each, and the group is linked again without
        them (a removed chunk may have joined the others). The subgroups lack the removed
        label, so the rule cannot fire in them again: each rule costs work linear in the set.
        ``groups`` are the linked groups of the whole set, when already computed; after a
        context rule removes chunks they are linked again from the rest, when needed.
        """
        if not (overlap or self._needs_groups):
            return _label_greedy(chunks, carriers, blocks)
        removed_by: list[str | None] = [None] * len(chunks)  # the rule that removed each one
        remaining = {label: len(positions) for label, positions in carriers.items()}
        for rule in blocks:
            labels = rule.trigger.all_present
            if 0 in map(remaining.__getitem__, labels):
                continue  # a label with no carrier left: it fires nowhere
            if rule.trigger.scope == "context":
                alive = {label: _alive(carriers[label], removed_by) for label in labels}
                if _remove(rule, alive, chunks, removed_by, remaining):
                    groups = None  # linked again from what is left when a linked rule needs them
                continue
            if groups is None:
                groups = self._groups(chunks, _alive(range(len(chunks)), removed_by))
            kept: list[_LinkedGroup] = []
            for group in groups:
                gone = _remove(rule, group.carriers, chunks, removed_by, remaining)
                if gone:
                    dropped = set(gone)
                    left = [m for m in group.group.members if m not in dropped]
                    kept.extend(self._groups(chunks, left))
                else:
                    kept.append(group)
            groups = kept
        positions = compress(range(len(chunks)), removed_by)
        rules = cast("Iterator[str]", compress(removed_by, removed_by))  # the non-None ones
        return dict(zip(map(chunks.indices.__getitem__, positions), rules, strict=True))

    def _bridges(self, firings: Sequence[_Firing]) -> tuple[Bridge, ...]:
        """The bridges of the distinct rules that fired: computed once per set of rules (a
        policy fires few distinct sets), so a retrieved set does not rebuild them."""
        fired = tuple(dict.fromkeys(id(f.rule) for f in firings))
        bridges = self._bridge_cache.get(fired)
        if bridges is None:
            by_id = {id(f.rule): f.rule for f in firings}
            bridges = _bridges([by_id[i] for i in fired])
            if len(self._bridge_cache) >= _CACHE_SIZE:
                self._bridge_cache.clear()
            self._bridge_cache[fired] = bridges
        return bridges


@dataclass(frozen=True, slots=True)
class _LinkedGroup:
    """A linked group (members and links in positions) and its carriers of rule labels."""

    group: Group
    carriers: Mapping[str, list[int]]  # rule label -> members carrying it, ascending


def _pools(rule: RuleSpec, groups: Sequence[_LinkedGroup]) -> Sequence[_LinkedGroup | None]:
    """Where ``rule`` fires: the whole set (None), or each linked group holding all its labels."""
    if rule.trigger.scope == "context":
        return _WHOLE_SET
    wanted = rule.trigger.all_present
    return [g for g in groups if all(label in g.carriers for label in wanted)]


def _alive(positions: Iterable[int], removed_by: list[str | None]) -> list[int]:
    """The positions not removed yet, in order."""
    return list(filterfalse(removed_by.__getitem__, positions))


def _remove(
    rule: RuleSpec,
    carriers: Mapping[str, list[int]],
    chunks: LabelledSet,
    removed_by: list[str | None],
    remaining: dict[str, int],
) -> list[int]:
    """Remove, for ``rule``, the carriers (given per label, none removed yet) of its label with
    the fewest, when every trigger label has one; the positions removed (none when it does
    not fire there)."""
    labels = rule.trigger.all_present
    if not all(carriers.get(label) for label in labels):
        return []
    gone = carriers[_removal_label(labels, carriers, chunks)]
    for position in gone:
        removed_by[position] = rule.name
        for other in chunks.labels[position]:
            if other in remaining:
                remaining[other] -= 1
    return gone


def _label_greedy(
    chunks: LabelledSet, carriers: Mapping[str, list[int]], blocks: Sequence[RuleSpec]
) -> dict[int, str]:
    """The documented greedy when every rule looks at the whole set and no chunk carries two
    rule labels: removing a label's carriers then touches no other label, so the loop runs on
    labels alone, each removing rule once, block rules first, each in policy order."""
    removed: dict[int, str] = {}
    spent: set[str] = set()
    for rule in blocks:
        labels = rule.trigger.all_present
        if spent.isdisjoint(labels):
            label = _removal_label(labels, carriers, chunks)
            spent.add(label)
            removed.update(dict.fromkeys(carriers[label], rule.name))
    indices = chunks.indices
    if indices == range(len(indices)):  # positions are the input indices
        return {p: removed[p] for p in sorted(removed)}
    return {indices[p]: removed[p] for p in sorted(removed)}


def _removal_label(
    labels: Sequence[str], carriers: Mapping[str, list[int]], chunks: LabelledSet
) -> str:
    """The trigger label whose carriers go: the fewest carriers; on a tie, see
    :func:`_removal_key` (computed only then: it reads every carrier's score)."""
    if len(labels) == 2:  # most rules pair two labels
        first, second = labels
        size, other = len(carriers[first]), len(carriers[second])
        if size != other:
            return first if size < other else second
        first_key = _removal_key(first, chunks, carriers[first])
        second_key = _removal_key(second, chunks, carriers[second])
        return first if first_key < second_key else second
    counts = [len(carriers[label]) for label in labels]
    fewest = min(counts)
    if counts.count(fewest) == 1:
        return labels[counts.index(fewest)]
    tied = [label for label, count in zip(labels, counts, strict=True) if count == fewest]
    return min(tied, key=lambda name: _removal_key(name, chunks, carriers[name]))


def _removal_key(
    label: str, chunks: LabelledSet, positions: list[int]
) -> tuple[int, float, int, str]:
    items, indices = chunks.chunks, chunks.indices
    score_at = items.score_at if type(items) is ChunkList else None
    best, first = _NO_SCORE, indices[positions[0]]
    for position in positions:  # a few carriers: one plain loop for both
        score = items[position].score if score_at is None else score_at(position)
        if score is not None and score > best:
            best = score
        first = min(first, indices[position])
    return len(positions), best, -first, label


def _violation(
    firing: _Firing,
    indices: Sequence[int] | None,
    carriers: Mapping[str, list[int]],
    overlap: bool,
) -> Violation:
    """The violation of ``firing``: every carrier of its labels (in its linked group, for a
    linked rule), as input indices (positions when ``indices`` is None)."""
    _, pool, name, action, message, labels, scope = firing
    if pool is not None:
        carriers = pool.carriers
    # Each carrier list is sorted: their sorted concatenation merges runs; duplicates exist
    # only when some chunk carries two of the labels.
    if len(labels) == 2:  # most rules pair two labels
        merged = carriers[labels[0]] + carriers[labels[1]]
        merged.sort()
    else:
        merged = sorted([p for label in labels for p in carriers[label]])
    positions: Iterable[int] = dict.fromkeys(merged) if overlap else merged
    found = tuple(positions) if indices is None else tuple(map(indices.__getitem__, positions))
    if pool is None:
        return _new_violation(name, action, message, labels, found, scope, ())
    links = connecting_links(pool.group.links, positions)
    if indices is not None:  # the group's links join positions: report input indices
        links = tuple(Link(indices[lk.a], indices[lk.b], lk.key, lk.value) for lk in links)
    return _new_violation(name, action, message, labels, found, scope, links)


# Violations are made on every call (a few per check): filled slot by slot.
_new_violation = slot_filler(Violation)


def _bridges(rules: Sequence[RuleSpec]) -> tuple[Bridge, ...]:
    """Labels shared by the triggers of two or more of ``rules`` (distinct rules that fired)."""
    rules_by_label: dict[str, list[str]] = {}
    for rule in rules:
        for label in rule.trigger.all_present:
            rules_by_label.setdefault(label, []).append(rule.name)
    return tuple(
        Bridge(label, tuple(names)) for label, names in rules_by_label.items() if len(names) > 1
    )


def _stage(policy: Policy, inputs: StageInputs) -> CombinationGuard | None:
    return CombinationGuard.from_policy(policy)


STAGE = StageSpec("combination", "rules", "set", _stage)
