"""One guard check over LlamaIndex nodes: convert, call the core Guard, keep the caller's own
NodeWithScore objects by position, and report the decision."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from llama_index.core.schema import NodeWithScore, TextNode

from rag_guard_integrations.core.chunk import Chunk
from rag_guard_integrations.llama_index.events import GuardDecisionEvent, emit

if TYPE_CHECKING:
    from collections.abc import Sequence

    from llama_index.core.schema import QueryBundle

    from rag_guard_integrations.core.access import AccessContext
    from rag_guard_integrations.core.decisions import GuardResult
    from rag_guard_integrations.engine.guard import Guard


@dataclass(frozen=True, slots=True)
class GuardedNodes:
    """The nodes that may reach the LLM (the input objects, in input order) and the audit.

    ``refusal`` is the text to answer with instead of calling the LLM: the domain guard's when
    it rejected the query, else the policy's no-context text when no node is left.
    """

    nodes: list[NodeWithScore]
    result: GuardResult
    no_context_refusal: str

    @property
    def refusal(self) -> str | None:
        """Text to show instead of an answer, or None when the LLM may answer."""
        if self.result.refusal is not None:
            return self.result.refusal
        return None if self.nodes else self.no_context_refusal


def query_text(query_bundle: QueryBundle | None) -> str:
    """The query string the guard judges (empty without a query bundle)."""
    return "" if query_bundle is None else query_bundle.query_str


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
    # A NodeWithScore around a TextNode was validated by pydantic already, so its fields are
    # read directly: Chunk.from_any probes attributes, and on pydantic models each failed probe
    # costs more than the guard's own per-chunk checks.
    if isinstance(item, NodeWithScore) and isinstance(item.node, TextNode):
        node = item.node
        return Chunk(node.text, node.metadata, item.score, node.node_id)
    return Chunk.from_any(item, position=position)


def _with_text(item: NodeWithScore, text: str) -> NodeWithScore:
    """A copy of ``item`` whose node holds the masked ``text`` (the caller's node is untouched)."""
    node = item.node.model_copy(update={"metadata": dict(item.node.metadata)})
    node.set_content(text)
    return NodeWithScore(node=node, score=item.score)


def _conclude(
    guard: Guard,
    nodes: Sequence[NodeWithScore],
    result: GuardResult,
    access: AccessContext | None,
    source: str,
) -> GuardedNodes:
    allowed = result.allowed_indices
    masked = result.redacted
    kept = [_with_text(nodes[i], masked[i]) if i in masked else nodes[i] for i in allowed]

    def event() -> GuardDecisionEvent:
        passed = set(allowed)
        return GuardDecisionEvent(
            source=source,
            summary=result.summary(),
            principal=None if access is None else access.principal,
            allowed_node_ids=[node.node.node_id for node in kept],
            denied_node_ids=[n.node.node_id for i, n in enumerate(nodes) if i not in passed],
        )

    emit(event)
    return GuardedNodes(kept, result, guard.policy.no_context_refusal)
