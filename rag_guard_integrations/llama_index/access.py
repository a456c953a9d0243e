"""Per-request access for the LlamaIndex adapters: a context variable set by ``guard_access``.

LlamaIndex components are built once and shared by every request, so the caller's access cannot
live on the component. A context variable follows the request instead: asyncio tasks copy it
when they start, and LlamaIndex copies it into the threads it hops to (``asyncio.to_thread``,
``asyncio_run``'s worker thread), so concurrent queries never see each other's access.
"""

from __future__ import annotations

from contextvars import ContextVar, Token
from typing import Any

from rag_guard_integrations.core.access import AccessContext
from rag_guard_integrations.llama_index.errors import AdapterConfigError

_ACCESS: ContextVar[AccessContext | None] = ContextVar("rag_guard_access", default=None)

NO_ACCESS = AccessContext()
"""Explicitly no access: ``guard_access(NO_ACCESS)`` (like ``guard_access({})``) overrides every
component's default access, so no access-controlled node passes."""


class AccessScope:
    """The block in which one access context applies; made by :func:`guard_access`.

    Usable once, as ``with`` or ``async with``; nest or repeat by calling ``guard_access`` again.
    """

    __slots__ = ("_token", "access")

    def __init__(self, access: AccessContext | None) -> None:
        self.access = access
        self._token: Token[AccessContext | None] | None = None

    def __enter__(self) -> AccessContext | None:
        if self._token is not None:
            raise AdapterConfigError(
                "this guard_access(...) block is already active; call guard_access() again "
                "for a nested or concurrent block"
            )
        self._token = _ACCESS.set(self.access)
        return self.access

    def __exit__(self, *exc_info: object) -> None:
        token, self._token = self._token, None
        if token is not None:
            _ACCESS.reset(token)

    async def __aenter__(self) -> AccessContext | None:
        return self.__enter__()

    async def __aexit__(self, *exc_info: object) -> None:
        self.__exit__(*exc_info)


def guard_access(access: AccessContext | Any) -> AccessScope:
    """Apply ``access`` to every guard check in the block, ahead of the components' defaults.

    ``access`` is an :class:`AccessContext`, a mapping such as ``{"contract_type": ["MSA"]}``,
    or None. Precedence, for every guarded component in the block: an AccessContext or mapping
    here (an empty one, ``{}`` or :data:`NO_ACCESS`, included: "this caller has no access")
    wins over the component's own ``access``; None brings no access of its own, so the
    component's ``access`` applies (and with none, access-controlled nodes are denied).

    Example:
        >>> from rag_guard_integrations import AccessContext
        >>> with guard_access(AccessContext(contract_type={"MSA"})):
        ...     current_access()
        AccessContext(principal=None, contract_type=['MSA'])
        >>> current_access() is None
        True
    """
    return AccessScope(AccessContext.coerce(access))


def current_access(default: AccessContext | None = None) -> AccessContext | None:
    """The access of the innermost ``guard_access`` block, else ``default`` (may be None)."""
    access = _ACCESS.get()
    return default if access is None else access
