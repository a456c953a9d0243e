"""What a caller was shown before, judged again: a memory (an agent thread, a chat history)
holds the chunks earlier requests were allowed, and a grant the access source has taken away
since must not let a later request read them again.

A memory notes, for each chunk a guard with an access source let through, the chunk's id and
the resource id the source checks (:func:`notes_of`; no text, no other metadata): the notes
outlive what the memory's messages still show of the chunk (an answer quoting it, a summary
of it). A guard in ``mode: shadow`` withholds nothing, so its chunks are not noted.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rag_guard_integrations.core.chunk import Chunk
from rag_guard_integrations.guards.live_access import LiveAccess

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

    from rag_guard_integrations.adapters.listen import Heard
    from rag_guard_integrations.authz.source import AccessSource
    from rag_guard_integrations.core.access import AccessContext
    from rag_guard_integrations.core.decisions import GuardResult
    from rag_guard_integrations.engine.guard import Guard


@dataclass(frozen=True, slots=True)
class Withdrawn:
    """What judging a memory's chunks again found: how many the source denies now, and
    whether its check failed (the source down: denied, fail closed, rather than revoked)."""

    count: int
    failed: bool = False

    def __bool__(self) -> bool:
        return self.count > 0

    def reason(self, what: str) -> str:
        """Why ``what`` (a thread, a conversation) may not be used, in one line."""
        if self.failed:
            return (
                f"{what} holds chunks that could not be judged again (the access source "
                "failed); denied (fail closed): try again once it answers"
            )
        return (
            f"{what} holds {self.count} chunk(s) this request's access no longer allows (the "
            "access source denies them now); start a new one"
        )


def noting_source(guard: Guard) -> AccessSource | None:
    """The access source whose grants a memory of ``guard``'s results must keep: the guard's,
    unless its policy is in shadow mode (it withholds nothing) or it has none."""
    if guard.access_source is None or guard.policy.mode == "shadow":
        return None
    return guard.access_source


def notes_of(guard: Guard, result: GuardResult) -> list[dict[str, Any]]:
    """The notes of what ``guard`` let through in ``result``: each chunk's id and the
    resource id its source checks (none without a :func:`noting_source`).

    Example:
        >>> from rag_guard_integrations import Guard
        >>> from rag_guard_integrations.authz.source import Answers, Scope
        >>> class Granted:
        ...     name, resource_key = "demo", "doc_id"
        ...     def check(self, principal, resources):
        ...         return Answers(frozenset({"d1"}) & set(resources), "v1")
        ...     def scope(self, principal):
        ...         return Scope.bounded({"d1"}, "doc_id", self.name)
        >>> guard = Guard.from_policy("default", access_source=Granted())
        >>> result = guard.check("q", [{"text": "a", "meta": {"doc_id": "d1", "score": 2},
        ...                            "id": "c1"}], {"principal": "alice"})
        >>> notes_of(guard, result)
        [{'id': 'c1', 'resource': 'd1'}]
    """
    source = noting_source(guard)
    if source is None:
        return []
    key = source.resource_key
    return [
        {"id": c.id, "resource": c.id if key is None else c.metadata.get(key)}
        for c in result.allowed
    ]


def heard_notes(reports: Iterable[Heard]) -> list[dict[str, Any]]:
    """The notes of every guarded request in ``reports`` (one step's)."""
    return [
        note
        for report in reports
        if report.guard is not None
        for note in notes_of(report.guard, report.result)
    ]


def fresh(notes: Sequence[Mapping[str, Any]], held: Iterable[Mapping[str, Any]]) -> list[Any]:
    """``notes`` without those ``held`` already has (a chunk shown again on a later turn)."""
    known = {(n.get("id"), n.get("resource")) for n in held}
    out = []
    for note in notes:
        key = (note.get("id"), note.get("resource"))
        if key not in known:
            known.add(key)
            out.append(note)
    return out


def withdrawn(
    source: AccessSource, notes: Sequence[Mapping[str, Any]], access: AccessContext | None
) -> Withdrawn:
    """How many of the chunks a memory's ``notes`` name ``source`` denies ``access`` now (in
    one bulk check, as at retrieval: an unusable principal, a note without a resource id or
    a failing source deny).

    Example:
        >>> from rag_guard_integrations import AccessContext
        >>> from rag_guard_integrations.authz.source import Answers, Scope
        >>> class Granted:
        ...     name, resource_key, granted = "demo", "doc_id", {"d1", "d2"}
        ...     def check(self, principal, resources):
        ...         return Answers(frozenset(self.granted) & set(resources), "v1")
        ...     def scope(self, principal):
        ...         return Scope.bounded(self.granted, "doc_id", self.name)
        >>> source = Granted()
        >>> notes = [{"id": "c1", "resource": "d1"}, {"id": "c2", "resource": "d2"}]
        >>> withdrawn(source, notes, AccessContext("alice")).count
        0
        >>> source.granted = {"d1"}  # d2 taken away
        >>> withdrawn(source, notes, AccessContext("alice")).count
        1
    """
    key = source.resource_key
    chunks = [
        Chunk("", {} if key is None else {key: note.get("resource")}, id=note.get("id"))
        for note in fresh(notes, ())
    ]
    denied, record = LiveAccess(source).judge(chunks, access)
    return Withdrawn(len(denied), record.failure is not None)
