"""Per-request access for the LlamaIndex adapters: a context variable set by ``guard_access``.

LlamaIndex components are built once and shared by every request, so the caller's access cannot
live on the component. A context variable follows the request instead: asyncio tasks copy it
when they start, and LlamaIndex copies it into the threads it hops to (``asyncio.to_thread``,
``asyncio_run``'s worker thread), so concurrent queries never see each other's access.
"""

from __future__ import annotations

from contextvars import ContextVar, Token
from typing import Any

from rag_guard_integrations.core.access import NO_ACCESS, NOT_GIVEN, AccessContext, resolve_access
from rag_guard_integrations.llama_index.errors import AdapterConfigError

# The innermost block's access, already narrowed by the blocks around it; NOT_GIVEN outside.
_ACCESS: ContextVar[Any] = ContextVar("rag_guard_access", default=NOT_GIVEN)


class AccessScope:
    """The block in which one access context applies; made by :func:`guard_access`.

    Usable once, as ``with`` or ``async with``; nest or repeat by calling ``guard_access`` again.
    Entering it yields the access that applies inside (narrowed by any enclosing block).
    """

    __slots__ = ("_token", "access")

    def __init__(self, access: AccessContext) -> None:
        self.access = access
        self._token: Token[Any] | None = None

    def __enter__(self) -> AccessContext:
        if self._token is not None:
            raise AdapterConfigError(
                "this guard_access(...) block is already active; call guard_access() again "
                "for a nested or concurrent block"
            )
        outer = _ACCESS.get()
        inner = self.access if outer is NOT_GIVEN else outer.narrowed_by(self.access)
        self._token = _ACCESS.set(inner)
        return inner

    def __exit__(self, *exc_info: object) -> None:
        token, self._token = self._token, None
        if token is not None:
            _ACCESS.reset(token)

    async def __aenter__(self) -> AccessContext:
        return self.__enter__()

    async def __aexit__(self, *exc_info: object) -> None:
        self.__exit__(*exc_info)


def guard_access(access: AccessContext | Any) -> AccessScope:
    """Apply ``access`` to every guard check in the block.

    ``access`` is an :class:`AccessContext`, a mapping such as ``{"contract_type": ["MSA"]}``,
    or None. None, like ``{}`` or :data:`NO_ACCESS`, says "this caller has no access": no
    access-controlled node passes, whatever the components' own ``access``. For every guarded
    component in the block the block's access replaces the component's ``access``, unless the
    component pins it (``pin_access=True``): then the block can only narrow it. A block inside
    another can only narrow the outer one (per attribute, the values both allow; a principal
    other than the outer block's is an error). Only code with no block around it at all gets
    the components' own ``access``.

    Example:
        >>> with guard_access(AccessContext(contract_type={"MSA", "SOW"})):
        ...     with guard_access({"contract_type": ["SOW", "NDA"]}) as inner:
        ...         inner
        AccessContext(principal=None, contract_type=['SOW'])
        >>> current_access() is None
        True
    """
    coerced = AccessContext.coerce(access)
    return AccessScope(NO_ACCESS if coerced is None else coerced)


def current_access() -> AccessContext | None:
    """The access of the innermost ``guard_access`` block; None outside every block."""
    access = _ACCESS.get()
    return None if access is NOT_GIVEN else access


def access_for(default: AccessContext | None, *, pinned: bool = False) -> AccessContext | None:
    """The access a component with ``default`` (pinned or not) checks this request with: the
    innermost block's, else ``default`` (see :func:`guard_access` and ``resolve_access``)."""
    return resolve_access(_ACCESS.get(), default=default, pinned=pinned)
