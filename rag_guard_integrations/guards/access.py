"""Access allowlists and untrusted index hints: two per-chunk checks that only ever deny."""

from __future__ import annotations

from itertools import chain
from operator import attrgetter
from typing import TYPE_CHECKING

from rag_guard_integrations.core.constraints import MATCH_ALL, MATCH_ANY, Allowed, Constraints
from rag_guard_integrations.core.errors import PatternCompileError, PatternTooLargeError
from rag_guard_integrations.core.normalize import CACHED_CHARS, normalize
from rag_guard_integrations.core.patterns import compile_untrusted, matches
from rag_guard_integrations.guards.registry import Stage
from rag_guard_integrations.policy.loader import load_policy

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from rag_guard_integrations.core.chunk import Chunk
    from rag_guard_integrations.core.constraints import Match
    from rag_guard_integrations.core.stage import Request
    from rag_guard_integrations.policy.loader import PolicyRef

__all__ = ["AccessGuard", "Constraints", "HintGuard"]  # Constraints: its former home

HINT_SUFFIX = "_regex_hint"
_METADATA = attrgetter("metadata")
# The hints of one chunk together compile to at most this many RE2 instructions: each runs over
# the whole text, so this bounds the hint work per character of the chunk.
MAX_HINT_PROGRAM_PER_CHUNK = 2000
MAX_HINTS_PER_CHUNK = 8


class AccessGuard:
    """Deny a chunk unless each access-controlled attribute's value is in the caller's allowlist.

    Default deny: an attribute the context does not mention, or the chunk does not carry, is
    denied. A list of values passes when every value is allowed (``match="all"``, the default)
    or, for an attribute the policy marks ``match: any``, when one of them is.

    Example:
        >>> from rag_guard_integrations import AccessContext, Chunk
        >>> from rag_guard_integrations.core.stage import Request
        >>> guard = AccessGuard(["contract_type"])
        >>> request = Request("q", "q", (), AccessContext(contract_type={"MSA"}))
        >>> guard(Chunk("...", {"contract_type": "SOW"}), request)
        "contract_type='SOW' is not in the caller's allowlist"
        >>> shared = AccessGuard(["groups"], match={"groups": "any"})
        >>> request = Request("q", "q", (), AccessContext(groups={"hr"}))
        >>> shared(Chunk("...", {"groups": ["hr", "finance"]}), request) is None
        True
    """

    name = "access"

    def __init__(self, attributes: Sequence[str], match: Mapping[str, Match] | None = None) -> None:
        self.attributes = tuple(attributes)
        self.match = {a: (match or {}).get(a, MATCH_ALL) for a in self.attributes}

    @classmethod
    def from_policy(cls, policy: PolicyRef) -> AccessGuard | None:
        """The access check of ``policy``, or None when it declares no access attributes."""
        policy = load_policy(policy)
        access = policy.access
        return cls(access.attributes, access.match) if access.attributes else None

    def __call__(self, chunk: Chunk, request: Request) -> str | None:
        return self.check_many((chunk,), request)[0]

    def check_many(self, chunks: Sequence[Chunk], request: Request) -> list[str | None]:
        """Why each chunk is denied (None: it passes), the allowlists read once for all."""
        access = request.access
        allowed: list[tuple[str, Allowed]] = []
        for attribute in self.attributes:
            if access is None or not access.mentions(attribute):
                return [f"the access context grants no {attribute} (default deny)"] * len(chunks)
            allowed.append(
                (attribute, Allowed(access.allowlists[attribute], self.match[attribute]))
            )
        return [_denial(chunk.metadata, allowed) for chunk in chunks]


def _denial(metadata: Mapping[str, object], allowed: list[tuple[str, Allowed]]) -> str | None:
    for attribute, allow in allowed:
        value = metadata.get(attribute)
        if value is None:
            return f"the chunk carries no {attribute} (default deny)"
        if not allow.admits(value):
            held = "holds no value" if allow.match == MATCH_ANY else "is not"
            return f"{attribute}={value!r} {held} in the caller's allowlist"
    return None


class HintGuard:
    """Every metadata ``*_regex_hint`` is untrusted index data: the text must match it too.

    A hint can only add a restriction. One that RE2 cannot compile within the small budget of
    untrusted patterns, or that is too large (see :func:`compile_untrusted`), denies the chunk,
    and so do more than ``MAX_HINTS_PER_CHUNK`` hints or hints that together exceed
    ``MAX_HINT_PROGRAM_PER_CHUNK`` instructions: the work per chunk stays linear in its text
    with a bounded factor.
    """

    name = "hint"

    def check_many(self, chunks: Sequence[Chunk], request: Request) -> list[str | None]:
        """:meth:`__call__` for each chunk. Keys are looked at all at once first: when no key
        of any chunk holds the hint suffix, no chunk has a hint."""
        try:
            keys = "\0".join(chain.from_iterable(map(_METADATA, chunks)))
        except TypeError:  # a key that is not a string: each chunk looks at its own keys
            keys = HINT_SUFFIX
        if HINT_SUFFIX not in keys:
            return [None] * len(chunks)
        return [
            self(chunk, request) if any(map(_is_hint, chunk.metadata)) else None for chunk in chunks
        ]

    def __call__(self, chunk: Chunk, request: Request) -> str | None:
        hints = [(key, hint) for key, hint in chunk.metadata.items() if _is_hint(key)]
        if not hints:
            return None
        problem = _over_budget(hints)
        if problem is not None:
            return problem
        # A long text is normalised once for all its hints (short ones hit matches' cache).
        folded = normalize(chunk.text) if len(chunk.text) > CACHED_CHARS else None
        for key, hint in hints:
            if folded is not None:
                found = compile_untrusted(hint).search(folded) is not None
            else:
                found = matches(hint, chunk.text, untrusted=True)
            if not found:
                return f"the text does not match its own {key}"
        return None


def _over_budget(hints: list[tuple[str, object]]) -> str | None:
    """Why the hints may not run (not patterns, too many, too large), or None."""
    if len(hints) > MAX_HINTS_PER_CHUNK:
        return f"the chunk brings {len(hints)} untrusted hints, more than {MAX_HINTS_PER_CHUNK}"
    program = 0
    for key, hint in hints:
        if not isinstance(hint, str):
            return f"untrusted {key} is a {type(hint).__name__}, not a pattern (denied)"
        try:
            program += compile_untrusted(hint).programsize
        except PatternTooLargeError as error:
            return f"untrusted {key} is too large: {error} (denied)"
        except PatternCompileError:
            return f"untrusted {key} cannot be compiled by RE2 (denied)"
    if program > MAX_HINT_PROGRAM_PER_CHUNK:
        return (
            f"untrusted hints compile to {program} RE2 instructions together, more than "
            f"{MAX_HINT_PROGRAM_PER_CHUNK} (denied)"
        )
    return None


def _is_hint(key: object) -> bool:
    return isinstance(key, str) and key.endswith(HINT_SUFFIX)


# Hints scan every metadata key, so they run last, on the chunks nothing else denied.
STAGES = (
    Stage("access", 10, AccessGuard.from_policy),
    Stage("hint", 90, lambda policy: HintGuard()),
)
