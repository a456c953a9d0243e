"""Offline stand-ins for trying a guarded chain or agent without a model server, and recorders
that keep everything a LangChain app could see (model input, callback payloads, traced runs)."""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING, Any

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.language_models.chat_models import BaseChatModel, SimpleChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tracers.base import BaseTracer
from pydantic import Field
from typing_extensions import override

from rag_guard_integrations.langchain.walk import walk

if TYPE_CHECKING:
    from collections.abc import Sequence

    from langchain_core.runnables import Runnable
    from langchain_core.tracers.schemas import Run


class EchoContextChat(SimpleChatModel):
    """A chat model that answers with the context its system prompt carries.

    It shows exactly what a guard let through: with the prompt of
    :func:`rag_guard_integrations.langchain.chain.build_rag_chain`, its answer is the retrieved
    context.

    Example:
        >>> chain = build_rag_chain(guarded_retriever, EchoContextChat())  # doctest: +SKIP
    """

    def _call(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> str:
        return _context_of(messages)

    @property
    def _llm_type(self) -> str:
        return "echo-context"


class ToolCallingChat(BaseChatModel):
    """A tool-calling stand-in model that keeps every message list it is sent (``received``).

    With tools bound and no tool result yet, it calls every bound tool at once with the
    user's last question as ``query``; once tools answered, it answers with the last tool
    result's content; without tools it answers with the context of a RAG prompt (as
    :class:`EchoContextChat`). Copies made by ``bind_tools`` share ``received``.

    Example:
        >>> from langchain.agents import create_agent  # doctest: +SKIP
        >>> model = ToolCallingChat()
        >>> agent = create_agent(model, [tool])  # doctest: +SKIP
        >>> agent.invoke({"messages": [("user", "What is the notice period?")]})  # doctest: +SKIP
        >>> model.received[-1][-1].type  # doctest: +SKIP
        'tool'
    """

    received: list[list[BaseMessage]] = Field(default_factory=list)
    tool_names: tuple[str, ...] = ()

    @override
    def bind_tools(
        self, tools: Sequence[Any], *, tool_choice: str | None = None, **kwargs: Any
    ) -> Runnable[Any, AIMessage]:
        names = tuple(
            str(getattr(t, "name", None) or (t.get("name") if isinstance(t, dict) else ""))
            for t in tools
        )
        return self.model_copy(update={"tool_names": names, "received": self.received})

    @override
    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> ChatResult:
        self.received.append(list(messages))
        tool_results = [m for m in messages if isinstance(m, ToolMessage)]
        if tool_results:
            reply = AIMessage(str(tool_results[-1].content))
        elif self.tool_names:
            question = next(
                (str(m.content) for m in reversed(messages) if isinstance(m, HumanMessage)), ""
            )
            calls = [
                {"name": name, "args": {"query": question}, "id": f"call_{uuid.uuid4().hex[:8]}"}
                for name in self.tool_names
            ]
            reply = AIMessage("", tool_calls=calls)
        else:
            reply = AIMessage(_context_of(messages))
        return ChatResult(generations=[ChatGeneration(message=reply)])

    @property
    def _llm_type(self) -> str:
        return "tool-calling-stand-in"


class RecordingHandler(BaseCallbackHandler):
    """A callback handler that keeps the text of every payload it is handed (``payloads``).

    Example:
        >>> handler = RecordingHandler()
        >>> chain.invoke(question, config={"callbacks": [handler]})  # doctest: +SKIP
        >>> any("on_retriever_end" in p for p in handler.payloads)  # doctest: +SKIP
    """

    def __init__(self) -> None:
        self.payloads: list[str] = []

    def _keep(self, event: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        self.payloads.append(f"{event} {payload_text([args, kwargs])}")

    def on_llm_start(self, *args: Any, **kwargs: Any) -> None:
        self._keep("on_llm_start", args, kwargs)

    def on_chat_model_start(self, *args: Any, **kwargs: Any) -> None:
        self._keep("on_chat_model_start", args, kwargs)

    def on_llm_new_token(self, *args: Any, **kwargs: Any) -> None:
        self._keep("on_llm_new_token", args, kwargs)

    def on_llm_end(self, *args: Any, **kwargs: Any) -> None:
        self._keep("on_llm_end", args, kwargs)

    def on_chain_start(self, *args: Any, **kwargs: Any) -> None:
        self._keep("on_chain_start", args, kwargs)

    def on_chain_end(self, *args: Any, **kwargs: Any) -> None:
        self._keep("on_chain_end", args, kwargs)

    def on_tool_start(self, *args: Any, **kwargs: Any) -> None:
        self._keep("on_tool_start", args, kwargs)

    def on_tool_end(self, *args: Any, **kwargs: Any) -> None:
        self._keep("on_tool_end", args, kwargs)

    def on_retriever_start(self, *args: Any, **kwargs: Any) -> None:
        self._keep("on_retriever_start", args, kwargs)

    def on_retriever_end(self, *args: Any, **kwargs: Any) -> None:
        self._keep("on_retriever_end", args, kwargs)

    def on_custom_event(self, *args: Any, **kwargs: Any) -> None:
        self._keep("on_custom_event", args, kwargs)

    def on_text(self, *args: Any, **kwargs: Any) -> None:
        self._keep("on_text", args, kwargs)

    def on_agent_action(self, *args: Any, **kwargs: Any) -> None:
        self._keep("on_agent_action", args, kwargs)

    def on_agent_finish(self, *args: Any, **kwargs: Any) -> None:
        self._keep("on_agent_finish", args, kwargs)


class RecordingTracer(BaseTracer):
    """A tracer that keeps every run it finishes (``runs``), as LangSmith would receive them.

    Example:
        >>> tracer = RecordingTracer()
        >>> retriever.invoke(question, config={"callbacks": [tracer]})  # doctest: +SKIP
        >>> tracer.named("rag_guard.check")[0].outputs["audit"]["chunks"]  # doctest: +SKIP
    """

    def __init__(self) -> None:
        super().__init__()
        self.runs: list[Run] = []

    @override
    def _end_trace(self, run: Run) -> None:
        self.runs.append(run)
        super()._end_trace(run)

    def _persist_run(self, run: Run) -> None:
        """Runs are kept as they end, children included."""

    def texts(self) -> list[str]:
        """Each run's name, inputs, outputs, events, metadata and error as text."""
        return [
            f"{r.name} {payload_text([r.inputs, r.outputs, r.events, r.extra, r.error])}"
            for r in self.runs
        ]

    def named(self, name: str) -> list[Run]:
        """The recorded runs called ``name``."""
        return [r for r in self.runs if r.name == name]


def payload_text(value: Any) -> str:
    """Every string inside ``value``, one per line, as far as a consumer could read it
    (:func:`~rag_guard_integrations.langchain.walk.walk`: mappings, sequences, pydantic models
    such as Documents and messages, dataclasses, slotted objects); any other object by its
    ``repr``.

    A faster stand-in for ``repr`` of callback payloads that also sees what a ``repr`` hides:
    LangChain objects' ``repr`` compares every field with its default, which costs more than
    the request being recorded, and an object's own ``repr`` may show less than it holds.
    """
    found = [
        item if isinstance(item, str) else repr(item)
        for item, entered in walk(value)
        if isinstance(item, str) or not (entered or item is None or isinstance(item, _QUIET))
    ]
    return "\n".join(found)


_QUIET = (bool, int, float, bytes, uuid.UUID)


def _context_of(messages: Sequence[BaseMessage]) -> str:
    system = str(messages[0].content) if messages else ""
    return system.split("Context:\n", 1)[-1]
