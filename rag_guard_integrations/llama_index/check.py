"""One guard check over LlamaIndex nodes: judge what the LLM will be sent, call the core Guard,
keep the caller's own NodeWithScore objects by position, and report the decision."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from llama_index.core.schema import ImageNode, MetadataMode, Node, NodeWithScore

from rag_guard_integrations.core.chunk import Chunk
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

NON_TEXT_REASON = "the node has no text content (image, audio, video or empty); denied"


@dataclass(frozen=True, slots=True)
class GuardedNodes:
    """The nodes that may reach the LLM (the input objects, in input order) and the audit.

    ``refusal`` is the text to answer with instead of calling the LLM: the domain guard's when
    it rejected the query, else the policy's no-context text when no node is left.
    ``non_text_ids`` are the nodes withheld before the guard ran because no content check can
    judge them (the policy's ``allow_non_text`` is off); ``unmasked_ids`` the nodes the guard
    allowed masked whose masks could not be written back into the node, so withheld.
    """

    nodes: list[NodeWithScore]
    result: GuardResult
    no_context_refusal: str
    non_text_ids: tuple[str, ...] = field(default=())
    unmasked_ids: tuple[str, ...] = field(default=())

    @property
    def refusal(self) -> str | None:
        """Text to show instead of an answer, or None when the LLM may answer."""
        if self.result.refusal is not None:
            return self.result.refusal
        return None if self.nodes else self.no_context_refusal


def query_text(query_bundle: QueryBundle | None) -> str:
    """The query string the guard judges (empty without a query bundle)."""
    return "" if query_bundle is None else query_bundle.query_str


def has_text_content(node: BaseNode) -> bool:
    """True when ``node`` is text only: a non-blank body and no image, audio or video."""
    if isinstance(node, ImageNode) and (node.image or node.image_path or node.image_url):
        return False
    if isinstance(node, Node) and (
        node.image_resource or node.audio_resource or node.video_resource
    ):
        return False
    return bool(node.get_content(metadata_mode=MetadataMode.NONE).strip())


def check_nodes(
    guard: Guard,
    nodes: Sequence[NodeWithScore],
    query: str,
    access: AccessContext | None,
    source: str,
) -> GuardedNodes:
    """Run ``guard`` on ``nodes`` and report the decision as a :class:`GuardDecisionEvent`."""
    judged, withheld = _split(guard, nodes)
    result = guard.check(query, _chunks(judged), access=access)
    return _conclude(guard, (judged, withheld), result, access, source)


async def acheck_nodes(
    guard: Guard,
    nodes: Sequence[NodeWithScore],
    query: str,
    access: AccessContext | None,
    source: str,
) -> GuardedNodes:
    """Async twin of :func:`check_nodes`: awaits ``guard.acheck``."""
    judged, withheld = _split(guard, nodes)
    result = await guard.acheck(query, _chunks(judged), access=access)
    return _conclude(guard, (judged, withheld), result, access, source)


def _split(
    guard: Guard, nodes: Sequence[NodeWithScore]
) -> tuple[Sequence[NodeWithScore], tuple[str, ...]]:
    """The nodes the guard judges, and the ids of non-text nodes withheld without a check."""
    if guard.policy.allow_non_text:
        return nodes, ()
    judged: list[NodeWithScore] = []
    withheld: list[str] = []
    for item in nodes:
        if isinstance(item, NodeWithScore) and not has_text_content(item.node):
            withheld.append(item.node.node_id)
        else:
            judged.append(item)
    return (judged, tuple(withheld)) if withheld else (nodes, ())


def _chunks(nodes: Sequence[NodeWithScore]) -> list[Chunk]:
    return [_chunk(node, i) for i, node in enumerate(nodes)]


def _chunk(item: object, position: int) -> Chunk:
    # The guard judges the prompt text, not ``node.text``: metadata visible to the LLM, a
    # Node's text resource and metadata a postprocessor may swap in reach the model too.
    # Fields are read directly: Chunk.from_any probes attributes, and on pydantic models each
    # failed probe costs more than the checks.
    if isinstance(item, NodeWithScore):
        node = item.node
        return Chunk(judged_text(node), node.metadata, item.score, node.node_id)
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
    split: tuple[Sequence[NodeWithScore], tuple[str, ...]],
    result: GuardResult,
    access: AccessContext | None,
    source: str,
) -> GuardedNodes:
    nodes, withheld = split
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
        denied.extend(unmasked)
        return GuardDecisionEvent(
            source=source,
            summary=result.summary(),
            principal=None if access is None else access.principal,
            allowed_node_ids=[node.node.node_id for node in kept],
            denied_node_ids=[*denied, *withheld],
            decisions=decision_rows(result, withheld, frozenset(unmasked)),
            audit=result.audit(),
        )

    emit(event)
    return GuardedNodes(kept, result, guard.policy.no_context_refusal, withheld, tuple(unmasked))


def decision_rows(
    result: GuardResult,
    withheld: tuple[str, ...] = (),
    unmasked: frozenset[str] = frozenset(),
) -> list[dict[str, object]]:
    """Per-chunk ``{id, allowed, stage, rule}`` for traces: never chunk text or a reason.
    ``unmasked`` ids were allowed masked but withheld: their masks could not be written back."""
    rows: list[dict[str, object]] = [
        {
            "id": d.chunk.id,
            "allowed": d.allowed and d.chunk.id not in unmasked,
            "stage": d.stage,
            "rule": d.rule,
        }
        for d in result.decisions
    ]
    rows.extend({"id": i, "allowed": False, "stage": "content", "rule": None} for i in withheld)
    return rows
