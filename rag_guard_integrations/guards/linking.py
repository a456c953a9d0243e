"""Multi-hop linking: chunks that share a value of a linking key form one group, transitively."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rag_guard_integrations.core.decisions import Link
from rag_guard_integrations.core.errors import ChunkError
from rag_guard_integrations.core.normalize import normalize

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

_SCALARS = (str, int, float)


@dataclass(frozen=True, slots=True)
class Group:
    """A connected group of chunks (input positions) and the links that joined them."""

    members: tuple[int, ...]
    links: tuple[Link, ...]


def link_values(value: Any) -> tuple[str, ...]:
    """The values a linking key holds, normalised like text so that ``77``, ``"７７"`` and
    ``"77\u200b"`` are one value: a scalar or a flat list of scalars (None and blank dropped).

    Example:
        >>> link_values(["ACME  Corp", 77, "７７"])
        ('acme corp', '77', '77')

    Raises:
        ValueError: the value nests lists or mappings, or holds another kind of object; the
            guard then denies that chunk alone.
    """
    items = value if isinstance(value, list | tuple | set | frozenset) else (value,)
    out = []
    for item in items:
        if item is None:
            continue
        if not isinstance(item, _SCALARS):
            raise ChunkError(
                f"a linking value holds a {type(item).__name__}; use a string, a number or a "
                "flat list of them"
            )
        text = normalize(str(item))
        if text:
            out.append(text)
    return tuple(out)


def link_problem(metadata: Mapping[str, Any], keys: Sequence[str]) -> str | None:
    """Why the chunk's linking values cannot be read (the chunk is then denied), or None."""
    key = None
    try:
        for key in keys:
            link_values(metadata.get(key))
    except ChunkError as error:
        return f"linking key {key!r}: {error}; denied (fail closed)"
    return None


def link_groups(
    metadata: Sequence[tuple[int, Mapping[str, Any]]], keys: Sequence[str]
) -> list[Group]:
    """Group ``(index, metadata)`` pairs that share a value of any key in ``keys``.

    Example: A and B share ``account_id=77``, B and C share ``entity=acme`` -> one group A, B, C
    whose links are the two shared values.
    """
    parent = {index: index for index, _ in metadata}
    edges: dict[int, list[Link]] = {}

    def root(index: int) -> int:
        while parent[index] != index:
            parent[index] = parent[parent[index]]
            index = parent[index]
        return index

    first_holder: dict[tuple[str, str], int] = {}
    for index, meta in metadata:
        for key in keys:
            if meta.get(key) is None:
                continue
            for value in link_values(meta[key]):
                holder = first_holder.setdefault((key, value), index)
                a, b = root(holder), root(index)
                if a != b:
                    parent[b] = a
                    edges.setdefault(a, []).extend(edges.pop(b, []))
                    edges[a].append(Link(holder, index, key, value))
    members: dict[int, list[int]] = {}
    for index, _ in metadata:
        members.setdefault(root(index), []).append(index)
    return [Group(tuple(m), tuple(edges.get(r, ()))) for r, m in members.items()]


def connecting_links(links: Sequence[Link], keep: Iterable[int]) -> tuple[Link, ...]:
    """The links of a group's spanning tree that connect the chunks in ``keep`` (leaves that
    are not kept are pruned repeatedly), in their original order."""
    wanted = set(keep)
    remaining = list(links)
    while True:
        degree: dict[int, int] = {}
        for link in remaining:
            degree[link.a] = degree.get(link.a, 0) + 1
            degree[link.b] = degree.get(link.b, 0) + 1
        leaves = {n for n, d in degree.items() if d == 1 and n not in wanted}
        if not leaves:
            return tuple(remaining)
        remaining = [lk for lk in remaining if lk.a not in leaves and lk.b not in leaves]
