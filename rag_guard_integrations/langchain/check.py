"""What the LangChain adapters share around a check: the ``rag_guard.check`` child run whose
outputs are the decision summary, the ``rag_guard_result`` custom event and log line, picking
the caller's own Documents, and the reject-or-return decision. None of them carries chunk text."""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any, TypeVar

from langchain_core.callbacks import (
    AsyncCallbackManager,
    BaseCallbackManager,
    CallbackManager,
    adispatch_custom_event,
    dispatch_custom_event,
)
from langchain_core.runnables.config import (
    ensure_config,
    get_async_callback_manager_for_config,
    get_callback_manager_for_config,
)

from rag_guard_integrations.adapters.check import guarded
from rag_guard_integrations.adapters.drive import Call
from rag_guard_integrations.adapters.records import report_record, withheld_whole
from rag_guard_integrations.core.chunk import Chunk
from rag_guard_integrations.core.errors import QueryRejected
from rag_guard_integrations.core.reasons import Reason
from rag_guard_integrations.engine.audit import publish
from rag_guard_integrations.engine.redact import masked_values
from rag_guard_integrations.engine.scrub import scrubbed

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping, Sequence

    from langchain_core.callbacks import (
        Callbacks,
    )
    from langchain_core.documents import Document
    from langchain_core.runnables import RunnableConfig

    from rag_guard_integrations.adapters.drive import Flow
    from rag_guard_integrations.core.access import AccessContext
    from rag_guard_integrations.core.decisions import ChunkDecision, GuardResult
    from rag_guard_integrations.engine.guard import Guard
    from rag_guard_integrations.engine.plan import RequestPlan

EVENT_NAME = "rag_guard_result"
CHECK_RUN = "rag_guard.check"
TOOL_STAGE = "tool_result"
logger = logging.getLogger("rag_guard_integrations")
_M = TypeVar("_M", bound=BaseCallbackManager)


@dataclass(frozen=True, slots=True)
class CheckCall:
    """One check an adapter asks for: whose Documents, under which access, how many to return
    (``limit``), the extra counts its audit record carries (``audit``), the metadata keys a
    document prompt rendered into the text (``rendered``) and the plan the request made
    already (``plan``; else the check plans)."""

    guard: Guard
    query: str
    documents: Sequence[Document]
    access: AccessContext | None
    limit: int | None = None
    audit: Mapping[str, Any] = field(default_factory=dict)
    rendered: frozenset[str] = frozenset()
    plan: RequestPlan | None = None


class _Documents:
    """The conversion of LangChain Documents for the kit: a Document is judged as it comes
    (rendered by the document prompt already, when there is one)."""

    def __init__(self, rendered: frozenset[str]) -> None:
        self.rendered = rendered

    def chunk(self, item: Document, position: int) -> Chunk:
        return Chunk.from_any(item, position=position)

    def hand_on(self, item: Document, masked: ChunkDecision | None) -> Document:
        if masked is None:
            return item
        return with_text(item, masked.chunk.text, self.rendered, masked_values(masked))


def checking(
    call: CheckCall, callbacks: Callbacks, tag: object = None
) -> Flow[tuple[GuardResult, list[Document]]]:
    """The flow of ``call`` as the ``rag_guard.check`` child run of ``callbacks`` (run it with
    the kit's ``run`` or ``arun``): the kit's guarded request, then the run's end, the log line
    and the ``rag_guard_result`` event; the result and the caller's own Documents that passed
    (at most ``call.limit``)."""
    inputs = _inputs(call)

    def start(kind: _Kind) -> Any:
        manager: Any = _manager(callbacks, kind.manager, kind.from_config)
        return manager.on_chain_start(None, inputs, name=CHECK_RUN) if manager else None

    run = yield _in_both(start)
    convert = _Documents(call.rendered)
    try:
        checked = yield from guarded(
            call.guard, call.query, call.access, convert, items=call.documents,
            planned=call.plan, limit=call.limit, tag=tag,
        )  # fmt: skip
    except GeneratorExit:
        raise
    except BaseException as error:  # the kit's ContextBlocked is text-free already
        if run is not None:
            yield Call(partial(run.on_chain_error, error))
        raise
    result = checked.result
    record = report_record(result, len(call.documents), len(checked.items), call.audit)
    if logger.isEnabledFor(logging.INFO):
        logger.info("%s %s", EVENT_NAME, json.dumps(record, sort_keys=True, default=str))
    if run is not None:
        yield Call(partial(run.on_chain_end, decision_outputs(result, record)))
    yield _in_both(partial(emit, record, callbacks))
    return result, checked.items


def decision_outputs(result: GuardResult, record: dict[str, Any]) -> dict[str, Any]:
    """The outputs of the ``rag_guard.check`` run: the record plus the audit record v2
    (``audit``: per chunk its id, content hash, decision, stage, rule and reason; no text)."""
    return {**record, "audit": result.audit()}


def emit(record: dict[str, Any], callbacks: Callbacks, kind: _Kind) -> Any:
    """Send ``record`` as the ``rag_guard_result`` custom event of the surrounding run, with the
    callbacks of ``kind`` (an awaitable for the async kind, None when nobody would hear it)."""
    if _unheard(callbacks):
        return None
    config = _config(callbacks)
    # Outside any run (a compressor called by hand) there is no run to attach the event to,
    # and with no handler nobody would receive it; the log line still carries the record.
    manager = kind.from_config(config)
    if manager.parent_run_id is not None and manager.handlers:
        return kind.dispatch(EVENT_NAME, record, config=config)
    return None


@dataclass(frozen=True, slots=True)
class _Kind:
    """LangChain's callback machinery of one kind: sync, or async (whose calls are awaited)."""

    manager: type[BaseCallbackManager]
    from_config: Callable[[RunnableConfig], Any]
    dispatch: Callable[..., Any]


_SYNC = _Kind(CallbackManager, get_callback_manager_for_config, dispatch_custom_event)
_ASYNC = _Kind(AsyncCallbackManager, get_async_callback_manager_for_config, adispatch_custom_event)


def _in_both(step: Callable[[_Kind], Any]) -> Call[Any]:
    """``step`` as a step of a flow: with the sync callbacks under ``run``, with the async ones
    under ``arun``."""
    return Call(partial(step, _SYNC), partial(step, _ASYNC))


def publish_withheld(
    guard: Guard,
    query: str,
    documents: Sequence[Any],
    access: AccessContext | None,
    reason: str,
    *,
    enforced: bool,
) -> None:
    """Publish the audit record v2 of a result an adapter withheld as a whole (a tool result):
    one ``deny`` decision at stage ``tool_result`` per Document (or Document-shaped mapping)
    it carried, the request
    refused; unenforced (shadow mode), the same decisions marked ``"enforced": false``."""
    chunks = [Chunk.from_any(d) for d in documents]
    why = Reason.fixed(reason)  # the middleware's own sentence, never the tool's output
    publish(
        withheld_whole(
            guard, query, chunks, access, stage=TOOL_STAGE, reason=why, enforced=enforced
        )
    )


def reject_if_asked(result: GuardResult, raise_on_reject: bool) -> None:
    """Raise :class:`QueryRejected` when the domain guard refused the query and the caller asked."""
    if raise_on_reject and not result.query.allowed:
        raise QueryRejected(result.query)


def _inputs(call: CheckCall) -> dict[str, Any]:
    return {"query": call.query, "candidates": len(call.documents)}


def _manager(
    callbacks: Callbacks, kind: type[_M], from_config: Callable[[RunnableConfig], _M]
) -> _M | None:
    """The callback manager ``callbacks`` stands for (sync or async by ``kind``), or None when
    no handler would hear the check."""
    if _unheard(callbacks):
        return None
    manager = callbacks if isinstance(callbacks, kind) else from_config(_config(callbacks))
    return manager if manager.handlers else None


MASKED_VALUE = "[REDACTED]"


def with_text(
    document: Document,
    text: str,
    rendered: Iterable[str] = (),
    masks: Sequence[tuple[str, str]] = (),
) -> Document:
    """A copy of ``document`` holding ``text`` (the caller's object is untouched).

    ``rendered`` names the metadata a document prompt wrote into ``text``: where a mask
    changed such a value (it no longer occurs in ``text`` as the prompt wrote it), the copy's
    value is :data:`MASKED_VALUE`, so the metadata shows nothing the masked text hides.
    ``masks`` (what the text's masks hid, see :func:`~rag_guard_integrations.engine.redact.
    masked_values`) are masked in every other metadata value, key and the id too.
    """
    metadata = scrubbed(dict(document.metadata), masks)
    for key in rendered:
        if key in metadata and str(metadata[key]) not in text:
            metadata[key] = MASKED_VALUE
    update = {"page_content": text, "metadata": metadata}
    if document.id is not None:  # an id may hold the value too: "contact-jo@x.io"
        update["id"] = scrubbed(document.id, masks)
    return document.model_copy(update=update)


def _unheard(callbacks: Callbacks) -> bool:
    # A run's own manager with no handler: skip building a config nobody would read.
    return isinstance(callbacks, BaseCallbackManager) and not callbacks.handlers


def _config(callbacks: Callbacks) -> RunnableConfig:
    return ensure_config({"callbacks": callbacks} if callbacks is not None else None)
