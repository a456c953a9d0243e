"""Argument checks shared by the adapters: one message shape for a value a function cannot use."""

from __future__ import annotations

import difflib
from typing import TYPE_CHECKING

from rag_guard_integrations.core.errors import ArgumentError

if TYPE_CHECKING:
    from collections.abc import Iterable


def positive_int(name: str, value: object, fix: str = "") -> int:
    """``value`` when it is an int of at least 1 (not a bool), else an :class:`ArgumentError`.

    ``fix`` ends the message; by default it suggests ``name=4``.

    Example:
        >>> positive_int("k", 4)
        4
        >>> try:
        ...     positive_int("fetch_k", 0, fix="or None for 4 x k")
        ... except ArgumentError as error:
        ...     print(error)
        fetch_k must be a positive int, got 0; or None for 4 x k
    """
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ArgumentError(
            f"{name} must be a positive int, got {value!r}; {fix or f'pass e.g. {name}=4'}"
        )
    return value


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """``"; did you mean 'x'?"`` for the one of ``known`` that ``name`` most likely meant (the
    same but for case, else a close spelling), or ``""`` when none is close.

    Example:
        >>> did_you_mean("Contract_Type", ["contract_type"])
        "; did you mean 'contract_type'?"
        >>> did_you_mean("region", ["contract_type"])
        ''
    """
    options = sorted(known)
    folded = {option.casefold(): option for option in options}
    match = folded.get(name.casefold()) or next(
        iter(difflib.get_close_matches(name, options, n=1, cutoff=0.75)), None
    )
    return f"; did you mean {match!r}?" if match else ""


def unknown_argument(owner: str, given: Iterable[str], known: Iterable[str]) -> str | None:
    """The message for the first of ``given`` that is not in ``known`` (with the near spelling
    and every argument ``owner`` takes), or None when all are known.

    Example:
        >>> unknown_argument("GuardedRetriever", ["acess"], ["access", "guard"])
        "GuardedRetriever got an unknown argument 'acess'; did you mean 'access'? It takes: \
access, guard"
    """
    names = sorted(set(known))
    for name in given:
        if name not in names:
            hint = did_you_mean(name, names) or "."
            return f"{owner} got an unknown argument {name!r}{hint} It takes: {', '.join(names)}"
    return None


def a_type(value: object) -> str:
    """What ``value`` is, for a message: its type's name with its article (``an int``, ``a
    str``), or ``None``.

    Example:
        >>> a_type(3), a_type("x"), a_type(None)
        ('an int', 'a str', 'None')
    """
    if value is None:
        return "None"
    name = type(value).__name__
    return f"{'an' if name[:1].lower() in 'aeiou' else 'a'} {name}"
