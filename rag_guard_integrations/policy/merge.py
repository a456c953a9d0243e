"""Merging policies loaded beside each other (``load_policy(a, b)``, the files one ``extends``
list names): every setting takes the stricter value the strictness table gives, or the load
fails naming the setting and both policies.

Only the operator can loosen, and only by saying so: a policy loaded beside another never
relaxes it (an extending file relaxes what it extends only where its ``loosen`` list names the
setting, see :mod:`.refine`). Errors name the policies as the user named them (a built-in by
its name, a file by its path), never a file only reached through ``extends``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rag_guard_integrations.core.errors import PolicyError, Unordered
from rag_guard_integrations.policy.orders import Keyed, Leaf, Ranked, Section, Text
from rag_guard_integrations.policy.strictness import STRICTNESS, fields_of
from rag_guard_integrations.policy.tree import (
    Named,
    build,
    covers,
    effective,
    join,
    shown,
    widened_vocabulary,
)

if TYPE_CHECKING:
    from collections.abc import Sequence

    from rag_guard_integrations.policy.schema import Policy


def beside(named: Sequence[Named]) -> Policy:
    """Merge policies loaded beside each other: every setting takes the stricter value.

    Raises:
        PolicyError: two values have no order (two labels for one recogniser), a loud
            setting differs (``mode``), a value one policy relaxed on purpose would give way,
            or one definition (a rule, a clause) comes from two files.

    Example:
        >>> from rag_guard_integrations import load_policy, parse_policy
        >>> trial = parse_policy("on_no_intent: access_only\\nclassify: never\\n", "trial")
        >>> merged = beside([("contracts", load_policy("contracts")), ("trial", trial)])
        >>> merged.on_no_intent, merged.classify
        ('refuse', 'fill_missing')
    """
    if len(named) == 1:
        return named[0][1]
    merger = _Beside(named)
    tree = merger.node("", "", [(i, effective(policy)) for i, (_, policy) in enumerate(named)])
    policies = [policy for _, policy in named]
    merged = build(
        tree,
        " + ".join(label for label, _ in named),
        name="+".join(policy.name or label for label, policy in named),
        sources=tuple(dict.fromkeys(s for p in policies for s in p.sources)),
        origins=merger.origins,
        loosen=sorted({path for policy in policies for path in policy.loosen}),
    )
    for label, policy in named:
        if wider := widened_vocabulary(policy, merged):
            adding = next(other for other, p in named if wider & p.vocabulary.keys())
            raise PolicyError(
                f"labels: {adding} adds {', '.join(sorted(wider))} to the vocabulary of {label}, "
                "which blocks labels outside it (on_unknown_label: block), so chunks claiming "
                f"them would pass; declare them in {label}, or in a policy that extends it"
            )
    return merged


class _Beside:
    """One beside merge: walks the table over the policies' settings, side by side."""

    def __init__(self, named: Sequence[Named]) -> None:
        self.labels = [label for label, _ in named]
        self.policies = [policy for _, policy in named]
        self.origins: dict[str, str] = {}

    def node(self, path: str, pattern: str, items: list[tuple[int, Any]]) -> Any:
        order = STRICTNESS[pattern]
        if isinstance(order, Section):
            present = [(i, value) for i, value in items if value is not None]
            if not present:
                return None
            if order.widens and len(present) < len(items):
                return None  # a way in that one policy lacks: none is the stricter
            return {
                field: self.node(
                    join(path, field), join(pattern, field), [(i, v[field]) for i, v in present]
                )
                for field in fields_of(pattern)
            }
        if isinstance(order, Keyed):
            return self.keyed(path, pattern, order, items)
        return self.leaf(path, order, items)

    def keyed(self, path: str, pattern: str, order: Keyed, items: list[tuple[int, Any]]) -> Any:
        out: dict[str, Any] = {}
        for key in dict.fromkeys(key for _, value in items for key in value):
            where = f"{path}.{key}"
            entries = [(i, value[key]) for i, value in items if key in value]
            if order.by_origin:
                self.one_origin(where, key, entries)
            if order.entry is not None:
                out[key] = self.leaf(where, order.entry, entries)
            else:
                fields = fields_of(f"{pattern}.*")
                out[key] = {
                    f: self.node(
                        f"{where}.{f}", f"{pattern}.*.{f}", [(i, e[f]) for i, e in entries]
                    )
                    for f in fields
                }
        if order.widens:
            holding = [(i, set(value)) for i, value in items if value]
            for i, keys in holding[1:]:
                first, first_keys = holding[0]
                if keys != first_keys:
                    odd = min(keys - first_keys or first_keys - keys)
                    raise PolicyError(
                        f"{path}: {self.labels[first]} and {self.labels[i]} hold different "
                        f"{path} ({odd!r} is in one only); loaded beside each other a query "
                        f"could ask for either's, which widens both: define them in one "
                        f"policy that extends the other and lists {path} under loosen"
                    )
        return out

    def one_origin(self, where: str, key: str, entries: list[tuple[int, Any]]) -> None:
        """One definition merges as one; two files defining the same name is an error."""
        first = entries[0][0]
        origin = self.policies[first].origins.get(where, self.labels[first])
        for i, _ in entries[1:]:
            if self.policies[i].origins.get(where, self.labels[i]) != origin:
                kind = "rule" if where.startswith("rules.") else "clause"
                raise PolicyError(
                    f"{self.labels[i]}: {kind} {key!r} is already defined in "
                    f"{self.labels[first]}; rename one of them"
                )
        self.origins[where] = origin

    def leaf(self, path: str, order: Leaf, items: list[tuple[int, Any]]) -> Any:
        held, value = items[0]
        for i, candidate in items[1:]:
            try:
                merged = order.merge(value, candidate)
            except Unordered:
                raise PolicyError(
                    f"{path} is {shown(value)} in {self.labels[held]} but {shown(candidate)} "
                    f"in {self.labels[i]}, and neither is stricter; policies loaded beside each "
                    "other must agree on it: set it once, in a policy that extends the other"
                ) from None
            if merged != value and merged == candidate:
                held = i
            value = merged
        if isinstance(order, Text):
            return value
        for i, candidate in items:
            loosened = covers(self.policies[i].loosen, path)
            if candidate != value and (loosened or (isinstance(order, Ranked) and order.loud)):
                raise PolicyError(self.gives_way(path, (i, candidate), (held, value), loosened))
        return value

    def gives_way(
        self, path: str, loser: tuple[int, Any], holder: tuple[int, Any], loosened: bool
    ) -> str:
        """The error for a value that would give way silently: one a policy relaxed on purpose,
        or a loud setting's."""
        weak, strong = self.labels[loser[0]], self.labels[holder[0]]
        head = (
            f"{path} is {shown(loser[1])} in {weak} but {shown(holder[1])} in {strong}, "
            "loaded beside it"
        )
        if loosened:
            return (
                f"{head}; {weak} loosens {path} on purpose and the stricter value would undo "
                f"that: load {weak} alone (it extends what it needs)"
            )
        return (
            f"{head}; {path} never gives way silently: to relax it, write a policy that "
            f"extends {strong}, sets {path} and lists it under loosen"
        )
