"""GuardDecisionEvent: every guard decision, sent through LlamaIndex instrumentation as an event
inside its own ``rag_guard_check`` span (no chunk text in either)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from llama_index.core.instrumentation import get_dispatcher  # type: ignore[attr-defined]
from llama_index.core.instrumentation.event_handlers import NullEventHandler
from llama_index.core.instrumentation.events import BaseEvent
from llama_index.core.instrumentation.span_handlers import NullSpanHandler
from pydantic import Field

if TYPE_CHECKING:
    from collections.abc import Callable

# get_dispatcher is public (every llama_index module uses it) but imported there without
# an explicit re-export, hence the ignore above.
dispatcher = get_dispatcher(__name__)


class GuardDecisionEvent(BaseEvent):
    """What one guard check decided: counts, node ids, stage and rule per node, and the audit
    record v1 (``GuardResult.audit()``); never chunk text.

    Any handler added to the root dispatcher (or to this module's) receives it. It is sent
    inside a span named ``rag_guard_check`` whose argument and result are this event, so span
    handlers (tracers) keep the decision too, and nothing else.

    Example:
        ```python
        from llama_index.core.instrumentation import get_dispatcher
        from llama_index.core.instrumentation.event_handlers import BaseEventHandler

        class Audit(BaseEventHandler):
            def handle(self, event, **kwargs):
                if isinstance(event, GuardDecisionEvent):
                    print(event.source, event.summary["allowed"], event.summary["refusal"])

        get_dispatcher().add_event_handler(Audit())
        ```
    """

    source: str = Field(description="class name of the component that ran the check")
    summary: dict[str, Any] = Field(description="GuardResult.summary(): counts and names")
    principal: str | None = Field(default=None, description="the access context's principal")
    allowed_node_ids: list[str] = Field(default_factory=list, description="ids let through")
    denied_node_ids: list[str] = Field(default_factory=list, description="ids withheld")
    decisions: list[dict[str, Any]] = Field(
        default_factory=list, description="per node: id, allowed, stage, rule (no text)"
    )
    audit: dict[str, Any] = Field(
        default_factory=dict, description="GuardResult.audit(): audit record v2, no chunk text"
    )

    @classmethod
    def class_name(cls) -> str:
        """The event's fixed serialization name."""
        return "GuardDecisionEvent"


def emit(build: Callable[[], GuardDecisionEvent]) -> None:
    """Send the event ``build`` makes to every registered instrumentation handler.

    The event is built only when some handler listens: building it costs about as much as the
    guard's own checks, and by default only LlamaIndex's null handler is registered.
    """
    if listening():
        rag_guard_check(build())


@dispatcher.span
def rag_guard_check(decision: GuardDecisionEvent) -> GuardDecisionEvent:
    """The span of one guard decision: it carries the event as argument and result."""
    dispatcher.event(decision)
    return decision


def listening() -> bool:
    """True when a handler other than the null ones would receive this module's events."""
    current = dispatcher
    while True:
        if any(not isinstance(h, NullEventHandler) for h in current.event_handlers):
            return True
        if any(not isinstance(h, NullSpanHandler) for h in current.span_handlers):
            return True
        if not current.propagate:
            return False
        current = current.parent
