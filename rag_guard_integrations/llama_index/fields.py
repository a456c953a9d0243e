"""Pydantic field types for the LlamaIndex components: a guard stored as its policy references
and an access default stored as a mapping, so ``to_dict``/``from_dict``, ``to_json``, pickling
and ``model_json_schema()`` work."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import BeforeValidator, PlainSerializer, WithJsonSchema

from rag_guard_integrations.core.access import AccessContext, AccessField
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


def coerce_guard(value: object) -> Guard:
    """Accept what :func:`as_guard` accepts, or a stored reference (``guard_reference``)."""
    if isinstance(value, Mapping) and "policy" in value:
        guard = as_guard(value["policy"], "guard")
        name = value.get("name")
        if name and guard.policy.name != name:
            guard = Guard(guard.policy.model_copy(update={"name": name}))
        return guard
    return as_guard(value, "guard")


GuardField = Annotated[
    Guard,
    BeforeValidator(coerce_guard),
    PlainSerializer(guard_reference, return_type=dict),
    WithJsonSchema(
        {
            "type": "object",
            "description": "the guard, stored as the policies it was built from",
            "properties": {
                "policy": {"type": "array", "items": {"type": "string"}},
                "name": {"type": ["string", "null"]},
            },
        }
    ),
]
"""A Guard, given as a Guard or policy references, serialised as ``guard_reference``."""


def _access_dict(access: AccessContext | None) -> dict[str, Any] | None:
    return None if access is None else access.to_dict()


AccessDefault = Annotated[
    AccessField,
    PlainSerializer(_access_dict),
    WithJsonSchema(
        {
            "type": ["object", "null"],
            "description": "attribute -> allowed values, plus an optional principal",
            "additionalProperties": True,
        }
    ),
]
"""The access default of a component: an AccessContext, a mapping or None."""
