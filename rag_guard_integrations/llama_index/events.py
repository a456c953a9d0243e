"""GuardDecisionEvent: every guard decision, sent through LlamaIndex instrumentation."""

from __future__ import annotations

from typing import Any

from llama_index.core.instrumentation import get_dispatcher  # type: ignore[attr-defined]
from llama_index.core.instrumentation.events import BaseEvent
from pydantic import Field

# get_dispatcher is public (every llama_index module uses it) but imported there without
# an explicit re-export, hence the ignore above.
dispatcher = get_dispatcher(__name__)


class GuardDecisionEvent(BaseEvent):
    """What one guard check decided, as counts, stages and node ids (never chunk text).

    Any handler added to the root dispatcher (or to this module's) receives it.

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

    @classmethod
    def class_name(cls) -> str:
        """The event's fixed serialization name."""
        return "GuardDecisionEvent"


def emit(event: GuardDecisionEvent) -> None:
    """Send ``event`` to every registered instrumentation handler."""
    dispatcher.event(event)
