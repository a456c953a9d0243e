"""Argument checks shared by the adapters: one message shape for a value a function cannot use."""

from __future__ import annotations

from rag_guard_integrations.core.errors import ArgumentError


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
