"""The error a LlamaIndex adapter raises when it is built or used wrongly (a missing guard, an
unknown argument, a reused access block): a ``RagGuardError`` that is also the
``TypeError``/``ValueError`` Python raises."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rag_guard_integrations.core.arguments import unknown_argument
from rag_guard_integrations.core.errors import RagGuardError

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from rag_guard_integrations.core.access import AccessContext


class AdapterConfigError(RagGuardError, TypeError, ValueError):
    """A LlamaIndex adapter got an argument it cannot use, or was used out of order; the message
    names the value and the fix."""


def refuse_unknown(component: str, given: Mapping[str, Any], known: Iterable[str]) -> None:
    """Raise :class:`AdapterConfigError` for the first key of ``given`` not in ``known``.

    Example:
        >>> try:
        ...     refuse_unknown("GuardTagger", {"polcy": "default"}, ["policy", "guard"])
        ... except AdapterConfigError as error:
        ...     print(error)
        GuardTagger got an unknown argument 'polcy'; did you mean 'policy'? It takes: guard, policy
    """
    message = unknown_argument(component, given, known)
    if message is not None:
        raise AdapterConfigError(message)


def require_pinnable(component: str, access: AccessContext | None, pinned: bool) -> None:
    """Refuse ``pin_access=True`` without an ``access`` to pin (every request would see
    nothing)."""
    if pinned and access is None:
        raise AdapterConfigError(
            f"{component} got pin_access=True but no access to pin; pass access=... (the most "
            "any request may see), or leave pin_access off"
        )
