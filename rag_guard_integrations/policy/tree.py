"""Policy settings as a tree the strictness table walks: keyed lists (rules, patterns) as
mappings by key, labels as the guard reads them, every access attribute's match, and None for
a text a policy leaves to the schema's default."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from rag_guard_integrations.core.constraints import MATCH_ALL
from rag_guard_integrations.core.errors import PolicyError
from rag_guard_integrations.core.labels import clean_label
from rag_guard_integrations.policy.messages import describe_errors
from rag_guard_integrations.policy.orders import Keyed, Section, Text
from rag_guard_integrations.policy.schema import Policy
from rag_guard_integrations.policy.strictness import STRICTNESS

if TYPE_CHECKING:
    from collections.abc import Sequence

Named = tuple[str, Policy]
"""A policy and how the user named it (a built-in's name, a file's path)."""
MISSING: Any = object()
"""What a file does not set, in its raw tree."""
_DROPPED = frozenset({"name", "extends", "loosen", "overrides"})
# Texts a policy may leave to the schema's default; unset, they give way to another's.
_TEXTS = tuple(p for p, order in STRICTNESS.items() if isinstance(order, Text) and "*" not in p)


def effective(policy: Policy) -> dict[str, Any]:
    """A policy's settings as a tree: keyed lists as mappings, every access attribute's match,
    and None for a text the policy leaves to the default."""
    tree: dict[str, Any] = to_tree(policy.model_dump(exclude=set(_DROPPED)), "")
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


def to_tree(value: Any, pattern: str) -> Any:
    """``value`` with the table's keyed lists (rules, patterns) turned into mappings by key."""
    order = STRICTNESS.get(pattern)
    if isinstance(order, Keyed):
        if order.key is not None and isinstance(value, list):
            value = {item[order.key]: item for item in value}
        if order.labels and isinstance(value, dict):
            value = {clean_label(key): item for key, item in value.items()}
        if order.entry is not None or not isinstance(value, dict):
            return value
        return {key: to_tree(item, f"{pattern}.*") for key, item in value.items()}
    if isinstance(value, dict) and (pattern == "" or isinstance(order, Section)):
        return {key: to_tree(item, join(pattern, key)) for key, item in value.items()}
    return value


def build(tree: dict[str, Any], where: str, **fields: Any) -> Policy:
    data = from_tree(tree, "")
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


def from_tree(value: Any, pattern: str) -> Any:
    """The inverse of :func:`_tree`."""
    order = STRICTNESS.get(pattern)
    if isinstance(order, Keyed):
        if order.entry is None:
            value = {key: from_tree(item, f"{pattern}.*") for key, item in value.items()}
        return list(value.values()) if order.key is not None else value
    if isinstance(value, dict) and (pattern == "" or isinstance(order, Section)):
        return {key: from_tree(item, join(pattern, key)) for key, item in value.items()}
    return value


def widened_vocabulary(policy: Policy, merged: Policy) -> set[str]:
    """Labels ``merged`` knows beyond ``policy``'s vocabulary when ``policy`` blocks labels
    outside it: chunks claiming them would pass ``merged`` but not ``policy``."""
    if policy.on_unknown_label != "block" or not policy.declares_vocabulary:
        return set()
    return set(merged.vocabulary) - set(policy.vocabulary)


def covers(loosen: Sequence[str], path: str) -> bool:
    return any(path == entry or path.startswith(f"{entry}.") for entry in loosen)


def join(path: str, field: str) -> str:
    return f"{path}.{field}" if path else field


def shown(value: Any) -> str:
    return clip(repr(value))


def clip(text: str) -> str:
    return text if len(text) <= 80 else text[:77] + "..."
