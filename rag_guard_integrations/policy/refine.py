"""A file over the policies it ``extends``: it refines what they merge to, relaxes a setting
only where its ``loosen`` list names it, and changes an inherited rule by name under
``overrides`` (a weakening change needs loosen too).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from rag_guard_integrations.core.errors import PolicyError
from rag_guard_integrations.policy.merge import beside
from rag_guard_integrations.policy.messages import line_at
from rag_guard_integrations.policy.orders import Keyed, Leaf, Ranked, Section, Union
from rag_guard_integrations.policy.schema import CHECKING_SECTIONS, Policy
from rag_guard_integrations.policy.strictness import OVERRIDABLE, STRICTNESS, fields_of
from rag_guard_integrations.policy.tree import (
    MISSING,
    Named,
    build,
    clip,
    covers,
    effective,
    join,
    to_tree,
    widened_vocabulary,
)

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    import yaml

_CHECKING_KEYS = (*CHECKING_SECTIONS, "classifiers")


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
    old = effective(parent)
    refine.override(old["rules"], child)
    tree = refine.node("", "", old, to_tree(data, ""), effective(child))
    refine.check_switch_off(old, data)
    merged = build(
        tree,
        source,
        name=name,
        sources=tuple(dict.fromkeys((*parent.sources, source))),
        origins=refine.origins,
        loosen=sorted({*parent.loosen, *child.loosen}),
    )
    wider = sorted(widened_vocabulary(parent, merged))
    if unasked := [label for label in wider if not refine.covered(f"labels.{label}")]:
        raise PolicyError(
            f"{source}: labels {', '.join(unasked)} widen the vocabulary of {labels}, which "
            "blocks labels outside it (on_unknown_label: block); list "
            f"labels.{unasked[0]} under loosen to accept them on purpose"
        )
    refine.check_used()
    return merged


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
        hits = [entry for entry in self.loosen if covers([entry], path)]
        self.used.update(hits)
        return bool(hits)

    def node(self, path: str, pattern: str, old: Any, raw: Any, new: Any) -> Any:
        if raw is MISSING:
            return old
        order = STRICTNESS[pattern]
        if isinstance(order, Section):
            if raw is None or old is None:
                if old is not None:
                    self.widen(path, f"removes the {path} section")
                elif order.widens:
                    self.widen(path, f"adds a {path} section (a way in for queries) to the domain")
                return new
            return {
                field: self.node(
                    join(path, field),
                    join(pattern, field),
                    old[field],
                    raw.get(field, MISSING),
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
                        entry.get(f, MISSING),
                        new[key][f],
                    )
                    for f in fields_of(f"{pattern}.*")
                }
        return out

    def leaf(self, path: str, order: Leaf, old: Any, new: Any, written: str = "") -> Any:
        """The value ``path`` takes: the file's ``new`` where loosen names it, else ``new``
        refining ``old``; a looser ``new`` is an error. ``written``: where the file sets it,
        when not at ``path`` itself."""
        if not _relaxes(order, new, old):
            return order.inherit(old, new)
        if self.covered(path):  # only a value that relaxes uses its loosen entry
            return new
        if not order.loosens(new, old):
            return order.inherit(old, new)  # a list that adds to the inherited one
        raise PolicyError(
            f"{self.source}: {path} {clip(order.why(new, old))} from {self.parents}"
            f"{self.line(written or path)}; list {path} under loosen to relax it on purpose"
        )

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


def _relaxes(order: Leaf, new: Any, old: Any) -> bool:
    """Whether taking ``new`` in place of ``old`` relaxes the setting: a looser value, or a
    list of restrictions without some inherited item (which, unloosened, only adds)."""
    if isinstance(order, Union):
        return any(item not in new for item in old)
    return order.loosens(new, old)
