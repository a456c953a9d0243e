"""A component's guard as a framework stores it: the policy references that rebuild it, so a
component's ``to_dict``/``from_dict``, JSON form and pickle hold no Guard object."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rag_guard_integrations.core.errors import ArgumentError, RagGuardError
from rag_guard_integrations.engine.guard import Guard, as_guard
from rag_guard_integrations.policy.loader import load_policy


def guard_reference(guard: Guard) -> dict[str, Any]:
    """``{"policy": [refs], "name": ...}``: built-in names, or paths, that rebuild the policy.

    The refs are the built-in names and paths the policy was loaded from (``Policy.refs``),
    in order. What they cannot rebuild is listed under ``"lost"`` (in-code policy changes,
    extra checks, an access source, a classifier), and :func:`coerce_guard` refuses such a
    reference: a stored component never comes back checking less than it did. Pass the Guard
    itself in its place when loading (``from_dict(data, guard=...)`` in LlamaIndex). An
    embedder is not kept either; it changes no verdict's strictness, only its inputs.

    Example:
        >>> guard_reference(Guard.from_policy("contracts", "default"))
        {'policy': ['contracts', 'default'], 'name': 'contracts+default'}
        >>> class NoDrafts:
        ...     name = "no_drafts"
        ...     def __call__(self, chunk, request):
        ...         return "a draft" if chunk.metadata.get("status") == "draft" else None
        >>> guard_reference(Guard.from_policy("contracts", checks=[NoDrafts()]))["lost"]
        ['extra checks']
    """
    reference: dict[str, Any] = {"policy": list(guard.policy.refs), "name": guard.policy.name}
    if lost := _lost(guard):
        reference["lost"] = lost
    return reference


def _lost(guard: Guard) -> list[str]:
    """What of ``guard`` its policy references would not rebuild."""
    lost = []
    refs = guard.policy.refs
    try:
        rebuilt = load_policy(*refs).model_copy(update={"name": guard.policy.name})
    except RagGuardError:  # parsed from text, or a policy file moved since: nothing to load
        lost.append("policy")
    else:
        if rebuilt != guard.policy:
            lost.append("in-code policy changes")
    if guard.extra_checks:
        lost.append("extra checks")
    if guard.access_source is not None:
        lost.append("access source")
    if guard.classifier is not None and guard.classifier is not guard.recognizers:
        lost.append("classifier")
    return lost


def coerce_guard(value: object, owner: str = "GuardPostprocessor") -> Guard:
    """Accept what :func:`as_guard` accepts, or a stored reference (``guard_reference``); a
    reference that lost part of its guard is an :class:`ArgumentError`."""
    if isinstance(value, Mapping) and "policy" in value:
        if lost := value.get("lost"):
            raise ArgumentError(
                f"{owner}: the stored guard cannot be rebuilt from its policy references, which "
                f"do not hold its {', '.join(map(str, lost))}; give the Guard itself in place "
                "of the stored reference"
            )
        guard = as_guard(value["policy"], owner)
        name = value.get("name")
        if name and guard.policy.name != name:
            guard = Guard(guard.policy.model_copy(update={"name": name}))
        return guard
    return as_guard(value, owner)
