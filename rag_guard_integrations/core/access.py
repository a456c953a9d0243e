"""Who is asking: the caller's allowlists for access-controlled metadata attributes."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Annotated, Any

from pydantic import BeforeValidator

from rag_guard_integrations.core.arguments import a_type
from rag_guard_integrations.core.constraints import Allowed
from rag_guard_integrations.core.errors import AccessError


class AccessContext:
    """The caller's principal and, per metadata attribute, the values they may see.

    An attribute the policy declares access-controlled and this context does not mention is
    denied. Immutable and hashable, so one context can be shared by concurrent requests.

    Example:
        >>> ctx = AccessContext(principal="alice", contract_type={"MSA", "SOW"})
        >>> ctx.allows("contract_type", "MSA"), ctx.allows("region", "EU")
        (True, False)
    """

    __slots__ = ("_allowlists", "principal")

    principal: str | None
    _allowlists: Mapping[str, frozenset[str]]

    def __init__(self, principal: str | None = None, **allowlists: Iterable[Any] | str) -> None:
        cleaned = {name: _allowlist(name, values) for name, values in allowlists.items()}
        object.__setattr__(self, "principal", None if principal is None else str(principal))
        object.__setattr__(self, "_allowlists", cleaned)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("AccessContext is immutable; build a new one")

    @property
    def allowlists(self) -> Mapping[str, frozenset[str]]:
        """The allowlists by attribute name (a copy)."""
        return dict(self._allowlists)

    def allowlist(self, attribute: str) -> frozenset[str] | None:
        """The values allowed for ``attribute``, or None when the context does not mention it."""
        return self._allowlists.get(attribute)

    def allows(self, attribute: str, value: object) -> bool:
        """True when ``value`` (or, for a list, every value in it) is allowed for ``attribute``."""
        allowed = self._allowlists.get(attribute)
        return allowed is not None and Allowed(allowed).admits(value)

    def mentions(self, attribute: str) -> bool:
        """True when the context names an allowlist (possibly empty) for ``attribute``."""
        return attribute in self._allowlists

    @classmethod
    def coerce(cls, value: object) -> AccessContext | None:
        """Accept None, an AccessContext or a mapping like ``{"contract_type": ["MSA"]}``."""
        if value is None or isinstance(value, AccessContext):
            return value
        if isinstance(value, Mapping):
            fields = {str(k): v for k, v in value.items()}
            principal = fields.pop("principal", None)
            return cls(principal, **fields)
        raise AccessError(
            f"access must be an AccessContext or a mapping of attribute to values, "
            f"got {type(value).__name__}"
        )

    def narrowed_by(self, other: AccessContext) -> AccessContext:
        """The access both contexts grant: per attribute, the values both allow (an attribute
        only one of them mentions is denied); the principal both name, or the one either names.

        This is how a pinned access meets a per-call one (:func:`resolve_access`): the call can
        only narrow what the operator pinned.

        Example:
            >>> pinned = AccessContext("alice", contract_type={"MSA", "SOW"}, region={"EU"})
            >>> pinned.narrowed_by(AccessContext(contract_type={"SOW", "NDA"}))
            AccessContext(principal='alice', contract_type=['SOW'])
        """
        mine, theirs = self.principal, other.principal
        if mine is not None and theirs is not None and mine != theirs:
            raise AccessError(
                f"the call's principal {theirs!r} differs from the pinned principal {mine!r}; "
                "leave it out or give the pinned one"
            )
        shared = {
            name: values & other._allowlists[name]
            for name, values in self._allowlists.items()
            if name in other._allowlists
        }
        return AccessContext(mine if mine is not None else theirs, **shared)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form: ``{"principal": ..., "contract_type": [...]}``."""
        out: dict[str, Any] = {"principal": self.principal}
        out.update({k: sorted(v) for k, v in sorted(self._allowlists.items())})
        return out

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle and copy as the principal and allowlists (``__setattr__`` refuses the default)."""
        return (_restore, (self.principal, self.to_dict()))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, AccessContext):
            return NotImplemented
        return (self.principal, self._allowlists) == (other.principal, other._allowlists)

    def __hash__(self) -> int:
        return hash((self.principal, frozenset(self._allowlists.items())))

    def __repr__(self) -> str:
        lists = ", ".join(f"{k}={sorted(v)!r}" for k, v in sorted(self._allowlists.items()))
        return f"AccessContext(principal={self.principal!r}{', ' if lists else ''}{lists})"


def _restore(principal: str | None, fields: dict[str, Any]) -> AccessContext:
    allowlists = {k: v for k, v in fields.items() if k != "principal"}
    return AccessContext(principal, **allowlists)


def _allowlist(name: str, values: Iterable[Any] | str) -> frozenset[str]:
    """The allowlist as strings. A mapping is not an allowlist (``{"MSA": False}`` would grant
    MSA), nor are bytes (their items are numbers); items must be strings or numbers."""
    if isinstance(values, str):
        return frozenset({values})
    if isinstance(values, Mapping | bytes | bytearray) or not isinstance(values, Iterable):
        raise AccessError(
            f"access allowlist {name} is {a_type(values)}; give a value or a list of "
            "values, e.g. contract_type=['MSA']"
        )
    items = list(values)
    for item in items:
        if isinstance(item, bool) or not isinstance(item, str | int | float):
            raise AccessError(
                f"access allowlist {name} holds a {type(item).__name__}; list strings or "
                "numbers only"
            )
    return frozenset(str(v) for v in items)


NO_ACCESS = AccessContext()
"""Explicitly no access: no access-controlled chunk passes, whatever a component's default."""


class _NotGiven:
    """The marker of an access the call did not bring (None is "no access")."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "NOT_GIVEN"

    def __reduce__(self) -> str:
        # Copies and pickles are the marker itself (a framework deep-copies run inputs).
        return "NOT_GIVEN"


NOT_GIVEN: Any = _NotGiven()
"""Passed as ``given`` to :func:`resolve_access` when the call brought no access at all."""


def resolve_access(
    given: object = NOT_GIVEN, *, default: object = None, pinned: bool = False
) -> AccessContext | None:
    """The access one request runs with, by the rule every adapter follows.

    ``given`` is what the call brought: :data:`NOT_GIVEN` when it brought nothing (then
    ``default``, the component's own access, applies), None for "no access"
    (:data:`NO_ACCESS`), else a context or mapping. With ``pinned`` the default is also a
    ceiling the operator set: a given access can only narrow it
    (:meth:`AccessContext.narrowed_by`), never widen or replace it.

    Example:
        >>> default = {"contract_type": ["MSA", "SOW"]}
        >>> resolve_access(NOT_GIVEN, default=default)
        AccessContext(principal=None, contract_type=['MSA', 'SOW'])
        >>> resolve_access(None, default=default)
        AccessContext(principal=None)
        >>> resolve_access({"contract_type": ["NDA"]}, default=default)
        AccessContext(principal=None, contract_type=['NDA'])
        >>> resolve_access({"contract_type": ["NDA", "SOW"]}, default=default, pinned=True)
        AccessContext(principal=None, contract_type=['SOW'])
    """
    base = AccessContext.coerce(default)
    if given is NOT_GIVEN:
        return NO_ACCESS if pinned and base is None else base
    asked = NO_ACCESS if given is None else AccessContext.coerce(given)
    if not pinned:
        return asked
    if base is None:
        return NO_ACCESS
    return base.narrowed_by(NO_ACCESS if asked is None else asked)


AccessLike = AccessContext | Mapping[str, Iterable[Any] | str] | None
"""What every ``access=`` argument takes: a context, a mapping such as
``{"contract_type": ["MSA"]}`` (``principal`` as a key), or None (default deny)."""

AccessField = Annotated[AccessContext | None, BeforeValidator(AccessContext.coerce)]
"""A pydantic field type for adapters: accepts an AccessContext, a mapping or None."""
