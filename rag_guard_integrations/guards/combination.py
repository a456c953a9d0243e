"""Combination rules over the retrieved set, and the greedy subset on which no block rule fires."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rag_guard_integrations.core.decisions import Bridge, Violation
from rag_guard_integrations.guards.linking import Group, connecting_links, link_groups
from rag_guard_integrations.policy.loader import load_policy

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

    from rag_guard_integrations.policy.loader import PolicyRef
    from rag_guard_integrations.policy.schema import RuleSpec

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


@dataclass(frozen=True, slots=True)
class CombinationOutcome:
    """Rules that fired (block and warn apart), bridge labels, and which chunks were removed."""

    violations: tuple[Violation, ...] = ()
    warnings: tuple[Violation, ...] = ()
    bridges: tuple[Bridge, ...] = ()
    removed: Mapping[int, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class _Firing:
    """A rule that fired, on the whole set (``members`` None) or inside one linked group."""

    rule: RuleSpec
    members: frozenset[int] | None
    group: Group | None


class CombinationGuard:
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

    def __init__(self, rules: Sequence[RuleSpec], linking_keys: Sequence[str] = ()) -> None:
        self.rules = tuple(rules)
        self.linking_keys = tuple(linking_keys)
        self._by_label: dict[str, list[int]] = {}
        for position, rule in enumerate(self.rules):
            for label in rule.trigger.all_present:
                self._by_label.setdefault(label, []).append(position)
        self._needs_groups = any(r.trigger.scope == "linked" for r in self.rules)

    @classmethod
    def from_policy(cls, policy: PolicyRef) -> CombinationGuard | None:
        """The combination guard of ``policy``, or None when it has no rules."""
        policy = load_policy(policy)
        return cls(policy.rules, policy.linking.keys) if policy.rules else None

    @property
    def labels(self) -> frozenset[str]:
        """Every label some rule triggers on."""
        return frozenset(self._by_label)

    def __call__(self, items: Sequence[Labelled]) -> CombinationOutcome:
        """Evaluate the rules on ``items`` and compute the removals that make the set safe."""
        carriers = _carriers(items)
        candidates = self._candidates(carriers)
        if not candidates:
            return CombinationOutcome()
        groups = self._groups(items, range(len(items))) if self._needs_groups else []
        firings = [
            _Firing(rule, members, group)
            for rule in candidates
            for members, group in self._pools(rule, groups)
        ]
        violations = tuple(
            _violation(f, items, carriers) for f in firings if f.rule.action in REMOVING
        )
        warnings = tuple(_violation(f, items, carriers) for f in firings if f.rule.action == "warn")
        blocks = [rule for rule in candidates if rule.action in REMOVING]
        removed = self._safe_subset(items, carriers, blocks) if violations else {}
        return CombinationOutcome(violations, warnings, _bridges(firings), removed)

    def _candidates(self, carriers: Mapping[str, list[int]]) -> list[RuleSpec]:
        """Rules whose trigger labels all occur somewhere in the set, in policy order."""
        present: dict[int, int] = {}
        for label in carriers:
            for position in self._by_label.get(label, ()):
                present[position] = present.get(position, 0) + 1
        return [
            self.rules[p]
            for p in sorted(present)
            if present[p] == len(self.rules[p].trigger.all_present)
        ]

    def _groups(self, items: Sequence[Labelled], positions: Iterable[int]) -> list[_LinkedGroup]:
        """Linked groups among ``items[p]`` for ``positions``, with the labels they carry."""
        position = {item.index: p for p, item in enumerate(items)}
        chosen = [(items[p].index, items[p].metadata) for p in positions]
        out = []
        for group in link_groups(chosen, self.linking_keys):
            members = frozenset(position[i] for i in group.members)
            labels = frozenset(label for m in members for label in items[m].labels)
            out.append(_LinkedGroup(group, members, labels))
        return out

    @staticmethod
    def _pools(
        rule: RuleSpec, groups: Sequence[_LinkedGroup]
    ) -> list[tuple[frozenset[int] | None, Group | None]]:
        """Where ``rule`` fires: the whole set, or each linked group holding all its labels."""
        if rule.trigger.scope == "context":
            return [(None, None)]
        wanted = set(rule.trigger.all_present)
        return [(g.members, g.group) for g in groups if wanted <= g.labels]

    def _safe_subset(
        self, items: Sequence[Labelled], carriers: Mapping[str, list[int]], blocks: list[RuleSpec]
    ) -> dict[int, str]:
        """Greedy, as documented: while a block rule fires, remove the carriers of its trigger
        label with the fewest carriers (ties: lowest best score, then latest in retrieval).

        Removing chunks can stop a rule from firing but never start one, so one pass over the
        rules in policy order sees them in the order the documented loop would; a rule is
        looked at again after a removal because it may still fire in another linked group.
        """
        alive = [True] * len(items)
        remaining = {label: len(positions) for label, positions in carriers.items()}
        removed: dict[int, str] = {}
        groups: list[_LinkedGroup] | None = None
        position = 0
        while position < len(blocks):
            rule = blocks[position]
            if any(remaining[label] == 0 for label in rule.trigger.all_present):
                position += 1
                continue
            if rule.trigger.scope == "linked" and groups is None:
                groups = self._groups(items, (p for p in range(len(items)) if alive[p]))
            pools = self._pools(rule, groups or [])
            if not pools:
                position += 1
                continue
            members = pools[0][0]
            by_label = {
                label: [
                    p for p in carriers[label] if alive[p] and (members is None or p in members)
                ]
                for label in rule.trigger.all_present
            }
            label = min(by_label, key=lambda name: _removal_key(name, items, by_label[name]))
            for p in by_label[label]:
                alive[p] = False
                removed[items[p].index] = rule.name
                for other in items[p].labels:
                    remaining[other] -= 1
            if groups is not None:
                groups = self._without(groups, items, by_label[label])
        return dict(sorted(removed.items()))

    def _without(
        self, groups: list[_LinkedGroup], items: Sequence[Labelled], gone: list[int]
    ) -> list[_LinkedGroup]:
        """The groups after removing ``gone``: only the groups that held a removed chunk are
        linked again (a removed chunk may have been the link that joined the others)."""
        dropped = set(gone)
        out: list[_LinkedGroup] = []
        for group in groups:
            if dropped.isdisjoint(group.members):
                out.append(group)
            else:
                out.extend(self._groups(items, sorted(group.members - dropped)))
        return sorted(out, key=lambda g: min(g.members))


@dataclass(frozen=True, slots=True)
class _LinkedGroup:
    group: Group
    members: frozenset[int]
    labels: frozenset[str]


def _carriers(items: Sequence[Labelled]) -> dict[str, list[int]]:
    """Label -> positions (in ``items``) of the chunks carrying it."""
    out: dict[str, list[int]] = {}
    for position, item in enumerate(items):
        for label in item.labels:
            out.setdefault(label, []).append(position)
    return out


def _removal_key(
    label: str, items: Sequence[Labelled], positions: list[int]
) -> tuple[int, float, int, str]:
    scores = [score for p in positions if (score := items[p].score) is not None]
    best = max(scores, default=float("-inf"))
    return len(positions), best, -min(items[p].index for p in positions), label


def _violation(
    firing: _Firing, items: Sequence[Labelled], carriers: Mapping[str, list[int]]
) -> Violation:
    rule = firing.rule
    labels = tuple(rule.trigger.all_present)
    members = firing.members
    positions = set().union(*(carriers[label] for label in labels))
    if members is not None:
        positions &= members
    indices = tuple(items[p].index for p in sorted(positions))
    links = connecting_links(firing.group.links, indices) if firing.group is not None else ()
    message = rule.message or f"{' + '.join(labels)} together in the retrieved context"
    return Violation(rule.name, rule.action, message, labels, indices, rule.trigger.scope, links)


def _bridges(firings: Sequence[_Firing]) -> tuple[Bridge, ...]:
    """Labels shared by the triggers of two or more distinct rules that fired together."""
    rules_by_label: dict[str, list[str]] = {}
    for firing in firings:
        for label in firing.rule.trigger.all_present:
            names = rules_by_label.setdefault(label, [])
            if firing.rule.name not in names:
                names.append(firing.rule.name)
    return tuple(
        Bridge(label, tuple(names)) for label, names in rules_by_label.items() if len(names) > 1
    )
