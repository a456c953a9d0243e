"""The identifiers a collection holds, learned from its chunks' metadata as they are seen.

Tier 2 of the domain guard accepts a standard identifier the collection holds ("IS 2062
requirements" when a chunk's ``standard`` is "IS 2062"), whatever the vector search returned.
Where the collection cannot be listed when the guard is built, a retriever or index teaches a
:class:`CollectionIdentifiers` the chunks it sees (the whole store at first use, or each
retrieved set) and passes it as the guard's ``identifiers=``.

The lookup protocol (:data:`~rag_guard_integrations.guards.domain_identifiers.IdentifierLookup`):
the guard calls ``lookup(canonical)`` with an identifier the query names, in
:func:`~rag_guard_integrations.guards.domain_identifiers.canonical_identifier` form ("is2062"),
and accepts the query when it returns True; a lookup that raises rejects the query (fail
closed). Only metadata counts, never chunk text: an identifier a chunk merely mentions is not
one the collection holds.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from rag_guard_integrations.core.metadata import metadata_values
from rag_guard_integrations.guards.domain_identifiers import IdentifierReader, canonical_identifier
from rag_guard_integrations.policy.loader import load_policy

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from rag_guard_integrations.core.chunk import Chunk
    from rag_guard_integrations.policy.loader import PolicyRef


class CollectionIdentifiers:
    """A growing set of the collection's identifiers, usable as a guard's ``identifiers=``.

    ``keys`` are the metadata keys that hold identifiers; ``pattern`` (the policy's
    ``identifier_pattern``) also reads identifiers inside a value such as "IS 1786:2008".

    Example:
        >>> from rag_guard_integrations import Chunk, Guard
        >>> known = CollectionIdentifiers.for_policy("bis")
        >>> known.learn([Chunk("Structural steel", {"standard": "IS 2062"})])
        1
        >>> known("is2062"), known("is1239")
        (True, False)
        >>> guard = Guard.from_policy("bis", identifiers=known)
        >>> guard.check("IS 2062 scope", []).query.tier
        'identifier'
    """

    def __init__(
        self,
        keys: Sequence[str] = ("standard", "id"),
        pattern: str | None = None,
        word_prefixes: Iterable[str] = (),
    ) -> None:
        self.keys = tuple(keys)
        self._reader = IdentifierReader(pattern, word_prefixes) if pattern else None
        self._known: dict[str, str] = {}  # canonical form -> the collection's own spelling
        self._lock = threading.Lock()

    @classmethod
    def for_policy(cls, policy: PolicyRef) -> CollectionIdentifiers:
        """An empty set reading the metadata keys and identifier pattern of ``policy``."""
        domain = load_policy(policy).domain
        if domain is None:
            return cls()
        return cls(domain.identifier_keys, domain.identifier_pattern,
                   domain.identifier_word_prefixes)  # fmt: skip

    def learn(self, chunks: Iterable[Chunk]) -> int:
        """Add the identifiers the ``keys`` metadata of ``chunks`` holds; returns how many
        canonical forms were new ("IS 1239 (Part 1)" holds two: "is1239" and "is1239part1")."""
        found = [
            (canonical, value)
            for chunk in chunks
            for key in self.keys
            for value in metadata_values(chunk.metadata.get(key))
            for canonical in self._canonical(value)
        ]
        with self._lock:
            before = len(self._known)
            for canonical, value in found:
                self._known.setdefault(canonical, value)
            return len(self._known) - before

    def __call__(self, canonical: str) -> bool:
        """Whether the collection holds the identifier (given in canonical form)."""
        return canonical in self._known

    def __len__(self) -> int:
        return len(self._known)

    def spelling(self, canonical: str) -> str | None:
        """The collection's own spelling of an identifier it holds, else None."""
        return self._known.get(canonical)

    def _canonical(self, value: str) -> tuple[str, ...]:
        if self._reader is not None:
            return self._reader.in_value(value)
        return (found,) if (found := canonical_identifier(value)) else ()
