"""The one per-request access context every adapter reads: a context variable set by
:func:`guard_access` blocks (and by agent middleware for the tool call it runs), and the rule
that turns what a call brought into the access it is checked with.

Framework components are built once and shared by every request, so the caller's access cannot
live on the component. A context variable follows the request instead: asyncio tasks copy it
when they start, and the frameworks copy it into the threads they hop to
(``asyncio.to_thread``, LangChain's executors, LlamaIndex's ``asyncio_run``), so concurrent
requests never see each other's access.
"""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar, Token
from typing import TYPE_CHECKING, Any

from rag_guard_integrations.core.access import NO_ACCESS, NOT_GIVEN, AccessContext, resolve_access
from rag_guard_integrations.core.errors import AdapterConfigError

if TYPE_CHECKING:
    from collections.abc import Iterator

    from rag_guard_integrations.engine.guard import Guard

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
    access-controlled chunk passes, whatever the components' own ``access``. For every guarded
    component in the block the block's access replaces the component's ``access``, unless the
    component pins it (``pin_access=True``): then the block can only narrow it. A block inside
    another can only narrow the outer one (per attribute, the values both allow; a principal
    other than the outer block's is an error). An access a call passes itself (an ``access=``
    argument or run input) comes before the block's.

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


def scoped_access() -> object:
    """The innermost block's access, or :data:`NOT_GIVEN` outside every block."""
    return _ACCESS.get()


@contextmanager
def resolved_access(access: object) -> Iterator[None]:
    """Within the block, ``access`` is the request's access as a framework's middleware resolved
    it for the call it runs (an agent's tool call): it replaces any block around it, for it was
    resolved from the same request. :data:`NOT_GIVEN` (it resolved none) leaves the block's."""
    if access is NOT_GIVEN:
        yield
        return
    token = _ACCESS.set(access)
    try:
        yield
    finally:
        _ACCESS.reset(token)


def request_access(
    given: object = NOT_GIVEN, *, default: object = None, pinned: bool = False
) -> AccessContext | None:
    """The access one request is checked with: what the call brought (``given``, None being no
    access), else the innermost ``guard_access`` block's, else the component's ``default``;
    with ``pinned``, ``default`` is a ceiling the first two only narrow (see
    :func:`~rag_guard_integrations.core.access.resolve_access`).

    Example:
        >>> with guard_access({"contract_type": ["SOW"]}):
        ...     request_access(default={"contract_type": ["MSA"]})
        AccessContext(principal=None, contract_type=['SOW'])
    """
    brought = given if given is not NOT_GIVEN else _ACCESS.get()
    return resolve_access(brought, default=default, pinned=pinned)


def require_pinnable(
    component: str, access: AccessContext | None, pinned: bool, guard: Guard | None = None
) -> None:
    """Refuse ``pin_access=True`` without an ``access`` to pin (every request would see
    nothing), and what :func:`require_pinned_principal` refuses."""
    if pinned and access is None:
        raise AdapterConfigError(
            f"{component} got pin_access=True but no access to pin; pass access=... (the most "
            "any request may see), or leave pin_access off"
        )
    if guard is not None:
        require_pinned_principal(component, access, pinned, guard)


def require_pinned_principal(
    component: str, access: AccessContext | None, pinned: bool, guard: Guard
) -> None:
    """Refuse a pinned access that names no principal when ``guard`` has an access source:
    there the principal is what grants, so a request's principal would widen the pin."""
    source = guard.access_source
    if pinned and access is not None and access.principal is None and source is not None:
        raise AdapterConfigError(
            f"{component} pins an access that names no principal, but its guard asks "
            f"{source.name} what a principal may see, so a request's principal would widen the "
            "pin; pin the principal too, or leave pin_access off"
        )
