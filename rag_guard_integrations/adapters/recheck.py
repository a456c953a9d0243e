"""What a caller was shown before, judged again: a memory (an agent thread, a chat history)
holds the chunks earlier requests were allowed, and a grant the access source has taken away
since, or an ACL copy grown too old, must not let a later request read them again.

A memory notes, for each chunk a guard with such a check let through, the check's name and
the chunk's id and metadata (:func:`shown_entries`; no text): the notes outlive what the
memory's messages still show of the chunk (an answer quoting it, a summary of it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rag_guard_integrations.core.chunk import Chunk
from rag_guard_integrations.guards.live_access import LiveAccess

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

    from rag_guard_integrations.adapters.listen import Heard
    from rag_guard_integrations.core.access import AccessContext
    from rag_guard_integrations.core.decisions import GuardResult
    from rag_guard_integrations.engine.guard import Guard


@dataclass(frozen=True, slots=True)
class Withdrawn:
    """What judging a memory's chunks again found: how many the checks deny now, and whether
    a check failed (its source down: denied, fail closed, rather than revoked)."""

    count: int
    failed: bool = False

    def __bool__(self) -> bool:
        return self.count > 0

    def reason(self, what: str) -> str:
        """Why ``what`` (a thread, a conversation) may not be used, in one line."""
        if self.failed:
            return (
                f"{what} holds chunks that could not be judged again (the access check "
                "failed); denied (fail closed): try again once the access source answers"
            )
        return (
            f"{what} holds {self.count} chunk(s) this request's access no longer allows (the "
            "access source denies them now); start a new one"
        )


def live_check(guard: Guard) -> LiveAccess | None:
    """The guard's first access check (an access source's live check, or the ACL age bound),
    or None when its policy and it have neither."""
    return next((s for s in guard.stages.values() if isinstance(s, LiveAccess)), None)


def check_name(guard: Guard) -> str | None:
    """What names the guard's access check in a memory's notes: its source's name, or
    ``acl_age``; None when it has none (nothing of it needs judging again)."""
    stage = live_check(guard)
    if stage is None:
        return None
    return stage.source.name if stage.source is not None else stage.name


def shown_entries(reports: Iterable[Heard]) -> list[dict[str, Any]]:
    """The notes a memory keeps of what ``reports`` (the guarded requests of one step)
    showed: for each chunk let through by a guard with an access check, the check's name,
    the chunk's id and its metadata.

    Example:
        >>> from rag_guard_integrations import Guard
        >>> from rag_guard_integrations.adapters.listen import hear, listening
        >>> from rag_guard_integrations.authz.source import Answers, Scope
        >>> class Granted:
        ...     name, resource_key = "demo", "doc_id"
        ...     def check(self, principal, resources):
        ...         return Answers(frozenset({"d1"}) & set(resources), "v1")
        ...     def scope(self, principal):
        ...         return Scope.bounded({"d1"}, "doc_id", self.name)
        >>> guard = Guard.from_policy("default", access_source=Granted())
        >>> result = guard.check("q", [{"text": "a", "meta": {"doc_id": "d1"}, "id": "c1"}],
        ...                      {"principal": "alice"})
        >>> with listening() as reports:
        ...     hear(result, [], guard=guard)
        >>> shown_entries(reports)
        [{'check': 'demo', 'id': 'c1', 'metadata': {'doc_id': 'd1'}}]
    """
    return [
        entry
        for report in reports
        if report.guard is not None
        for entry in entries_of(report.guard, report.result)
    ]


def entries_of(guard: Guard, result: GuardResult) -> list[dict[str, Any]]:
    """The notes of what ``guard`` let through in ``result`` (none when it has no access
    check)."""
    name = check_name(guard)
    if name is None:
        return []
    return [{"check": name, "id": c.id, "metadata": dict(c.metadata)} for c in result.allowed]


def withdrawn(
    judges: Mapping[str, Guard], entries: Sequence[Mapping[str, Any]], access: AccessContext | None
) -> Withdrawn:
    """How many of the chunks a memory's notes ``entries`` name the checks of ``judges``
    (by check name) deny ``access`` now. A note whose check no guard of ``judges`` runs
    counts as denied (fail closed): nothing can vouch for it.

    Example:
        >>> from rag_guard_integrations import AccessContext, Guard
        >>> from rag_guard_integrations.authz.source import Answers, Scope
        >>> class Granted:
        ...     name, resource_key, granted = "demo", "doc_id", {"d1", "d2"}
        ...     def check(self, principal, resources):
        ...         return Answers(frozenset(self.granted) & set(resources), "v1")
        ...     def scope(self, principal):
        ...         return Scope.bounded(self.granted, "doc_id", self.name)
        >>> source = Granted()
        >>> guard = Guard.from_policy("default", access_source=source)
        >>> notes = [{"check": "demo", "id": "c1", "metadata": {"doc_id": "d1"}},
        ...          {"check": "demo", "id": "c2", "metadata": {"doc_id": "d2"}}]
        >>> withdrawn({"demo": guard}, notes, AccessContext("alice")).count
        0
        >>> source.granted = {"d1"}  # d2 taken away
        >>> withdrawn({"demo": guard}, notes, AccessContext("alice")).count
        1
    """
    by_check: dict[str, list[Chunk]] = {}
    seen: set[tuple[str, str]] = set()
    for entry in entries:
        name, chunk_id = str(entry.get("check")), entry.get("id")
        if chunk_id is not None:
            if (name, chunk_id) in seen:
                continue  # shown again on a later turn: judged once
            seen.add((name, chunk_id))
        chunk = Chunk("", dict(entry.get("metadata") or {}), id=chunk_id)
        by_check.setdefault(name, []).append(chunk)
    count, failed = 0, False
    for name, chunks in by_check.items():
        guard = judges.get(name)
        stage = None if guard is None else live_check(guard)
        if stage is None:
            count, failed = count + len(chunks), True
            continue
        denied, record = stage.judge(chunks, access)
        count += len(denied)
        failed = failed or record.failure is not None
    return Withdrawn(count, failed)
