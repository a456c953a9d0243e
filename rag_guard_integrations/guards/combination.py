"""Combination rules over the retrieved set, and the greedy subset on which no block rule fires."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rag_guard_integrations.core.decisions import Bridge, Violation
from rag_guard_integrations.guards.linking import Group, connecting_links, link_groups

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from rag_guard_integrations.policy.schema import Policy, RuleSpec


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
    rule: RuleSpec
    pool: tuple[Labelled, ...]
    group: Group | None


class CombinationGuard:
    """Fire a rule when all its trigger labels occur across the set (or inside one linked group).

    Rules are indexed by label, so the cost grows with the labels present, not with every rule
    times every chunk.

    Example:
        >>> guard = CombinationGuard.from_policy(load_policy("default"))  # doctest: +SKIP
        >>> outcome = guard([Labelled(0, frozenset({"financial"})),
        ...                  Labelled(1, frozenset({"entity_identifier"}))])  # doctest: +SKIP
        >>> [v.rule for v in outcome.violations]  # doctest: +SKIP
        ['financial_entity_reveal']
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

    @classmethod
    def from_policy(cls, policy: Policy) -> CombinationGuard | None:
        """The combination guard of ``policy``, or None when it has no rules."""
        return cls(policy.rules, policy.linking.keys) if policy.rules else None

    @property
    def labels(self) -> frozenset[str]:
        """Every label some rule triggers on."""
        return frozenset(self._by_label)

    def __call__(self, items: Sequence[Labelled]) -> CombinationOutcome:
        """Evaluate the rules on ``items`` and compute the removals that make the set safe."""
        firings = self._firings(items, actions=("block", "warn"))
        violations = tuple(_violation(f) for f in firings if f.rule.action == "block")
        warnings = tuple(_violation(f) for f in firings if f.rule.action == "warn")
        removed = self._safe_subset(items) if violations else {}
        return CombinationOutcome(violations, warnings, _bridges(firings), removed)

    def _firings(self, items: Sequence[Labelled], actions: tuple[str, ...]) -> list[_Firing]:
        present: dict[int, int] = {}
        for label in {label for item in items for label in item.labels}:
            for position in self._by_label.get(label, ()):
                present[position] = present.get(position, 0) + 1
        candidates = [
            self.rules[p]
            for p in sorted(present)
            if present[p] == len(self.rules[p].trigger.all_present)
            and self.rules[p].action in actions
        ]
        if not candidates:
            return []
        groups = self._groups(items) if self._needs_groups else []
        by_index = {item.index: item for item in items}
        firings: list[_Firing] = []
        for rule in candidates:
            wanted = set(rule.trigger.all_present)
            if rule.trigger.scope == "context":
                firings.append(_Firing(rule, tuple(items), None))
                continue
            for group in groups:
                pool = tuple(by_index[i] for i in group.members)
                if wanted <= {label for item in pool for label in item.labels}:
                    firings.append(_Firing(rule, pool, group))
        return firings

    def _groups(self, items: Sequence[Labelled]) -> list[Group]:
        return link_groups([(item.index, item.metadata) for item in items], self.linking_keys)

    def _safe_subset(self, items: Sequence[Labelled]) -> dict[int, str]:
        """Greedy, as documented: while a block rule fires, remove the carriers of its trigger
        label with the fewest carriers (ties: lowest best score, then latest in retrieval)."""
        active = list(items)
        removed: dict[int, str] = {}
        while firings := self._firings(active, actions=("block",)):
            firing = firings[0]
            carriers = {
                label: [item for item in firing.pool if label in item.labels]
                for label in firing.rule.trigger.all_present
            }
            label = min(carriers, key=lambda name: _removal_key(name, carriers[name]))
            gone = {item.index for item in carriers[label]}
            removed.update(dict.fromkeys(sorted(gone), firing.rule.name))
            active = [item for item in active if item.index not in gone]
        return removed


def _removal_key(label: str, carriers: list[Labelled]) -> tuple[int, float, int, str]:
    scores = [item.score for item in carriers if item.score is not None]
    best = max(scores) if scores else float("-inf")
    return len(carriers), best, -min(item.index for item in carriers), label


def _violation(firing: _Firing) -> Violation:
    rule = firing.rule
    labels = tuple(rule.trigger.all_present)
    carriers = tuple(item.index for item in firing.pool if not item.labels.isdisjoint(labels))
    links = connecting_links(firing.group.links, carriers) if firing.group is not None else ()
    message = rule.message or f"{' + '.join(labels)} together in the retrieved context"
    return Violation(rule.name, rule.action, message, labels, carriers, rule.trigger.scope, links)


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
