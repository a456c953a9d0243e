"""Multi-hop linking: chunks that share a value of a linking key form one group, transitively."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rag_guard_integrations.core.decisions import Link
from rag_guard_integrations.core.errors import ChunkError
from rag_guard_integrations.core.normalize import normalize
from rag_guard_integrations.core.reasons import Reason

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

_SCALARS = (str, int, float)
_SEPARATORS = re.compile(r"[-_./:#]+")


@dataclass(frozen=True, slots=True)
class Group:
    """A connected group of chunks (input positions) and the links that joined them."""

    members: tuple[int, ...]
    links: tuple[Link, ...]


def same_value(value: str) -> str:
    """What two link values must share to link: one identifier written several ways
    (``acc-77``, ``acc 77``, ``acc_77``; ``077`` and ``77``) is one. Linking more is the safe
    side: linked chunks are judged together.

    Example:
        >>> same_value("acc-77") == same_value("acc 77"), same_value("077")
        (True, '77')
    """
    text = " ".join(_SEPARATORS.sub(" ", value).split())
    return (text.lstrip("0") or "0") if text.isdigit() else text


def key_values(metadata: Mapping[str, Any], key: str) -> tuple[str, ...]:
    """:func:`link_values` of ``key`` in ``metadata``, the key matched without regard to case
    (``Account_ID`` is ``account_id``), the values of every spelling of it together.

    Example:
        >>> key_values({"Account_ID": "A-7", "account_id": 78.0}, "account_id")
        ('78', 'a-7')
    """
    value = metadata.get(key)
    values = link_values(value) if value is not None else ()
    wanted = key.casefold()
    for other, more in metadata.items():
        # Case folding never shortens a key, so only keys no longer than ``key`` can match.
        if (
            isinstance(other, str)
            and len(other) <= len(key)
            and other != key
            and other.casefold() == wanted
        ):
            values += link_values(more)
    return values


def link_values(value: Any) -> tuple[str, ...]:
    """The values a linking key holds, normalised like text so that ``77``, ``77.0``, ``"７７"``
    and ``"77\u200b"`` are one value: a scalar or a flat list of scalars (None and blank
    dropped). Grouping also ignores separators and leading zeros (:func:`same_value`).

    Example:
        >>> link_values(["ACME  Corp", 77, "７７", 77.0])
        ('acme corp', '77', '77', '77')

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
        whole = isinstance(item, float) and item.is_integer()
        text = normalize(str(int(item) if whole else item))
        if text:
            out.append(text)
    return tuple(out)


def link_problem(metadata: Mapping[str, Any], keys: Sequence[str]) -> Reason | None:
    """Why the chunk's linking values cannot be read (the chunk is then denied), or None."""
    key = None
    try:
        for key in keys:
            key_values(metadata, key)
    except ChunkError as error:
        return Reason(
            f"linking key {key!r}: {error}; denied (fail closed)",
            f"linking key {key!r}: a value is not a string, a number or a flat list of them; "
            "denied (fail closed)",
        )
    return None


def link_groups(
    metadata: Sequence[tuple[int, Mapping[str, Any]]], keys: Sequence[str]
) -> list[Group]:
    """Group ``(index, metadata)`` pairs that share a value of any key in ``keys``.

    Example: A and B share ``account_id=77``, B and C share ``entity=acme`` -> one group A, B, C
    whose links are the two shared values.

    A group's links are in the order its parts joined: the links of the group that held the
    value first, those of the group that joined it, then the joining link. Each part keeps its
    links as a chain (first, last, next), so that joining two parts costs the same however
    many links they hold: linear in the links for the whole set.
    """
    parent = {index: index for index, _ in metadata}
    links: list[Link] = []
    following: list[int] = []  # following[i]: the link after link i in its group's chain
    chain: dict[int, tuple[int, int]] = {}  # root -> (first link, last link) of its group

    def root(index: int) -> int:
        while parent[index] != index:
            parent[index] = parent[parent[index]]
            index = parent[index]
        return index

    first_holder: dict[tuple[str, str], int] = {}
    for index, meta in metadata:
        for key in keys:
            for value in key_values(meta, key):
                holder = first_holder.setdefault((key, same_value(value)), index)
                a, b = root(holder), root(index)
                if a == b:
                    continue
                parent[b] = a
                new = len(links)
                links.append(Link(holder, index, key, value))
                following.append(-1)
                first, last = _joined(chain.pop(a, None), chain.pop(b, None), following)
                if last >= 0:
                    following[last] = new
                chain[a] = (new if first < 0 else first, new)
    members: dict[int, list[int]] = {}
    for index, _ in metadata:
        members.setdefault(root(index), []).append(index)
    return [Group(tuple(m), _walk(chain.get(r), links, following)) for r, m in members.items()]


def _joined(
    head: tuple[int, int] | None, tail: tuple[int, int] | None, following: list[int]
) -> tuple[int, int]:
    """The chain of ``head`` followed by ``tail`` (either may be missing): first and last link,
    -1 when both are."""
    if head is None:
        return tail if tail is not None else (-1, -1)
    if tail is not None:
        following[head[1]] = tail[0]
        return head[0], tail[1]
    return head


def _walk(
    ends: tuple[int, int] | None, links: list[Link], following: list[int]
) -> tuple[Link, ...]:
    """The links of one chain, in order."""
    out: list[Link] = []
    current = -1 if ends is None else ends[0]
    while current >= 0:
        out.append(links[current])
        current = following[current]
    return tuple(out)


def connecting_links(links: Sequence[Link], keep: Iterable[int]) -> tuple[Link, ...]:
    """The links of a group's spanning tree that connect the chunks in ``keep`` (leaves that
    are not kept are pruned repeatedly), in their original order.

    Each link is pruned at most once, from a queue of leaves: linear in the links, also for a
    long chain that one kept chunk ends.
    """
    wanted = set(keep)
    touching: dict[int, list[int]] = {}
    for index, link in enumerate(links):
        touching.setdefault(link.a, []).append(index)
        touching.setdefault(link.b, []).append(index)
    degree = {node: len(indices) for node, indices in touching.items()}
    pruned = [False] * len(links)
    leaves = [node for node, count in degree.items() if count == 1 and node not in wanted]
    while leaves:
        node = leaves.pop()
        for index in touching[node]:
            if pruned[index]:
                continue
            pruned[index] = True
            link = links[index]
            for end in (link.a, link.b):
                degree[end] -= 1
                if end != node and degree[end] == 1 and end not in wanted:
                    leaves.append(end)
    return tuple(link for index, link in enumerate(links) if not pruned[index])
