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
from collections.abc import Mapping
from itertools import islice
from typing import TYPE_CHECKING, Any, Protocol

from rag_guard_integrations.guards.domain_identifiers import IdentifierReader, canonical_identifier
from rag_guard_integrations.policy.loader import load_policy

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator, Sequence

    from rag_guard_integrations.core.chunk import Chunk
    from rag_guard_integrations.policy.loader import PolicyRef
    from rag_guard_integrations.policy.schema import DomainSpec, Policy

# At most this many identifiers are held (a collection's standards number in the thousands):
# what a store or retrieved set teaches beyond it is not learned, so memory stays bounded.
MAX_IDENTIFIERS = 100_000
# A row names a standard or a few (a list of parts), in a short string: more, or longer, is not
# an identifier field, and is not read.
VALUES_PER_KEY = 16
MAX_VALUE_CHARS = 200


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
        self._pattern, self._prefixes = pattern, tuple(word_prefixes)
        self._reader = IdentifierReader(pattern, self._prefixes) if pattern else None
        self._known: dict[str, str] = {}  # canonical form -> the collection's own spelling
        self._lock = threading.Lock()

    @classmethod
    def for_policy(cls, policy: PolicyRef) -> CollectionIdentifiers:
        """An empty set reading the metadata keys and identifier pattern of ``policy``."""
        domain = load_policy(policy).domain
        return cls() if domain is None else cls.for_spec(domain)

    @classmethod
    def learning(cls, policy: Policy, *, per_caller: bool = False) -> CollectionIdentifiers | None:
        """An empty set for a guard of ``policy`` to learn into, or None: without a domain
        section, or where callers see different chunks (access attributes, or ``per_caller``
        for an access source or checks of the caller's own). A set learned from the whole
        store would then let one caller's question pass on an identifier only another may
        see, and so tell them it exists; tier 2 reads the identifiers of the chunks retrieved
        for the caller instead."""
        if policy.domain is None or policy.access.attributes or per_caller:
            return None
        return cls.for_spec(policy.domain)

    @classmethod
    def for_spec(cls, domain: DomainSpec) -> CollectionIdentifiers:
        """An empty set reading the metadata keys and identifier pattern of a domain section."""
        return cls(domain.identifier_keys, domain.identifier_pattern,
                   domain.identifier_word_prefixes)  # fmt: skip

    def learn(self, chunks: Iterable[Chunk]) -> int:
        """Add the identifiers the ``keys`` metadata of ``chunks`` holds; returns how many
        canonical forms were new ("IS 1239 (Part 1)" holds two: "is1239" and "is1239part1")."""
        return self.learn_metadata(chunk.metadata for chunk in chunks)

    def learn_metadata(self, metadatas: Iterable[Mapping[str, Any]]) -> int:
        """:meth:`learn` from metadata mappings (a store's rows) rather than chunks. Only
        string values count, at most :data:`VALUES_PER_KEY` per key of a row and
        :data:`MAX_VALUE_CHARS` long; a row that is not a mapping is skipped; learning stops at
        :data:`MAX_IDENTIFIERS`, so the work is bounded whatever the rows hold."""
        with self._lock:
            before = len(self._known)
            for metadata in metadatas:
                if len(self._known) >= MAX_IDENTIFIERS:
                    break
                if not isinstance(metadata, Mapping):
                    continue
                for key in self.keys:
                    for value in islice(_strings(metadata.get(key)), VALUES_PER_KEY):
                        for canonical in self._canonical(value):
                            self._known.setdefault(canonical, value)
            return len(self._known) - before

    def __call__(self, canonical: str) -> bool:
        """Whether the collection holds the identifier (given in canonical form)."""
        return canonical in self._known

    def __len__(self) -> int:
        return len(self._known)

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle as the keys, pattern and what was learned (a lock does not pickle)."""
        return (_rebuild, (self.keys, self._pattern, self._prefixes, dict(self._known)))

    def spelling(self, canonical: str) -> str | None:
        """The collection's own spelling of an identifier it holds, else None."""
        return self._known.get(canonical)

    def _canonical(self, value: str) -> tuple[str, ...]:
        if self._reader is not None:
            return self._reader.in_value(value)
        return (found,) if (found := canonical_identifier(value)) else ()


def _rebuild(
    keys: tuple[str, ...], pattern: str | None, prefixes: tuple[str, ...], known: dict[str, str]
) -> CollectionIdentifiers:
    rebuilt = CollectionIdentifiers(keys, pattern, prefixes)
    rebuilt._known.update(known)
    return rebuilt


class _Learner(Protocol):
    learned: CollectionIdentifiers | None

    def learn_identifiers(self, metadatas: Iterable[Mapping[str, Any]]) -> int: ...


class StoreLesson:
    """How a guarded retriever teaches its guard the collection's identifiers: once from the
    store's own listing (``listing`` returns every row's metadata, or None when the store
    cannot be listed), else from each retrieved set's metadata as it comes.

    Example:
        >>> from rag_guard_integrations import Guard
        >>> guard = Guard.from_policy("bis")
        >>> lesson = StoreLesson(lambda: [{"standard": "IS 2062"}])
        >>> lesson.before(guard)
        >>> guard.check("IS 2062 scope", []).query.tier
        'identifier'
    """

    def __init__(self, listing: Callable[[], Iterable[Mapping[str, Any]] | None]) -> None:
        self._listing = listing
        self._listed: bool | None = None  # None: not asked yet

    def before(self, guard: _Learner) -> None:
        """At first use, learn from the store's listing, when the guard learns at all."""
        if self._listed is not None or guard.learned is None:
            return
        rows = self._listing()
        self._listed = rows is not None
        if rows is not None:
            guard.learn_identifiers(rows)

    def after(self, guard: _Learner, metadatas: Iterable[Mapping[str, Any]]) -> None:
        """Learn from a retrieved set, where the store could not be listed."""
        if self._listed is False:
            guard.learn_identifiers(metadatas)


def _strings(value: object) -> Iterator[str]:
    """The short strings a metadata value holds: itself, or the items of a list or tuple."""
    items = value if isinstance(value, list | tuple) else (value,)
    return (v for v in items if isinstance(v, str) and len(v) <= MAX_VALUE_CHARS)
