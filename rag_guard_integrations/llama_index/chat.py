"""Guarded chat engines: ``condense_plus_context`` and ``context`` chat over a GuardedRetriever,
with one conversation memory per caller (a principal; none without one) and the refusal as the
answer when nothing passes."""

from __future__ import annotations

import inspect
import logging
import threading
from collections import OrderedDict
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, Literal

from llama_index.core.chat_engine import CondensePlusContextChatEngine, ContextChatEngine
from llama_index.core.chat_engine.types import BaseChatEngine
from llama_index.core.indices.base import BaseIndex
from llama_index.core.llms import MessageRole
from llama_index.core.memory import ChatMemoryBuffer
from llama_index.core.schema import QueryBundle
from llama_index.core.settings import Settings

from rag_guard_integrations.adapters.drive import arun, run
from rag_guard_integrations.adapters.plan import fetches, plan
from rag_guard_integrations.adapters.recheck import fresh, notes_of, noting_source, withdrawn
from rag_guard_integrations.core.access import AccessContext
from rag_guard_integrations.core.errors import AdapterConfigError
from rag_guard_integrations.engine.guard import Guard, as_guard
from rag_guard_integrations.llama_index.fields import refuse_unknown, require_source
from rag_guard_integrations.llama_index.query_engine import postprocessed
from rag_guard_integrations.llama_index.refusal import RefusalSynthesizer
from rag_guard_integrations.llama_index.retriever import GuardedRetriever

if TYPE_CHECKING:
    from collections.abc import Callable

    from llama_index.core.base.base_retriever import BaseRetriever
    from llama_index.core.chat_engine.types import (
        AGENT_CHAT_RESPONSE_TYPE,
        StreamingAgentChatResponse,
    )
    from llama_index.core.llms import LLM, ChatMessage
    from llama_index.core.postprocessor.types import BaseNodePostprocessor
    from llama_index.core.schema import NodeWithScore

    from rag_guard_integrations.adapters.drive import Flow
    from rag_guard_integrations.llama_index.check import GuardedNodes

logger = logging.getLogger(__name__)

ChatMode = Literal["condense_plus_context", "context"]

# The guard's verdict on this turn's retrieval, from the engine's node step to its synthesizer
# step (both run in the caller's thread or task, one after the other).
_TURN: ContextVar[GuardedNodes | None] = ContextVar("rag_guard_chat_turn", default=None)

# How many earlier user turns a ``context`` follow-up may borrow its clause intent from.
RECENT_TURNS = 3


class _GuardedTurns:
    """What both guarded engine kinds share: guarded nodes, and the refusal as the answer;
    the nodes its conversation has shown, to be judged again (:func:`withdrawn`)."""

    _guarded: GuardedRetriever
    _after_guard: list[BaseNodePostprocessor]
    shown: list[dict[str, Any]]  # notes of what the conversation showed (adapters.recheck)

    def _guard_query(self, message: str) -> str:
        return message

    def _get_nodes(self, message: str) -> list[NodeWithScore]:
        return self._kept_for_the_turn(run(self._checking(message)))

    async def _aget_nodes(self, message: str) -> list[NodeWithScore]:
        return self._kept_for_the_turn(await arun(self._checking(message)))

    def reset(self) -> None:
        super().reset()  # type: ignore[misc]
        self.shown = []

    def _kept_for_the_turn(self, checked: GuardedNodes) -> list[NodeWithScore]:
        """The nodes that go on, noted as shown; the check is kept for this turn's
        synthesizer choice."""
        _TURN.set(checked)
        self.shown.extend(fresh(notes_of(self._guarded.guard, checked.result), self.shown))
        return checked.nodes

    def _checking(self, message: str) -> Flow[GuardedNodes]:
        return postprocessed(self._guarded, self._after_guard, self._bundle(message))

    def _bundle(self, message: str) -> QueryBundle:
        return QueryBundle(self._guard_query(message))

    def _get_response_synthesizer(
        self, chat_history: list[ChatMessage], streaming: bool = False
    ) -> Any:
        checked = _TURN.get()
        _TURN.set(None)
        if checked is not None and checked.refusal is not None:
            return RefusalSynthesizer(checked.refusal, streaming)
        return super()._get_response_synthesizer(chat_history, streaming)  # type: ignore[misc]


class _CondensePlusContext(_GuardedTurns, CondensePlusContextChatEngine):
    """Condenses the conversation into a standalone question; the guard judges that question."""


class _Context(_GuardedTurns, ContextChatEngine):
    """Retrieves with the message; a follow-up that names no clause borrows the intent of the
    caller's recent turns ("And for the SOW?" after a question on termination notice)."""

    def _guard_query(self, message: str) -> str:
        guard, access = self._guarded.guard, self._guarded.request_access()
        if fetches(plan(guard, message, access)):
            return message
        earlier = [
            str(m.content)
            for m in self._memory.get_all()
            if m.role == MessageRole.USER and m.content
        ]
        for turn in reversed(earlier[-RECENT_TURNS:]):
            candidate = f"{turn} {message}"
            if fetches(plan(guard, candidate, access)):
                return candidate
        return message


_ENGINES: dict[str, type[_GuardedTurns]] = {
    "condense_plus_context": _CondensePlusContext,
    "context": _Context,
}


class GuardedChatEngine(BaseChatEngine):
    """A chat engine that keeps one conversation per caller and guards every turn.

    A caller is their ``AccessContext`` (from ``guard_access(...)`` or the default ``access``)
    with a principal (not blank): each gets an engine and memory of their own, so no caller's
    clause or answer reaches another caller's prompt. A caller without a principal cannot be
    told apart from another with the same allowlists, so each of their turns runs on a fresh
    memory (the history they pass with ``chat(..., chat_history=...)``, else none) and a
    warning is logged once. Build it with :func:`guarded_chat_engine`. ``reset()`` and
    ``chat_history`` act on the current caller's conversation. At most ``max_conversations``
    are kept; the least recently used one is dropped first.

    Example:
        ```python
        chat = guarded_chat_engine(index, "contracts", llm=llm)
        with guard_access({"principal": "alice", "contract_type": ["MSA"]}):
            chat.chat("What is the termination notice period?")
            chat.chat("And what exactly does it say?")   # alice's memory
        ```
    """

    def __init__(
        self,
        build: Callable[[], BaseChatEngine],
        retriever: GuardedRetriever,
        max_conversations: int = 1024,
    ) -> None:
        self._build = build
        self._retriever = retriever
        self._max = max_conversations
        self._engines: OrderedDict[AccessContext, BaseChatEngine] = OrderedDict()
        self._lock = threading.Lock()
        self._warned = False

    def engine(self) -> BaseChatEngine:
        """The current caller's own engine (built on their first turn); a fresh one, with no
        memory, for a caller without a principal."""
        key = self._retriever.request_access()
        if key is None or not (key.principal or "").strip():
            self._warn_anonymous()
            return self._build()
        with self._lock:
            engine = self._engines.get(key)
        # Judged outside the lock: a slow source holds up this caller only.
        stale = engine is not None and _forgotten(self._retriever.guard, engine, key)
        with self._lock:
            current = self._engines.get(key)
            if current is None or (stale and current is engine):
                current = self._engines[key] = self._build()
                while len(self._engines) > self._max:
                    self._engines.popitem(last=False)
            else:
                self._engines.move_to_end(key)
            return current

    def _warn_anonymous(self) -> None:
        with self._lock:
            warned, self._warned = self._warned, True
        if not warned:
            logger.warning(
                "guarded_chat_engine: a caller without a principal chats without conversation "
                "memory, since callers with the same access would share it; give each caller "
                "a principal (guard_access({'principal': user_id, ...})) or pass chat_history= "
                "per call"
            )

    def chat(
        self, message: str, chat_history: list[ChatMessage] | None = None
    ) -> AGENT_CHAT_RESPONSE_TYPE:
        """One guarded turn of the current caller's conversation."""
        return self.engine().chat(message, chat_history)

    def stream_chat(
        self, message: str, chat_history: list[ChatMessage] | None = None
    ) -> StreamingAgentChatResponse:
        """Streaming twin of :meth:`chat` (a refusal streams as one token)."""
        return self.engine().stream_chat(message, chat_history)

    async def achat(
        self, message: str, chat_history: list[ChatMessage] | None = None
    ) -> AGENT_CHAT_RESPONSE_TYPE:
        """Async twin of :meth:`chat`."""
        return await self.engine().achat(message, chat_history)

    async def astream_chat(
        self, message: str, chat_history: list[ChatMessage] | None = None
    ) -> StreamingAgentChatResponse:
        """Async streaming twin of :meth:`chat`."""
        return await self.engine().astream_chat(message, chat_history)

    def reset(self) -> None:
        """Forget the current caller's conversation."""
        self.engine().reset()

    @property
    def chat_history(self) -> list[ChatMessage]:
        """The current caller's conversation."""
        return self.engine().chat_history


def _forgotten(guard: Guard, engine: BaseChatEngine, access: AccessContext) -> bool:
    """Whether ``engine``'s conversation must be forgotten before ``access`` goes on with it:
    its access source denies now a node it showed, or cannot judge one (fail closed, the
    conversation is not read), saying which in a WARNING."""
    source, shown = noting_source(guard), engine.shown  # type: ignore[attr-defined]
    found = withdrawn(source, shown, access) if source is not None and shown else None
    if not found:
        return False
    logger.warning(
        "guarded_chat_engine: a conversation was forgotten: %s",
        "its access source failed to judge again what it showed (fail closed)"
        if found.failed
        else "the access source no longer grants its caller what it showed them",
    )
    return True


def guarded_chat_engine(
    index_or_retriever: BaseIndex[Any] | BaseRetriever,
    guard: Guard | Any,
    chat_mode: ChatMode = "condense_plus_context",
    *,
    llm: LLM | None = None,
    access: AccessContext | Any = None,
    pin_access: bool = False,
    fetch_k: int | None = None,
    node_postprocessors: list[BaseNodePostprocessor] | None = None,
    similarity_top_k: int | None = None,
    **kwargs: Any,
) -> GuardedChatEngine:
    """A guarded chat engine over an index (``index.as_retriever()``) or a retriever.

    ``chat_mode`` is ``"condense_plus_context"`` (the guard judges the condensed standalone
    question) or ``"context"`` (the message; a follow-up naming no clause takes the intent of
    the caller's recent turns). When the guard leaves nothing, or rejects the query, the answer
    is the refusal and no LLM writes it. ``node_postprocessors`` run after the guard, silenced,
    and the guard judges each one's result again. Memory is per principal: a caller without
    one gets none (see :class:`GuardedChatEngine`). ``guard`` is a Guard or policy references;
    with ``pin_access=True`` a ``guard_access`` block only narrows ``access``. Other
    ``kwargs`` (``system_prompt``, ``context_prompt``, ...) go to the LlamaIndex engine's
    ``from_defaults``; ``memory`` and ``chat_history`` are refused, since a memory passed in
    would be shared by every caller. Given a ``GuardedRetriever``, its own guard, ``access``,
    ``pin_access`` and ``fetch_k`` decide: a different ``guard``, an ``access`` or ``fetch_k``
    other than its own, or ``pin_access=True`` on one that does not pin, is refused rather
    than ignored (pass the plain inner retriever to set them here).

    Example:
        ```python
        chat = guarded_chat_engine(index, Guard.from_policy("contracts"), llm=llm)
        with guard_access({"principal": "alice", "contract_type": ["MSA"]}):
            print(chat.chat("What is the termination notice period?"))
        ```
    """
    engine_class = _ENGINES.get(chat_mode)
    if engine_class is None:
        raise AdapterConfigError(
            f"chat_mode {chat_mode!r} is not supported; use 'condense_plus_context' or 'context'"
        )
    for shared in ("memory", "chat_history"):
        if shared in kwargs:
            raise AdapterConfigError(
                f"guarded_chat_engine does not take {shared}=: each access context gets a "
                "memory of its own; pass the history per call to chat(..., chat_history=...)"
            )
    known = set(inspect.signature(engine_class.from_defaults).parameters) - {"kwargs", "cls"}  # type: ignore[attr-defined]
    refuse_unknown("guarded_chat_engine", kwargs, known - {"memory", "chat_history", "retriever"})
    retriever = _retriever(index_or_retriever, similarity_top_k)
    if isinstance(retriever, GuardedRetriever):
        _same_settings(retriever, guard, access, fetch_k)
        if pin_access and not retriever.pin_access:
            raise AdapterConfigError(
                "pin_access=True, but the given GuardedRetriever does not pin its access; "
                "build it with pin_access=True, or pass the plain inner retriever"
            )
        guarded = retriever
    else:
        guard = as_guard(guard, "guarded_chat_engine")
        guarded = GuardedRetriever(retriever, guard, access, pin_access=pin_access, fetch_k=fetch_k)
    after_guard = list(node_postprocessors or [])

    def build() -> BaseChatEngine:
        # An in-process memory per conversation: LlamaIndex's default one opens an SQLite
        # connection thread that outlives a sync turn's event loop (tracebacks at exit).
        window = (llm or Settings.llm).metadata.context_window
        memory = ChatMemoryBuffer.from_defaults(token_limit=window - 256)
        engine = engine_class.from_defaults(  # type: ignore[attr-defined]
            retriever=guarded, llm=llm, memory=memory, **kwargs
        )
        engine._guarded = guarded
        engine._after_guard = after_guard
        engine.shown = []
        return engine  # type: ignore[no-any-return]

    return GuardedChatEngine(build, guarded)


def _same_settings(
    guarded: GuardedRetriever, guard: object, access: AccessContext | Any, fetch_k: int | None
) -> None:
    """Refuse a ``guard``, ``access`` or ``fetch_k`` that a given GuardedRetriever would ignore
    (a guard given as policy references must make the same policy)."""
    fix = "pass the plain inner retriever, or leave it out to use the GuardedRetriever's own"
    same = guard is guarded.guard or (
        not isinstance(guard, Guard)
        and as_guard(guard, "guarded_chat_engine").policy == guarded.guard.policy
    )
    if not same:
        raise AdapterConfigError(
            "guard differs from the given GuardedRetriever's guard; pass that same guard, or "
            "the plain inner retriever to guard it with this one"
        )
    if access is not None and AccessContext.coerce(access) != guarded.access:
        raise AdapterConfigError(
            f"access={access!r} differs from the given GuardedRetriever's access; {fix}"
        )
    if fetch_k is not None and fetch_k != guarded.fetch_k:
        raise AdapterConfigError(
            f"fetch_k={fetch_k!r} differs from the given GuardedRetriever's fetch_k "
            f"({guarded.fetch_k!r}); {fix}"
        )


def _retriever(source: object, top_k: int | None) -> BaseRetriever:
    found = require_source(source, "guarded_chat_engine")
    if isinstance(found, BaseIndex):
        return found.as_retriever(**({} if top_k is None else {"similarity_top_k": top_k}))
    if top_k is not None:
        raise AdapterConfigError(
            "similarity_top_k applies to an index; set it on the retriever you pass"
        )
    return found
