"""How an evaluation reports its progress without printing: the caller hands it a tracker (the
CLI's progress bar), which wraps each long loop; the default shows nothing."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, TypeVar

if TYPE_CHECKING:
    from collections.abc import Iterable

T = TypeVar("T")


class Track(Protocol):
    """Wraps the items of a long loop: yields them all, in order, and may show how far it got.

    Example:
        >>> list(untracked(iter("ab"), 2, "letters"))
        ['a', 'b']
    """

    def __call__(self, items: Iterable[T], total: int | None, label: str) -> Iterable[T]: ...


def untracked(items: Iterable[T], total: int | None, label: str) -> Iterable[T]:
    """The items, with no progress shown."""
    return items
