"""Constructor conventions the LangChain adapters share: the ``access`` input type, the
``access`` configurable spec, and the refusal of unknown constructor arguments."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Annotated, Any

from langchain_core.runnables import ConfigurableFieldSpec
from pydantic import BeforeValidator

from rag_guard_integrations.core.access import AccessContext, AccessLike
from rag_guard_integrations.core.arguments import unknown_argument
from rag_guard_integrations.core.errors import ArgumentError

AccessInput = Annotated[AccessLike, BeforeValidator(AccessContext.coerce)]
"""What an ``access`` field accepts: an AccessContext, a mapping such as
``{"contract_type": ["MSA"]}``, or None; it is stored as an AccessContext (or None)."""

ACCESS_SPEC = ConfigurableFieldSpec(
    id="access",
    annotation=dict[str, Any] | None,
    name="Access",
    description=(
        'The caller\'s allowlists, e.g. {"contract_type": ["MSA"]}; "principal" names the caller. '
        "Read per request; it overrides the component's default access."
    ),
    default=None,
    is_shared=True,
)
"""``config["configurable"]["access"]`` as a declared configurable field."""


def refuse_unknown(owner: str, given: Iterable[str], known: Iterable[str]) -> None:
    """Raise :class:`ArgumentError` naming the first argument of ``given`` not in ``known``.

    Example:
        >>> refuse_unknown("GuardedRetriever", ["acess"], ["access", "guard"])
        Traceback (most recent call last):
        ...
        rag_guard_integrations.core.errors.ArgumentError: GuardedRetriever got an unknown argument \
'acess'; did you mean 'access'? It takes: access, guard
    """
    message = unknown_argument(owner, given, known)
    if message is not None:
        raise ArgumentError(message)


def refuse_unknown_fields(owner: type[Any], data: object) -> None:
    """:func:`refuse_unknown` for the keyword arguments of a pydantic model's constructor."""
    if isinstance(data, Mapping):
        fields = owner.model_fields
        known = [*fields, *(f.alias for f in fields.values() if f.alias)]
        refuse_unknown(owner.__name__, [str(k) for k in data], known)


class KnownFieldsOnly:
    """Mixin for an adapter's pydantic model (put it first among the bases): an unknown keyword
    argument fails with the closest field's name, as :func:`refuse_unknown_fields` words it."""

    if not TYPE_CHECKING:  # type checkers keep pydantic's own signature of the fields

        def __init__(self, **data: Any) -> None:
            refuse_unknown_fields(type(self), data)
            super().__init__(**data)
