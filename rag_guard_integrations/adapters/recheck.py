"""What a caller was shown before, judged again: a memory (an agent thread, a chat history)
holds the chunks earlier requests were allowed, and a grant the access source has taken away
since, or an ACL copy grown too old, must not let a later request read them again."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rag_guard_integrations.guards.live_access import LiveAccess

if TYPE_CHECKING:
    from collections.abc import Sequence

    from rag_guard_integrations.core.access import AccessContext
    from rag_guard_integrations.core.chunk import Chunk
    from rag_guard_integrations.engine.guard import Guard


def withdrawn(guard: Guard, shown: Sequence[Chunk], access: AccessContext | None) -> int:
    """How many of the chunks ``shown`` before the guard's first access checks (the access
    source's live check, the ACL age bound) deny ``access`` now; 0 when it has neither. The
    other stages judged them already, against the same query and an access the memory's own
    binding compares.

    Example:
        >>> from rag_guard_integrations import AccessContext, Chunk, Guard
        >>> from rag_guard_integrations.authz.source import Answers, Scope
        >>> class Granted:
        ...     name, resource_key, granted = "demo", "doc_id", {"d1", "d2"}
        ...     def check(self, principal, resources):
        ...         return Answers(frozenset(self.granted) & set(resources), "v1")
        ...     def scope(self, principal):
        ...         return Scope.bounded(self.granted, "doc_id", self.name)
        >>> source = Granted()
        >>> guard = Guard.from_policy("default", access_source=source)
        >>> shown = [Chunk("a", {"doc_id": "d1"}), Chunk("b", {"doc_id": "d2"})]
        >>> withdrawn(guard, shown, AccessContext("alice"))
        0
        >>> source.granted = {"d1"}  # d2 taken away
        >>> withdrawn(guard, shown, AccessContext("alice"))
        1
    """
    stage = next((s for s in guard.stages.values() if isinstance(s, LiveAccess)), None)
    if stage is None or not shown:
        return 0
    denied, _ = stage.judge(shown, access)
    return len(denied)
