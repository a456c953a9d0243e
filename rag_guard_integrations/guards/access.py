"""Access allowlists and untrusted index hints: two per-chunk checks that only ever deny, and
the same allowlist verdict as a predicate for store-side filtering."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from rag_guard_integrations.core.errors import PatternCompileError
from rag_guard_integrations.core.patterns import matches
from rag_guard_integrations.guards.registry import Stage
from rag_guard_integrations.policy.loader import load_policy

if TYPE_CHECKING:
    from collections.abc import Sequence

    from rag_guard_integrations.core.chunk import Chunk
    from rag_guard_integrations.core.stage import Request
    from rag_guard_integrations.policy.loader import PolicyRef

HINT_SUFFIX = "_regex_hint"
Constraints = Mapping[str, frozenset[str]]


def satisfies(constraints: Constraints, metadata: Mapping[str, Any]) -> bool:
    """True when each constrained key of ``metadata`` holds an allowed value (for a list, every
    value allowed); a missing value fails. The same verdict as :class:`AccessGuard` and the
    clause id check, as a predicate a vector store can call per stored chunk."""
    for key, allowed in constraints.items():
        value = metadata.get(key)
        if value is None:
            return False
        values = value if isinstance(value, list | tuple | set | frozenset) else (value,)
        if not values or any(str(v) not in allowed for v in values):
            return False
    return True


class AccessGuard:
    """Deny a chunk unless each access-controlled attribute's value is in the caller's allowlist.

    Default deny: an attribute the context does not mention, or the chunk does not carry, is
    denied.

    Example:
        >>> from rag_guard_integrations import AccessContext, Chunk
        >>> from rag_guard_integrations.core.stage import Request
        >>> guard = AccessGuard(["contract_type"])
        >>> request = Request("q", "q", (), AccessContext(contract_type={"MSA"}))
        >>> guard(Chunk("...", {"contract_type": "SOW"}), request)
        "contract_type='SOW' is not in the caller's allowlist"
    """

    name = "access"

    def __init__(self, attributes: Sequence[str]) -> None:
        self.attributes = tuple(attributes)

    @classmethod
    def from_policy(cls, policy: PolicyRef) -> AccessGuard | None:
        """The access check of ``policy``, or None when it declares no access attributes."""
        policy = load_policy(policy)
        return cls(policy.access.attributes) if policy.access.attributes else None

    def __call__(self, chunk: Chunk, request: Request) -> str | None:
        access = request.access
        for attribute in self.attributes:
            if access is None or not access.mentions(attribute):
                return f"the access context grants no {attribute} (default deny)"
            value = chunk.metadata.get(attribute)
            if value is None:
                return f"the chunk carries no {attribute} (default deny)"
            if not access.allows(attribute, value):
                return f"{attribute}={value!r} is not in the caller's allowlist"
        return None


class HintGuard:
    """Every metadata ``*_regex_hint`` is untrusted index data: the text must match it too.

    A hint can only add a restriction; one that RE2 cannot compile within the small budget of
    untrusted patterns denies the chunk.
    """

    name = "hint"

    def check_many(self, chunks: Sequence[Chunk], request: Request) -> list[str | None]:
        """:meth:`__call__` for each chunk; one without a hint key costs a scan of its keys."""
        out: list[str | None] = []
        for chunk in chunks:
            reason = None
            for key in chunk.metadata:
                if isinstance(key, str) and key.endswith(HINT_SUFFIX):
                    reason = self(chunk, request)
                    break
            out.append(reason)
        return out

    def __call__(self, chunk: Chunk, request: Request) -> str | None:
        metadata = chunk.metadata
        for key in metadata:
            if not isinstance(key, str) or not key.endswith(HINT_SUFFIX):
                continue
            hint = metadata[key]
            if not isinstance(hint, str):
                return f"untrusted {key} is a {type(hint).__name__}, not a pattern (denied)"
            try:
                if not matches(hint, chunk.text, untrusted=True):
                    return f"the text does not match its own {key}"
            except PatternCompileError:
                return f"untrusted {key} cannot be compiled by RE2 (denied)"
        return None


# Hints scan every metadata key, so they run last, on the chunks nothing else denied.
STAGES = (
    Stage("access", 10, AccessGuard.from_policy),
    Stage("hint", 90, lambda policy: HintGuard()),
)
