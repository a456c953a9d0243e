"""One check's inputs as the per-chunk stages see them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from rag_guard_integrations.core.access import AccessContext
    from rag_guard_integrations.core.chunk import Chunk


@dataclass(frozen=True, slots=True)
class Request:
    """The query (raw and normalised), the clause ids it asks for, and who is asking."""

    query: str
    normalized_query: str
    intents: tuple[str, ...]
    access: AccessContext | None


class ChunkCheck(Protocol):
    """A per-chunk stage: returns None when the chunk passes, else why it is denied: a
    :class:`~rag_guard_integrations.core.reasons.Reason` for records to carry its record form
    (a plain string is recorded by the stage's name only)."""

    name: str

    def __call__(self, chunk: Chunk, request: Request) -> str | None: ...
