"""One guard check over Haystack Documents: the Document as the prompt reads it becomes a chunk,
the kit's guarded request runs, and the caller's own Documents (or masked copies) go on; the
decision is added, without text, to the running Haystack span."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from haystack import Document
from haystack.tracing.tracer import is_tracing_enabled, tracer

from rag_guard_integrations.adapters.check import guarded
from rag_guard_integrations.adapters.records import decision_rows
from rag_guard_integrations.core.chunk import Chunk
from rag_guard_integrations.engine.redact import masked_values
from rag_guard_integrations.engine.scrub import scrubbed
from rag_guard_integrations.guards.non_text import NonTextChunk

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from rag_guard_integrations.adapters.check import Checked
    from rag_guard_integrations.adapters.drive import Flow
    from rag_guard_integrations.core.access import AccessContext
    from rag_guard_integrations.core.decisions import ChunkDecision
    from rag_guard_integrations.engine.guard import Guard
    from rag_guard_integrations.engine.plan import RequestPlan

SPAN_TAG = "rag_guard.decision"


class _Documents:
    """The conversion of Haystack Documents for the kit."""

    def chunk(self, item: Document, position: int) -> Chunk:
        # A prompt template reads ``content``; a Document holding a blob instead (an image, a
        # PDF page) has content no text check can judge, denied unless the policy allows it.
        if not isinstance(item, Document):
            return Chunk.from_any(item, position=position)
        text = item.content or ""
        # An id Haystack derived from the content is a plain sha256 of text and metadata: a
        # record or trace holding it could be matched against guessed text, so records name
        # such a Document by the guard's keyed hash instead.
        own = None if item.id == item._create_id() else item.id
        if item.blob is not None:
            kind = item.blob.mime_type or "blob"
            return NonTextChunk(text, item.meta, item.score, own, kinds=(kind,))
        return Chunk(text, item.meta, item.score, own)

    def hand_on(self, item: Document, masked: ChunkDecision | None) -> Document | None:
        if masked is None:
            return item
        # A copy with the masked text. The caller's own id stays (masked where it holds a
        # masked value); one Haystack derived from the content is derived again from the
        # masked copy, or it would hash what was masked.
        derived = item.id == item._create_id()
        masks = masked_values(masked)
        meta = scrubbed(dict(item.meta), masks)
        own = "" if derived else scrubbed(item.id, masks)  # the id may hold the value too
        return dataclasses.replace(item, content=masked.chunk.text, meta=meta, id=own)


DOCUMENTS = _Documents()


def checked_documents(
    guard: Guard,
    query: str,
    access: AccessContext | None,
    *,
    documents: Sequence[Document] = (),
    fetch: Callable[[RequestPlan], Flow[Sequence[Document]]] | None = None,
    limit: int | None = None,
) -> Flow[Checked[Document]]:
    """The kit's guarded request over ``documents`` (or what ``fetch`` brings; at most
    ``limit`` kept); its decision (ids, stages, rules, counts: never text) tagged on the
    current Haystack span when tracing is on."""
    checked = yield from guarded(
        guard, query, access, DOCUMENTS, items=documents, fetch=fetch, limit=limit
    )
    span = tracer.current_span() if is_tracing_enabled() else None
    if span is not None:
        summary = checked.result.summary()
        span.set_tag(SPAN_TAG, {**summary, "decisions": decision_rows(checked.result)})
    return checked
