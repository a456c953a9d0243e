"""Stand-ins for testing guarded LlamaIndex apps offline: LLMs that keep every prompt they are
sent, and a recorder of everything instrumentation and callbacks show the app.

Example:
    ```python
    llm = RecordingLLM()
    engine = guarded_query_engine(index, guard, llm=llm)
    with InstrumentationRecorder() as seen:
        query_with_access(engine, "termination notice period?", {"contract_type": ["MSA"]})
    assert all("SECRET" not in p for p in llm.prompts + seen.texts)
    ```
"""

from __future__ import annotations

import re
import threading
from typing import TYPE_CHECKING, Any

from llama_index.core.callbacks.base_handler import BaseCallbackHandler
from llama_index.core.instrumentation import get_dispatcher  # type: ignore[attr-defined]
from llama_index.core.instrumentation.event_handlers import BaseEventHandler
from llama_index.core.instrumentation.span import SimpleSpan
from llama_index.core.instrumentation.span_handlers import BaseSpanHandler
from llama_index.core.llms import (
    ChatMessage,
    CompletionResponse,
    CompletionResponseGen,
    CustomLLM,
    LLMMetadata,
    MessageRole,
)
from llama_index.core.llms.callbacks import llm_completion_callback
from llama_index.core.llms.mock import MockFunctionCallingLLM
from llama_index.core.settings import Settings
from llama_index.core.tools import ToolSelection
from pydantic import Field, PrivateAttr

if TYPE_CHECKING:
    import inspect
    from collections.abc import Sequence

    from llama_index.core.callbacks.schema import CBEventType
    from llama_index.core.instrumentation.events import BaseEvent

_FOLLOW_UP = re.compile(r"Follow Up Input:\s*(.*?)\s*Standalone question:", re.S)
_USER_LINE = re.compile(r"^\s*user:\s*(.+)$", re.M)
_ELLIPTIC = re.compile(r"^\s*(and\b|what about\b|how about\b)", re.I)


class RecordingLLM(CustomLLM):
    """A completion model that keeps every prompt and answers with ``answer`` (with
    ``echo=True``, with the prompt itself, so the answer repeats whatever context it was given).

    Asked to condense a conversation (LlamaIndex's condense prompt), it rephrases like a
    careful model: an elliptical follow-up ("And for the SOW?") is joined to the caller's
    previous question; any other follow-up is returned as it stands.
    """

    answer: str = "Answered from the context."
    echo: bool = False
    prompts: list[str] = Field(default_factory=list)
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    @property
    def metadata(self) -> LLMMetadata:
        """A small stand-in model."""
        return LLMMetadata(model_name="recording")

    @llm_completion_callback()
    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        """Record ``prompt``; answer it (or condense it)."""
        with self._lock:
            self.prompts.append(prompt)
        condensed = _condensed(prompt)
        if condensed is not None:
            return CompletionResponse(text=condensed)
        return CompletionResponse(text=prompt if self.echo else self.answer)

    @llm_completion_callback()
    def stream_complete(
        self, prompt: str, formatted: bool = False, **kwargs: Any
    ) -> CompletionResponseGen:
        """Streaming twin of :meth:`complete` (one token)."""
        text = self.complete(prompt, formatted=formatted).text

        def gen() -> CompletionResponseGen:
            yield CompletionResponse(text=text, delta=text)

        return gen()


def _condensed(prompt: str) -> str | None:
    match = _FOLLOW_UP.search(prompt)
    if match is None:
        return None
    follow_up = match.group(1).strip()
    earlier = _USER_LINE.findall(prompt[: match.start()])
    if earlier and _ELLIPTIC.match(follow_up):
        return f"{earlier[-1].strip()} {follow_up}"
    return follow_up


class ToolCallingLLM(MockFunctionCallingLLM):
    """A function-calling stand-in for agents: it calls the first tool once with the user's
    message as ``input``, then answers with the tool's output verbatim. ``prompts`` keeps the
    text of every message it was sent."""

    prompts: list[str] = Field(default_factory=list)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(response_generator=self._respond, is_chat_model=True, **kwargs)

    def _respond(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatMessage:
        self.prompts.extend(str(m.content or "") for m in messages)
        results = [m for m in messages if m.role == MessageRole.TOOL]
        if results:
            return ChatMessage(role=MessageRole.ASSISTANT, content=str(results[-1].content))
        tools = kwargs.get("tools") or []
        question = next(
            (str(m.content) for m in reversed(messages) if m.role == MessageRole.USER), ""
        )
        if not tools:
            return ChatMessage(role=MessageRole.ASSISTANT, content="No tools available.")
        call = ToolSelection(
            tool_id=f"call-{len(self.prompts)}",
            tool_name=tools[0].metadata.name or "",
            tool_kwargs={"input": question},
        )
        return ChatMessage(
            role=MessageRole.ASSISTANT, content="", additional_kwargs={"tool_calls": [call]}
        )


class _Events(BaseEventHandler):
    texts: list[str] = Field(default_factory=list)

    @classmethod
    def class_name(cls) -> str:
        return "RecordingEvents"

    def handle(self, event: BaseEvent, **kwargs: Any) -> None:
        self.texts.append(repr(event))


class _Spans(BaseSpanHandler[SimpleSpan]):
    texts: list[str] = Field(default_factory=list)

    @classmethod
    def class_name(cls) -> str:
        return "RecordingSpans"

    def new_span(
        self,
        id_: str,
        bound_args: inspect.BoundArguments,
        instance: Any | None = None,
        parent_span_id: str | None = None,
        tags: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> SimpleSpan:
        self.texts.append(f"{id_} {bound_args.arguments!r}")
        return SimpleSpan(id_=id_, parent_id=parent_span_id, tags=tags or {})

    def prepare_to_exit_span(
        self,
        id_: str,
        bound_args: inspect.BoundArguments,
        instance: Any | None = None,
        result: Any | None = None,
        **kwargs: Any,
    ) -> SimpleSpan | None:
        self.texts.append(f"{id_} -> {result!r}")
        return self.open_spans.get(id_)

    def prepare_to_drop_span(
        self,
        id_: str,
        bound_args: inspect.BoundArguments,
        instance: Any | None = None,
        err: BaseException | None = None,
        **kwargs: Any,
    ) -> SimpleSpan | None:
        self.texts.append(f"{id_} dropped {err!r}")
        return self.open_spans.get(id_)


class CallbackRecorder(BaseCallbackHandler):
    """A legacy callback handler that keeps every event's type and payload ``repr`` in ``texts``
    (for a component's own ``CallbackManager([CallbackRecorder()])``).

    Example:
        ```python
        own = CallbackRecorder()
        retriever = VectorIndexRetriever(index, callback_manager=CallbackManager([own]))
        ```
    """

    def __init__(self) -> None:
        super().__init__(event_starts_to_ignore=[], event_ends_to_ignore=[])
        self.texts: list[str] = []

    def on_event_start(
        self,
        event_type: CBEventType,
        payload: dict[str, Any] | None = None,
        event_id: str = "",
        parent_id: str = "",
        **kwargs: Any,
    ) -> str:
        self.texts.append(f"{event_type} start {payload!r}")
        return event_id

    def on_event_end(
        self,
        event_type: CBEventType,
        payload: dict[str, Any] | None = None,
        event_id: str = "",
        **kwargs: Any,
    ) -> None:
        self.texts.append(f"{event_type} end {payload!r}")

    def start_trace(self, trace_id: str | None = None) -> None:
        """Traces need no bookkeeping here."""

    def end_trace(
        self, trace_id: str | None = None, trace_map: dict[str, list[str]] | None = None
    ) -> None:
        """Traces need no bookkeeping here."""


class InstrumentationRecorder:
    """While active, keeps the ``repr`` of every instrumentation event, every span's arguments
    and result, and every legacy callback payload (``Settings.callback_manager``) in ``texts``:
    what any handler an app registers could see."""

    def __init__(self) -> None:
        self._events = _Events()
        self._spans = _Spans()
        self._callbacks = CallbackRecorder()

    @property
    def texts(self) -> list[str]:
        """Everything recorded so far."""
        return [*self._events.texts, *self._spans.texts, *self._callbacks.texts]

    def clear(self) -> None:
        """Forget what was recorded."""
        self._events.texts.clear()
        self._spans.texts.clear()
        self._callbacks.texts.clear()

    def __enter__(self) -> InstrumentationRecorder:
        root = get_dispatcher()
        root.add_event_handler(self._events)
        root.add_span_handler(self._spans)
        Settings.callback_manager.add_handler(self._callbacks)
        return self

    def __exit__(self, *exc_info: object) -> None:
        root = get_dispatcher()
        root.event_handlers.remove(self._events)
        root.span_handlers.remove(self._spans)
        Settings.callback_manager.remove_handler(self._callbacks)
