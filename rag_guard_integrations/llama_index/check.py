"""One guard check over LlamaIndex nodes: the node as the LLM will read it becomes a chunk,
the kit's guarded request runs, and the caller's own NodeWithScore objects (or masked copies)
go on; the decision is reported as a :class:`GuardDecisionEvent`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from llama_index.core.schema import ImageNode, MetadataMode, Node, NodeWithScore

from rag_guard_integrations.adapters.check import guarded
from rag_guard_integrations.adapters.records import HANDOFF, decision_rows
from rag_guard_integrations.core.chunk import Chunk
from rag_guard_integrations.engine.redact import masked_values
from rag_guard_integrations.guards.non_text import NonTextChunk
from rag_guard_integrations.llama_index.content import (
    judged_text,
    masked_copy,
    without_unjudged_relations,
)
from rag_guard_integrations.llama_index.events import GuardDecisionEvent, emit

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from llama_index.core.schema import BaseNode, QueryBundle

    from rag_guard_integrations.adapters.drive import Flow
    from rag_guard_integrations.core.access import AccessContext
    from rag_guard_integrations.core.decisions import ChunkDecision, GuardResult
    from rag_guard_integrations.engine.guard import Guard
    from rag_guard_integrations.engine.plan import RequestPlan


@dataclass(frozen=True, slots=True)
class GuardedNodes:
    """The nodes that may reach the LLM (the input objects, in input order) and the audit.

    ``result.decisions`` holds one decision per node given, in order (a node with content no
    text check can judge, such as an image, is denied at the ``non_text`` stage unless the
    policy sets ``allow_non_text: true``; a node the guard allowed masked whose masks cannot be
    written back into it is denied at the ``handoff`` stage). ``refusal`` is the text to answer
    with instead of calling the LLM: the domain guard's when it rejected the query, else the
    policy's no-context text when no node is left; never under ``mode: shadow``, where the
    policy only records and the LLM answers as it would without the guard.

    Example:
        ```python
        checked = GuardPostprocessor(guard=guard, access=access).guard_nodes(nodes, bundle)
        checked.nodes, checked.refusal, checked.result.audit()
        ```
    """

    nodes: list[NodeWithScore]
    result: GuardResult
    refusal: str | None
    plan: RequestPlan | None = None

    @property
    def unmasked_ids(self) -> tuple[str, ...]:
        """The nodes allowed masked whose masks could not be written back, so withheld."""
        return tuple(str(d.chunk.id) for d in self.result.decisions if d.stage == HANDOFF)


class _Nodes:
    """The conversion of NodeWithScore objects for the kit."""

    def chunk(self, item: NodeWithScore, position: int) -> Chunk:
        # The guard judges the prompt text, not ``node.text``: metadata visible to the LLM, a
        # Node's text resource and metadata a postprocessor may swap in reach the model too.
        # Fields are read directly: Chunk.from_any probes attributes, and on pydantic models
        # each failed probe costs more than the checks.
        if not isinstance(item, NodeWithScore):
            return Chunk.from_any(item, position=position)
        node = item.node
        text, metadata, node_id = judged_text(node), node.metadata, node.node_id
        kinds = non_text_kinds(node)
        if kinds:
            return NonTextChunk(text, metadata, item.score, node_id, kinds=kinds)
        return Chunk(text, metadata, item.score, node_id)

    def hand_on(self, item: NodeWithScore, masked: ChunkDecision | None) -> NodeWithScore | None:
        # A copy (the caller's node is untouched) with the masked text written back and
        # neighbours' unjudged metadata dropped from its relationships.
        node = (
            item.node
            if masked is None
            else masked_copy(item.node, masked.redactions, masked.chunk.text, masked_values(masked))
        )
        if node is None:
            return None
        node = without_unjudged_relations(node)
        return item if node is item.node else NodeWithScore(node=node, score=item.score)


NODES = _Nodes()


def query_text(query_bundle: QueryBundle | None) -> str:
    """The query string the guard judges (empty without a query bundle)."""
    return "" if query_bundle is None else query_bundle.query_str


def non_text_kinds(node: BaseNode) -> tuple[str, ...]:
    """What ``node`` holds besides text that no text check can judge: ``"image"``,
    ``"audio"``, ``"video"``, or ``"empty text"`` when its body is blank; empty for a text node."""
    kinds: list[str] = []
    if isinstance(node, ImageNode) and (node.image or node.image_path or node.image_url):
        kinds.append("image")
    if isinstance(node, Node):
        resources = (node.image_resource, node.audio_resource, node.video_resource)
        for kind, resource in zip(("image", "audio", "video"), resources, strict=True):
            if resource and kind not in kinds:
                kinds.append(kind)
    if not node.get_content(metadata_mode=MetadataMode.NONE).strip():
        kinds.append("empty text")
    return tuple(kinds)


def checked_nodes(
    guard: Guard,
    query: str,
    access: AccessContext | None,
    source: str,
    *,
    nodes: Sequence[NodeWithScore] = (),
    fetch: Callable[[RequestPlan], Flow[Sequence[NodeWithScore]]] | None = None,
    planned: RequestPlan | None = None,
    limit: int | None = None,
) -> Flow[GuardedNodes]:
    """The kit's guarded request over ``nodes`` (or what ``fetch`` brings), reported as a
    :class:`GuardDecisionEvent` of ``source``."""
    checked = yield from guarded(
        guard, query, access, NODES, items=nodes, fetch=fetch, planned=planned, limit=limit
    )
    result = checked.result

    def event() -> GuardDecisionEvent:
        rows = decision_rows(result)
        return GuardDecisionEvent(
            source=source,
            summary=result.summary(),
            principal=None if access is None else access.principal,
            allowed_node_ids=[str(row["id"]) for row in rows if row["allowed"]],
            denied_node_ids=[str(row["id"]) for row in rows if not row["allowed"]],
            decisions=rows,
            audit=result.audit(),
        )

    emit(event)
    return GuardedNodes(checked.items, result, checked.refusal, checked.plan)
