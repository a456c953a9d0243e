"""Argument conventions the LangChain adapters share: the ``access`` input type and configurable
spec, the one-line refusal of unknown or unusable constructor arguments (``guard=`` by
:func:`~rag_guard_integrations.engine.guard.as_guard`, ``retriever=`` a retriever), and reading
the access a call brought (None is no access; nothing given is :data:`NOT_GIVEN`) and the
invoke-time arguments a retriever takes."""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Annotated, Any

from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables import ConfigurableFieldSpec
from langchain_core.vectorstores import VectorStore, VectorStoreRetriever
from pydantic import BeforeValidator, ValidationError

from rag_guard_integrations.adapters.access import require_pinned_principal
from rag_guard_integrations.core.access import NOT_GIVEN, AccessContext, AccessLike
from rag_guard_integrations.core.arguments import unknown_argument
from rag_guard_integrations.core.errors import ArgumentError
from rag_guard_integrations.engine.guard import as_guard

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from langchain_core.runnables import RunnableConfig

AccessInput = Annotated[AccessLike, BeforeValidator(AccessContext.coerce)]
"""What an ``access`` field accepts: an AccessContext, a mapping such as
``{"contract_type": ["MSA"]}``, or None; it is stored as an AccessContext (or None)."""

ACCESS_SPEC = ConfigurableFieldSpec(
    id="access",
    annotation=dict[str, Any] | None,
    name="Access",
    description=(
        'The caller\'s allowlists, e.g. {"contract_type": ["MSA"]}; "principal" names the caller; '
        "None is no access. Read per request: it replaces the component's default access, or, "
        "with pin_access, narrows it."
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


def as_retriever(value: object, owner: str) -> BaseRetriever:
    """``value`` when it is a LangChain retriever; else a one-line :class:`ArgumentError` that
    names the fix (``store.as_retriever()`` for a vector store).

    Example:
        >>> as_retriever("my_store", "GuardedRetriever")
        Traceback (most recent call last):
        ...
        rag_guard_integrations.core.errors.ArgumentError: GuardedRetriever: retriever must be a \
LangChain BaseRetriever, got str; pass e.g. store.as_retriever()
    """
    if isinstance(value, BaseRetriever):
        return value
    got = type(value).__name__
    if isinstance(value, VectorStore):
        raise ArgumentError(
            f"{owner}: retriever must be a retriever, got the vector store {got}; "
            "pass store.as_retriever() (search_kwargs= for its filter)"
        )
    raise ArgumentError(
        f"{owner}: retriever must be a LangChain BaseRetriever, got {got}; "
        "pass e.g. store.as_retriever()"
    )


def checked_arguments(owner: type[Any], data: dict[str, Any]) -> dict[str, Any]:
    """The constructor arguments of an adapter model with ``guard`` made a Guard and
    ``retriever`` checked; an unknown or missing argument is an :class:`ArgumentError`."""
    name = owner.__name__
    fields = owner.model_fields
    refuse_unknown(name, list(data), [*fields, *(f.alias for f in fields.values() if f.alias)])
    for field, info in fields.items():
        if info.is_required() and field not in data:
            raise ArgumentError(f"{name} needs {field}=; {_EXAMPLES.get(field, '')}".rstrip("; "))
    checked = dict(data)
    if "guard" in checked:
        checked["guard"] = as_guard(checked["guard"], name)
        access = AccessContext.coerce(checked.get("access"))
        require_pinned_principal(name, access, bool(checked.get("pin_access")), checked["guard"])
    if "retriever" in checked:
        checked["retriever"] = as_retriever(checked["retriever"], name)
    return checked


_EXAMPLES = {
    "guard": "pass Guard.from_policy('contracts') or 'contracts'",
    "retriever": "pass e.g. store.as_retriever()",
}


class KnownFieldsOnly:
    """Mixin for an adapter's pydantic model (put it first among the bases): the constructor
    checks its arguments by :func:`checked_arguments`, and a value pydantic refuses is one line
    naming the field, instead of a validation report."""

    if not TYPE_CHECKING:  # type checkers keep pydantic's own signature of the fields

        def __init__(self, **data: Any) -> None:
            owner = type(self)
            try:
                super().__init__(**checked_arguments(owner, data))
            except ValidationError as error:
                raise ArgumentError(one_line(owner.__name__, error)) from None


def one_line(owner: str, error: ValidationError) -> str:
    """The first problem of a pydantic ``error``: field, message and the type given."""
    first = error.errors(include_url=False)[0]
    where = ".".join(str(part) for part in first["loc"]) or "arguments"
    got = type(first.get("input")).__name__
    return f"{owner}: {where}: {first['msg']} (got {got})"


SEARCH_ARGUMENTS = ("filter", "score_threshold", "lambda_mult")
"""Invoke-time arguments a ``VectorStoreRetriever`` hands its store's search (with ``k``)."""


def search_arguments(inner: BaseRetriever) -> tuple[str, ...]:
    """The invoke-time arguments ``inner`` takes besides ``k``: a ``VectorStoreRetriever``'s
    :data:`SEARCH_ARGUMENTS`; another retriever's keyword parameters of
    ``_get_relevant_documents`` (plus ``filter`` where it takes ``**kwargs``), none when it
    takes none (LangChain would drop them silently)."""
    if isinstance(inner, VectorStoreRetriever):
        return SEARCH_ARGUMENTS
    if not inner._expects_other_args:
        return ()
    parameters = inspect.signature(inner._get_relevant_documents).parameters
    named = [
        name
        for name, p in parameters.items()
        if name not in {"query", "run_manager"}
        and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
    ]
    takes_any = any(p.kind is p.VAR_KEYWORD for p in parameters.values())
    return (*named, "filter") if takes_any else tuple(named)


def given_access(config: RunnableConfig | None, kwargs: Mapping[str, Any]) -> object:
    """The access one call brought: the ``access=`` argument, else
    ``config["configurable"]["access"]`` (set per call or by ``with_config``), else
    :data:`NOT_GIVEN`. A None in either place is kept: it means no access."""
    if "access" in kwargs:
        return kwargs["access"]
    configurable = (config or {}).get("configurable") or {}
    return configurable.get("access", NOT_GIVEN)
