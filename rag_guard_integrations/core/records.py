"""Fast constructors for the frozen records a check makes on every call."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from collections.abc import Callable

T = TypeVar("T")


def mutable_twin(cls: type) -> Any:
    """A class with exactly the slots of the slots dataclass ``cls`` and no frozen
    ``__setattr__``: an instance filled attribute by attribute becomes a ``cls`` when its
    ``__class__`` is set to ``cls`` (same slots, same layout).

    Example:
        >>> from dataclasses import dataclass
        >>> @dataclass(frozen=True, slots=True)
        ... class Point:
        ...     x: int
        >>> draft = object.__new__(mutable_twin(Point))
        >>> draft.x = 1
        >>> draft.__class__ = Point
        >>> draft
        Point(x=1)
    """
    names = tuple(field.name for field in dataclasses.fields(cls))
    slots = getattr(cls, "__slots__", ())
    if cls.__bases__ != (object,) or set(names) != set(slots):
        raise TypeError(f"{cls.__name__} must be a slots dataclass whose slots are its fields")
    return type(f"_{cls.__name__}Draft", (), {"__slots__": tuple(slots)})


def slot_filler(cls: type[T]) -> Callable[..., T]:
    """A constructor for the frozen slots dataclass ``cls`` that takes every field, in order:
    it fills a :func:`mutable_twin` and turns it into a ``cls``, a quarter of the cost of the
    frozen ``__init__`` (which goes through ``object.__setattr__`` field by field). It runs no
    ``__post_init__`` and applies no defaults, so it is for hot paths that pass every field,
    already in its final form.

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
    draft = mutable_twin(cls)
    names = [field.name for field in dataclasses.fields(cls)]  # type: ignore[arg-type]
    # Parameters are numbered, so that no field name can clash with the function's own names;
    # the field names (identifiers) are only attribute names here.
    parameters = ", ".join(f"value_{position}" for position in range(len(names)))
    lines = [f"def fill({parameters}):", "    record = new(draft)"]
    lines += [f"    record.{name} = value_{position}" for position, name in enumerate(names)]
    lines += ["    record.__class__ = cls", "    return record"]
    scope: dict[str, Any] = {"new": object.__new__, "draft": draft, "cls": cls}
    exec("\n".join(lines), scope)  # code built from the dataclass's field names only
    filler: Callable[..., T] = scope["fill"]
    filler.__qualname__ = f"slot_filler({cls.__name__})"
    return filler
