"""A component's guard as a framework stores it: the policy references that rebuild it, so a
component's ``to_dict``/``from_dict``, JSON form and pickle hold no Guard object."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rag_guard_integrations.engine.guard import Guard, as_guard


def guard_reference(guard: Guard) -> dict[str, Any]:
    """``{"policy": [refs], "name": ...}``: built-in names, or paths, that rebuild the policy.

    The refs are the built-in names and paths the policy was loaded from (``Policy.refs``),
    in order. A classifier or embedder given to the guard is not kept: pass ``guard=`` to
    ``from_dict`` to restore one.

    Example:
        >>> guard_reference(Guard.from_policy("contracts", "default"))
        {'policy': ['contracts', 'default'], 'name': 'contracts+default'}
    """
    return {"policy": list(guard.policy.refs), "name": guard.policy.name}


def coerce_guard(value: object, owner: str = "GuardPostprocessor") -> Guard:
    """Accept what :func:`as_guard` accepts, or a stored reference (``guard_reference``)."""
    if isinstance(value, Mapping) and "policy" in value:
        guard = as_guard(value["policy"], owner)
        name = value.get("name")
        if name and guard.policy.name != name:
            guard = Guard(guard.policy.model_copy(update={"name": name}))
        return guard
    return as_guard(value, owner)
