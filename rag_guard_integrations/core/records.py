"""Fast constructors for the frozen records a check makes on every call."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from collections.abc import Callable

T = TypeVar("T")


def slot_filler(cls: type[T]) -> Callable[..., T]:
    """A constructor for the frozen slots dataclass ``cls`` that takes every field, in order,
    and sets each slot directly: a third of the cost of the frozen ``__init__`` (which goes
    through ``object.__setattr__`` field by field). It runs no ``__post_init__`` and applies
    no defaults, so it is for hot paths that pass every field, already in its final form.

    The function is generated from the dataclass's fields, as :mod:`dataclasses` generates
    ``__init__``: a field added to ``cls`` is a parameter of the filler too.

    Example:
        >>> from dataclasses import dataclass
        >>> @dataclass(frozen=True, slots=True)
        ... class Point:
        ...     x: int
        ...     y: int = 0
        >>> slot_filler(Point)(1, 2)
        Point(x=1, y=2)
    """
    names = [field.name for field in dataclasses.fields(cls)]  # type: ignore[arg-type]
    if set(names) != set(getattr(cls, "__slots__", ())):
        raise TypeError(f"{cls.__name__} must be a slots dataclass whose slots are its fields")
    # Parameters and setters are numbered, so that no field name can clash with the names
    # the function itself uses.
    scope: dict[str, Any] = {"new": object.__new__, "cls": cls}
    parameters = ", ".join(f"value_{position}" for position in range(len(names)))
    lines = [f"def fill({parameters}):", "    record = new(cls)"]
    for position, name in enumerate(names):
        scope[f"set_{position}"] = getattr(cls, name).__set__
        lines.append(f"    set_{position}(record, value_{position})")
    lines.append("    return record")
    exec("\n".join(lines), scope)  # code built from numbers only, never from input
    filler: Callable[..., T] = scope["fill"]
    filler.__qualname__ = f"slot_filler({cls.__name__})"
    return filler
