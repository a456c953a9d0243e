"""One guard check over LlamaIndex nodes: judge what the LLM will be sent, call the core Guard,
keep the caller's own NodeWithScore objects by position, and report the decision."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from llama_index.core.schema import ImageNode, MetadataMode, Node, NodeWithScore

from rag_guard_integrations.core.chunk import Chunk
from rag_guard_integrations.guards.non_text import NonTextChunk
from rag_guard_integrations.llama_index.content import (
    judged_text,
    masked_copy,
    without_unjudged_relations,
)
from rag_guard_integrations.llama_index.events import GuardDecisionEvent, emit

if TYPE_CHECKING:
    from collections.abc import Sequence

    from llama_index.core.schema import BaseNode, QueryBundle

    from rag_guard_integrations.core.access import AccessContext
    from rag_guard_integrations.core.decisions import GuardResult, Redaction
    from rag_guard_integrations.engine.guard import Guard


@dataclass(frozen=True, slots=True)
class GuardedNodes:
    """The nodes that may reach the LLM (the input objects, in input order) and the audit.

    ``result.decisions`` holds one decision per node given, in order (a node with content no
    text check can judge, such as an image, is denied at the ``non_text`` stage unless the
    policy sets ``allow_non_text: true``). ``refusal`` is the text to answer with instead of
    calling the LLM: the domain guard's when it rejected the query, else the policy's
    no-context text when no node is left; never under ``mode: shadow`` (``enforced`` is
    False), where the policy only records and the LLM answers as it would without the guard.
    ``unmasked_ids`` are the nodes the guard allowed masked whose masks could not be written
    back into the node, so withheld.

    Example:
        ```python
        checked = GuardPostprocessor(guard=guard, access=access).guard_nodes(nodes, bundle)
        checked.nodes, checked.refusal, checked.result.audit()
        ```
    """

    nodes: list[NodeWithScore]
    result: GuardResult
    no_context_refusal: str
    unmasked_ids: tuple[str, ...] = field(default=())
    enforced: bool = True

    @property
    def refusal(self) -> str | None:
        """Text to show instead of an answer, or None when the LLM may answer."""
        if not self.enforced:
            return None
        if self.result.refusal is not None:
            return self.result.refusal
        return None if self.nodes else self.no_context_refusal


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


def check_nodes(
    guard: Guard,
    nodes: Sequence[NodeWithScore],
    query: str,
    access: AccessContext | None,
    source: str,
) -> GuardedNodes:
    """Run ``guard`` on ``nodes`` and report the decision as a :class:`GuardDecisionEvent`."""
    result = guard.check(query, _chunks(nodes), access=access)
    return _conclude(guard, nodes, result, access, source)


async def acheck_nodes(
    guard: Guard,
    nodes: Sequence[NodeWithScore],
    query: str,
    access: AccessContext | None,
    source: str,
) -> GuardedNodes:
    """Async twin of :func:`check_nodes`: awaits ``guard.acheck``."""
    result = await guard.acheck(query, _chunks(nodes), access=access)
    return _conclude(guard, nodes, result, access, source)


def _chunks(nodes: Sequence[NodeWithScore]) -> list[Chunk]:
    return [_chunk(node, i) for i, node in enumerate(nodes)]


def _chunk(item: object, position: int) -> Chunk:
    # The guard judges the prompt text, not ``node.text``: metadata visible to the LLM, a
    # Node's text resource and metadata a postprocessor may swap in reach the model too.
    # Fields are read directly: Chunk.from_any probes attributes, and on pydantic models each
    # failed probe costs more than the checks.
    if isinstance(item, NodeWithScore):
        node = item.node
        text, metadata, node_id = judged_text(node), node.metadata, node.node_id
        kinds = non_text_kinds(node)
        if kinds:
            return NonTextChunk(text, metadata, item.score, node_id, kinds=kinds)
        return Chunk(text, metadata, item.score, node_id)
    return Chunk.from_any(item, position=position)


def _handed_on(
    item: NodeWithScore, text: str | None, spans: Sequence[Redaction]
) -> NodeWithScore | None:
    """An allowed ``item`` as it goes on: itself, or a copy (the caller's node is untouched)
    with the masked ``text`` written back and neighbours' unjudged metadata dropped from its
    relationships; None when the masks cannot be written back into the node."""
    node = item.node if text is None else masked_copy(item.node, spans, text)
    if node is None:
        return None
    node = without_unjudged_relations(node)
    return item if node is item.node else NodeWithScore(node=node, score=item.score)


def _conclude(
    guard: Guard,
    nodes: Sequence[NodeWithScore],
    result: GuardResult,
    access: AccessContext | None,
    source: str,
) -> GuardedNodes:
    allowed = result.allowed_indices
    masked = result.redacted
    kept: list[NodeWithScore] = []
    unmasked: list[str] = []
    for i in allowed:
        spans = result.decisions[i].redactions if i in masked else ()
        node = _handed_on(nodes[i], masked.get(i), spans)
        if node is None:
            unmasked.append(nodes[i].node.node_id)
        else:
            kept.append(node)

    def event() -> GuardDecisionEvent:
        passed = set(allowed)
        denied = [n.node.node_id for i, n in enumerate(nodes) if i not in passed]
        return GuardDecisionEvent(
            source=source,
            summary=result.summary(),
            principal=None if access is None else access.principal,
            allowed_node_ids=[node.node.node_id for node in kept],
            denied_node_ids=[*denied, *unmasked],
            decisions=decision_rows(result, frozenset(unmasked)),
            audit=result.audit(),
        )

    emit(event)
    policy = guard.policy
    return GuardedNodes(
        kept, result, policy.no_context_refusal, tuple(unmasked), policy.mode != "shadow"
    )


def decision_rows(
    result: GuardResult, unmasked: frozenset[str] = frozenset()
) -> list[dict[str, object]]:
    """Per-chunk ``{id, allowed, stage, rule}`` for traces: never chunk text or a reason.
    ``unmasked`` ids were allowed masked but withheld: their masks could not be written back."""
    return [
        {
            "id": d.chunk.id,
            "allowed": d.allowed and d.chunk.id not in unmasked,
            "stage": d.stage,
            "rule": d.rule,
        }
        for d in result.decisions
    ]
