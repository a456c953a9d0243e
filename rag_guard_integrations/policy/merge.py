"""Merging policies by the strictness table: beside each other (the stricter value of every
setting wins) and extended by a file (a looser value needs ``loosen``; inherited rules change
under ``overrides``).

Only the operator can loosen, and only by saying so: a policy loaded beside another never
relaxes it, and an extending file relaxes what it extends only where its ``loosen`` list names
the setting. Errors name the setting and the policies as the user named them (a built-in by
its name, a file by its path), never a file only reached through ``extends``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from rag_guard_integrations.core.constraints import MATCH_ALL
from rag_guard_integrations.core.errors import PolicyError
from rag_guard_integrations.core.labels import clean_label
from rag_guard_integrations.policy.messages import describe_errors, line_at
from rag_guard_integrations.policy.schema import CHECKING_SECTIONS, Policy
from rag_guard_integrations.policy.strictness import (
    OVERRIDABLE,
    STRICTNESS,
    Keyed,
    Leaf,
    Ranked,
    Section,
    Text,
    Unordered,
    fields_of,
)

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    import yaml

Named = tuple[str, Policy]
"""A policy and how the user named it (a built-in's name, a file's path)."""
_MISSING: Any = object()
_CHECKING_KEYS = (*CHECKING_SECTIONS, "classifiers")
_DROPPED = frozenset({"name", "extends", "loosen", "overrides"})
# Texts a policy may leave to the schema's default; unset, they give way to another's.
_TEXTS = tuple(p for p, order in STRICTNESS.items() if isinstance(order, Text) and "*" not in p)


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
    tree = merger.node("", "", [(i, _effective(policy)) for i, (_, policy) in enumerate(named)])
    policies = [policy for _, policy in named]
    merged = _build(
        tree,
        " + ".join(label for label, _ in named),
        name="+".join(policy.name or label for label, policy in named),
        sources=tuple(dict.fromkeys(s for p in policies for s in p.sources)),
        origins=merger.origins,
        loosen=sorted({path for policy in policies for path in policy.loosen}),
    )
    for label, policy in named:
        if wider := _widened_vocabulary(policy, merged):
            adding = next(other for other, p in named if wider & p.vocabulary.keys())
            raise PolicyError(
                f"labels: {adding} adds {', '.join(sorted(wider))} to the vocabulary of {label}, "
                "which blocks labels outside it (on_unknown_label: block), so chunks claiming "
                f"them would pass; declare them in {label}, or in a policy that extends it"
            )
    return merged


def extend(
    parents: Sequence[Named], raw: Mapping[str, Any], source: str, root: yaml.Node | None
) -> Policy:
    """The policy of one file (``raw``, its validated data) over the policies it extends.

    Raises:
        PolicyError: a value is looser than the inherited one (or has no order with it) and
            the file's ``loosen`` does not name it; an override names no inherited rule; a
            ``loosen`` entry relaxes nothing; the file adds checks under an inherited setting
            that switches them off.
    """
    data = {key: value for key, value in raw.items() if not key.startswith("__")}
    child = Policy.model_validate(data)
    name = str(
        data.get("name") or (Path(source).stem if source.endswith((".yaml", ".yml")) else source)
    )
    if not parents:
        if child.loosen or child.overrides.rules:
            raise PolicyError(
                f"{source}: loosen and overrides relax what a policy extends, and this one "
                "extends nothing; add extends or remove them"
            )
        origins = {f"rules.{rule.name}": source for rule in child.rules}
        origins.update({f"clauses.{clause}": source for clause in child.clauses})
        return child.model_copy(update={"name": name, "sources": (source,), "origins": origins})
    parent = beside(parents)
    labels = " + ".join(label for label, _ in parents)
    refine = _Extend(source, labels, child.loosen, root, dict(parent.origins))
    old = _effective(parent)
    refine.override(old["rules"], child)
    tree = refine.node("", "", old, _tree(data, ""), _effective(child))
    refine.check_switch_off(old, data)
    merged = _build(
        tree,
        source,
        name=name,
        sources=tuple(dict.fromkeys((*parent.sources, source))),
        origins=refine.origins,
        loosen=sorted({*parent.loosen, *child.loosen}),
    )
    wider = sorted(_widened_vocabulary(parent, merged))
    if unasked := [label for label in wider if not refine.covered(f"labels.{label}")]:
        raise PolicyError(
            f"{source}: labels {', '.join(unasked)} widen the vocabulary of {labels}, which "
            "blocks labels outside it (on_unknown_label: block); list "
            f"labels.{unasked[0]} under loosen to accept them on purpose"
        )
    refine.check_used()
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
            return {
                field: self.node(
                    _join(path, field), _join(pattern, field), [(i, v[field]) for i, v in present]
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
                    f"{path} is {_shown(value)} in {self.labels[held]} but {_shown(candidate)} "
                    f"in {self.labels[i]}, and neither is stricter; policies loaded beside each "
                    "other must agree on it: set it once, in a policy that extends the other"
                ) from None
            if merged != value and merged == candidate:
                held = i
            value = merged
        if isinstance(order, Text):
            return value
        for i, candidate in items:
            loosened = _covers(self.policies[i].loosen, path)
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
            f"{path} is {_shown(loser[1])} in {weak} but {_shown(holder[1])} in {strong}, "
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


class _Extend:
    """One extending file over its parents: walks the table over the inherited settings and
    the values the file sets."""

    def __init__(
        self,
        source: str,
        parents: str,
        loosen: list[str],
        root: yaml.Node | None,
        origins: dict[str, str],
    ) -> None:
        self.source = source
        self.parents = parents
        self.loosen = loosen
        self.used: set[str] = set()
        self.root = root
        self.origins = origins

    def covered(self, path: str) -> bool:
        """True when the file's loosen list names ``path`` or a setting above it."""
        hits = [entry for entry in self.loosen if _covers([entry], path)]
        self.used.update(hits)
        return bool(hits)

    def node(self, path: str, pattern: str, old: Any, raw: Any, new: Any) -> Any:
        if raw is _MISSING:
            return old
        order = STRICTNESS[pattern]
        if isinstance(order, Section):
            if raw is None or old is None:
                if old is not None:
                    self.widen(path, f"removes the {path} section")
                return new
            return {
                field: self.node(
                    _join(path, field),
                    _join(pattern, field),
                    old[field],
                    raw.get(field, _MISSING),
                    new[field],
                )
                for field in fields_of(pattern)
            }
        if isinstance(order, Keyed):
            return self.keyed(path, pattern, old, (raw, new))
        return self.leaf(path, order, old, new)

    def keyed(self, path: str, pattern: str, old: Any, written: tuple[Any, Any]) -> Any:
        """A collection: ``written`` is what the file sets (raw) and its effective values."""
        order = STRICTNESS[pattern]
        assert isinstance(order, Keyed)
        raw, new = written
        out = dict(old)
        for key, entry in raw.items():
            where = f"{path}.{key}"
            if key not in old:
                if order.widens and old:
                    self.widen(where, f"adds {key!r} to the {path}")
                out[key] = new[key]
                if order.by_origin:
                    self.origins[where] = self.source
            elif order.by_origin:
                kind, fix = (
                    ("rule", ", or change it under overrides")
                    if path == "rules"
                    else ("clause", "")
                )
                raise PolicyError(
                    f"{self.source}: {kind} {key!r} is already defined in {self.parents}; "
                    f"rename it{fix}"
                )
            elif order.entry is not None:
                out[key] = self.leaf(where, order.entry, old[key], new[key])
            else:
                out[key] = {
                    f: self.node(
                        f"{where}.{f}",
                        f"{pattern}.*.{f}",
                        old[key][f],
                        entry.get(f, _MISSING),
                        new[key][f],
                    )
                    for f in fields_of(f"{pattern}.*")
                }
        return out

    def leaf(self, path: str, order: Leaf, old: Any, new: Any, written: str = "") -> Any:
        """The value ``path`` takes: the file's ``new`` where loosen names it, else ``new``
        refining ``old``; a looser ``new`` is an error. ``written``: where the file sets it,
        when not at ``path`` itself."""
        if self.covered(path):
            return new
        if order.loosens(new, old):
            raise PolicyError(
                f"{self.source}: {path} {_clip(order.why(new, old))} from {self.parents}"
                f"{self.line(written or path)}; list {path} under loosen to relax it on purpose"
            )
        return order.inherit(old, new)

    def widen(self, path: str, change: str) -> None:
        """Refuse a change that lets more through (``change`` says what), unless loosened."""
        if not self.covered(path):
            raise PolicyError(
                f"{self.source}: {path}: this file {change} of {self.parents}, which lets more "
                f"through{self.line(path)}; list {path} under loosen to do it on purpose"
            )

    def override(self, rules: dict[str, Any], child: Policy) -> None:
        """Apply the file's ``overrides`` to the inherited rules (by name), field by field."""
        for name, change in child.overrides.rules.items():
            if name not in rules:
                raise PolicyError(
                    f"{self.source}: overrides.rules.{name} names no rule of {self.parents}; "
                    "override one of their rules, or define a new one under rules"
                )
            rule = dict(rules[name])
            for field in OVERRIDABLE:
                value = getattr(change, field)
                if value is not None:
                    order = STRICTNESS[f"rules.*.{field}"]
                    assert not isinstance(order, Section | Keyed)
                    path = f"rules.{name}.{field}"
                    rule[field] = self.leaf(path, order, rule[field], value, f"overrides.{path}")
            rules[name] = rule

    def check_switch_off(self, old: Mapping[str, Any], raw: Mapping[str, Any]) -> None:
        """A setting that switches checks off (``mode: shadow``) and that the file inherits
        must be restated by a file that adds checks of its own: they would be off unasked."""
        adds_checks = any(raw.get(key) for key in _CHECKING_KEYS)
        loud = [(p, o) for p, o in STRICTNESS.items() if isinstance(o, Ranked) and o.loud]
        for path, order in loud:
            if adds_checks and path not in raw and (value := old[path]) != order.values[-1]:
                raise PolicyError(
                    f"{self.source} adds checks to {self.parents}, which sets {path}: "
                    f"{value}; that would switch them off without this file saying so: set "
                    f"{path}: {value} here too, or extend a policy without it"
                )

    def check_used(self) -> None:
        if unused := [entry for entry in self.loosen if entry not in self.used]:
            raise PolicyError(
                f"{self.source}: loosen lists {unused[0]}, but this file relaxes nothing "
                f"under it{self.line('loosen')}; remove it, or set the value to relax"
            )

    def line(self, path: str) -> str:
        line = line_at(self.root, tuple(path.split(".")))
        return "" if line is None else f" (line {line})"


def _effective(policy: Policy) -> dict[str, Any]:
    """A policy's settings as a tree: keyed lists as mappings, every access attribute's match,
    and None for a text the policy leaves to the default."""
    tree: dict[str, Any] = _tree(policy.model_dump(exclude=set(_DROPPED)), "")
    access = tree["access"]
    access["match"] = {a: access["match"].get(a, MATCH_ALL) for a in access["attributes"]}
    for path in _TEXTS:
        *parents, name = path.split(".")
        owner: Any = policy
        holder = tree
        for part in parents:
            owner, holder = getattr(owner, part), holder[part]
        if owner is not None and name not in owner.model_fields_set:
            holder[name] = None
    return tree


def _tree(value: Any, pattern: str) -> Any:
    """``value`` with the table's keyed lists (rules, patterns) turned into mappings by key."""
    order = STRICTNESS.get(pattern)
    if isinstance(order, Keyed):
        if order.key is not None and isinstance(value, list):
            value = {item[order.key]: item for item in value}
        if order.labels and isinstance(value, dict):
            value = {clean_label(key): item for key, item in value.items()}
        if order.entry is not None or not isinstance(value, dict):
            return value
        return {key: _tree(item, f"{pattern}.*") for key, item in value.items()}
    if isinstance(value, dict) and (pattern == "" or isinstance(order, Section)):
        return {key: _tree(item, _join(pattern, key)) for key, item in value.items()}
    return value


def _build(tree: dict[str, Any], where: str, **fields: Any) -> Policy:
    data = _untree(tree, "")
    for path in _TEXTS:
        *parents, name = path.split(".")
        holder = data
        for part in parents:
            holder = holder[part] or {}
        if holder.get(name, "") is None:
            del holder[name]
    access = data["access"]
    access["match"] = {
        a: m for a, m in access["match"].items() if m != MATCH_ALL and a in access["attributes"]
    }
    try:
        return Policy.model_validate({**data, **fields})
    except ValidationError as error:
        raise PolicyError(describe_errors(error, where, None)) from None


def _untree(value: Any, pattern: str) -> Any:
    """The inverse of :func:`_tree`."""
    order = STRICTNESS.get(pattern)
    if isinstance(order, Keyed):
        if order.entry is None:
            value = {key: _untree(item, f"{pattern}.*") for key, item in value.items()}
        return list(value.values()) if order.key is not None else value
    if isinstance(value, dict) and (pattern == "" or isinstance(order, Section)):
        return {key: _untree(item, _join(pattern, key)) for key, item in value.items()}
    return value


def _widened_vocabulary(policy: Policy, merged: Policy) -> set[str]:
    """Labels ``merged`` knows beyond ``policy``'s vocabulary when ``policy`` blocks labels
    outside it: chunks claiming them would pass ``merged`` but not ``policy``."""
    if policy.on_unknown_label != "block" or not policy.declares_vocabulary:
        return set()
    return set(merged.vocabulary) - set(policy.vocabulary)


def _covers(loosen: Sequence[str], path: str) -> bool:
    return any(path == entry or path.startswith(f"{entry}.") for entry in loosen)


def _join(path: str, field: str) -> str:
    return f"{path}.{field}" if path else field


def _shown(value: Any) -> str:
    return _clip(repr(value))


def _clip(text: str) -> str:
    return text if len(text) <= 80 else text[:77] + "..."
