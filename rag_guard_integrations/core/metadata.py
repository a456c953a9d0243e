"""Chunk metadata values read one way: a single value or a collection of them, as strings."""

from __future__ import annotations

COLLECTIONS = (list, tuple, set, frozenset)


def metadata_values(value: object) -> tuple[str, ...]:
    """The values a metadata field holds, as strings: none for None, each item of a list,
    tuple or set (None items left out), else the value itself.

    Example:
        >>> metadata_values(["IS 2062", None, 77]), metadata_values("acme"), metadata_values(None)
        (('IS 2062', '77'), ('acme',), ())
    """
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    if isinstance(value, COLLECTIONS):
        return tuple(str(item) for item in value if item is not None)
    return (str(value),)
