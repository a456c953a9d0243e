"""What every chunk a guard could allow must carry: per metadata attribute, the allowed values
and how a multi-valued attribute is matched; one predicate serves the guard and store filters."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Literal

from rag_guard_integrations.core.metadata import COLLECTIONS

Match = Literal["all", "any"]
MATCH_ALL: Match = "all"
MATCH_ANY: Match = "any"
_PLAIN_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def is_plain_name(name: str) -> bool:
    """True for an identifier-like attribute name (letters, digits, ``_``), the only names a
    store filter written as query text may carry.

    Example:
        >>> is_plain_name("contract_type"), is_plain_name("a') or ('1")
        (True, False)
    """
    return _PLAIN_NAME.fullmatch(name) is not None


@dataclass(frozen=True, slots=True)
class Allowed:
    """The values a chunk's attribute may hold, and how a list of values is judged.

    ``match="all"``: every value the chunk carries must be allowed (a contract type).
    ``match="any"``: one allowed value suffices (a document shared with several groups).
    A missing value, ``None`` or an empty list is never admitted. Values compare as strings.

    Example:
        >>> Allowed(frozenset({"hr"}), "any").admits(["hr", "finance"])
        True
        >>> Allowed(frozenset({"hr"})).admits(["hr", "finance"])
        False
    """

    values: frozenset[str]
    match: Match = MATCH_ALL

    def admits(self, value: object) -> bool:
        """True when ``value`` (a scalar or a list of values) passes under this match mode."""
        if type(value) is str:  # the common case: one value
            return value in self.values
        if value is None:
            return False
        items = value if isinstance(value, COLLECTIONS) else (value,)
        if not items:
            return False
        hits = (str(item) in self.values for item in items)
        return any(hits) if self.match == MATCH_ANY else all(hits)


class Constraints(Mapping[str, Allowed]):
    """Attribute -> :class:`Allowed`: what :meth:`Guard.prefilter` asks of every chunk.

    A chunk is admitted when each constrained attribute admits its value. Plain mappings of
    attribute -> values convert through :meth:`of` (match mode ``all``).

    Example:
        >>> c = Constraints({"groups": Allowed(frozenset({"hr"}), "any")})
        >>> c.admits({"groups": ["hr", "finance"]}), c.admits({"groups": ["legal"]})
        (True, False)
        >>> Constraints.of({"contract_type": ["MSA"]})["contract_type"].match
        'all'
    """

    __slots__ = ("_allowed",)

    def __init__(self, allowed: Mapping[str, Allowed] | None = None) -> None:
        self._allowed: dict[str, Allowed] = dict(allowed or {})

    @classmethod
    def of(cls, value: Mapping[str, Allowed | Iterable[object]]) -> Constraints:
        """A ``Constraints`` from one, or from a mapping of attribute -> Allowed or values."""
        if isinstance(value, Constraints):
            return value
        return cls({str(key): _allowed(given) for key, given in value.items()})

    def admits(self, metadata: Mapping[str, object]) -> bool:
        """True when every constrained attribute of ``metadata`` admits its value."""
        return all(allowed.admits(metadata.get(key)) for key, allowed in self._allowed.items())

    def __getitem__(self, key: str) -> Allowed:
        return self._allowed[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._allowed)

    def __len__(self) -> int:
        return len(self._allowed)

    def __repr__(self) -> str:
        parts = ", ".join(
            f"{key}={a.match}:{sorted(a.values)!r}" for key, a in self._allowed.items()
        )
        return f"Constraints({parts})"


def _allowed(given: Allowed | Iterable[object]) -> Allowed:
    if isinstance(given, Allowed):
        return given
    if isinstance(given, str):
        return Allowed(frozenset({given}))
    return Allowed(frozenset(str(v) for v in given))
