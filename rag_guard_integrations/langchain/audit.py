"""What the LangChain adapters share around a check: the ``rag_guard.check`` child run whose
outputs are the decision summary, the ``rag_guard_result`` custom event and log line, picking
the caller's own Documents, and the reject-or-return decision. None of them carries chunk text."""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
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

from rag_guard_integrations.adapters.listen import hear
from rag_guard_integrations.adapters.records import withheld_whole, without_text
from rag_guard_integrations.core.chunk import Chunk
from rag_guard_integrations.core.errors import ContextBlocked, QueryRejected
from rag_guard_integrations.core.reasons import Reason
from rag_guard_integrations.engine.audit import publish

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping, Sequence

    from langchain_core.callbacks import Callbacks
    from langchain_core.documents import Document
    from langchain_core.runnables import RunnableConfig

    from rag_guard_integrations.core.access import AccessContext
    from rag_guard_integrations.core.decisions import GuardResult
    from rag_guard_integrations.engine.guard import Guard

EVENT_NAME = "rag_guard_result"
CHECK_RUN = "rag_guard.check"
TOOL_STAGE = "tool_result"
logger = logging.getLogger("rag_guard_integrations")
_M = TypeVar("_M", bound=BaseCallbackManager)


@dataclass(frozen=True, slots=True)
class CheckCall:
    """One check an adapter asks for: whose Documents, under which access, how many to return
    (``limit``), the extra counts its audit record carries (``audit``) and the metadata keys a
    document prompt rendered into the text (``rendered``)."""

    guard: Guard
    query: str
    documents: Sequence[Document]
    access: AccessContext | None
    limit: int | None = None
    audit: Mapping[str, Any] = field(default_factory=dict)
    rendered: frozenset[str] = frozenset()


def checked(call: CheckCall, callbacks: Callbacks) -> tuple[GuardResult, list[Document]]:
    """Run ``call`` as the ``rag_guard.check`` child run of ``callbacks``; the result and the
    caller's own Documents that passed (at most ``call.limit``), after the event and log line."""
    manager = _manager(callbacks, CallbackManager, get_callback_manager_for_config)
    inputs = _inputs(call)
    run = manager.on_chain_start(None, inputs, name=CHECK_RUN) if manager else None
    blocked = None
    try:
        result = call.guard.check(call.query, call.documents, call.access)
    except ContextBlocked as error:
        blocked = _text_free(error)
    except BaseException as error:
        if run is not None:
            run.on_chain_error(error)
        raise
    if blocked is not None:  # raised here, so the full result is not its __context__ either
        if run is not None:
            run.on_chain_error(blocked)
        raise blocked
    kept, record = conclude(result, call)
    if run is not None:
        run.on_chain_end(decision_outputs(result, record))
    emit(record, callbacks)
    return result, kept


async def achecked(call: CheckCall, callbacks: Callbacks) -> tuple[GuardResult, list[Document]]:
    """Async twin of :func:`checked`."""
    manager = _manager(callbacks, AsyncCallbackManager, get_async_callback_manager_for_config)
    run = await manager.on_chain_start(None, _inputs(call), name=CHECK_RUN) if manager else None
    blocked = None
    try:
        result = await call.guard.acheck(call.query, call.documents, call.access)
    except ContextBlocked as error:
        blocked = _text_free(error)
    except BaseException as error:
        if run is not None:
            await run.on_chain_error(error)
        raise
    if blocked is not None:  # raised here, so the full result is not its __context__ either
        if run is not None:
            await run.on_chain_error(blocked)
        raise blocked
    kept, record = conclude(result, call)
    if run is not None:
        await run.on_chain_end(decision_outputs(result, record))
    await aemit(record, callbacks)
    return result, kept


def conclude(result: GuardResult, call: CheckCall) -> tuple[list[Document], dict[str, Any]]:
    """The caller's own Document objects that passed (at most ``call.limit``) and the audit
    record.

    The record is ``result.summary()`` plus ``fetched``, ``dropped`` (denied by the guard) and
    ``returned`` counts; it never holds chunk text. It is logged at INFO here.
    """
    documents = call.documents
    masked = result.redacted
    kept = [
        with_text(documents[i], masked[i], call.rendered) if i in masked else documents[i]
        for i in result.allowed_indices
    ]
    returned = kept if call.limit is None else kept[: call.limit]
    record = {
        **result.summary(),
        "fetched": len(documents),
        "dropped": len(documents) - len(kept),
        "returned": len(returned),
        "principal": call.access.principal if call.access is not None else None,
        **call.audit,
    }
    if logger.isEnabledFor(logging.INFO):
        logger.info("%s %s", EVENT_NAME, json.dumps(record, sort_keys=True, default=str))
    return returned, record


def decision_outputs(result: GuardResult, record: dict[str, Any]) -> dict[str, Any]:
    """The outputs of the ``rag_guard.check`` run: the record plus the audit record v2
    (``audit``: per chunk its id, content hash, decision, stage, rule and reason; no text)."""
    return {**record, "audit": result.audit()}


def emit(record: dict[str, Any], callbacks: Callbacks) -> None:
    """Send ``record`` as the ``rag_guard_result`` custom event of the surrounding run."""
    if _unheard(callbacks):
        return
    config = _config(callbacks)
    # Outside any run (a compressor called by hand) there is no run to attach the event to,
    # and with no handler nobody would receive it; the log line still carries the record.
    manager = get_callback_manager_for_config(config)
    if manager.parent_run_id is not None and manager.handlers:
        dispatch_custom_event(EVENT_NAME, record, config=config)


async def aemit(record: dict[str, Any], callbacks: Callbacks) -> None:
    """Async twin of :func:`emit`."""
    if _unheard(callbacks):
        return
    config = _config(callbacks)
    manager = get_async_callback_manager_for_config(config)
    if manager.parent_run_id is not None and manager.handlers:
        await adispatch_custom_event(EVENT_NAME, record, config=config)


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


def _text_free(blocked: ContextBlocked) -> ContextBlocked:
    """``blocked`` as it may reach handlers, traces and the caller: its result without text
    (the full one goes to :func:`~rag_guard_integrations.langchain.guard_results`)."""
    hear(blocked.result, ())
    return ContextBlocked(without_text(blocked.result))


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


def with_text(document: Document, text: str, rendered: Iterable[str] = ()) -> Document:
    """A copy of ``document`` holding ``text`` (the caller's object is untouched).

    ``rendered`` names the metadata a document prompt wrote into ``text``: where a mask
    changed such a value (it no longer occurs in ``text`` as the prompt wrote it), the copy's
    value is :data:`MASKED_VALUE`, so the metadata shows nothing the masked text hides.
    """
    metadata = dict(document.metadata)
    for key in rendered:
        if key in metadata and str(metadata[key]) not in text:
            metadata[key] = MASKED_VALUE
    return document.model_copy(update={"page_content": text, "metadata": metadata})


def _unheard(callbacks: Callbacks) -> bool:
    # A run's own manager with no handler: skip building a config nobody would read.
    return isinstance(callbacks, BaseCallbackManager) and not callbacks.handlers


def _config(callbacks: Callbacks) -> RunnableConfig:
    return ensure_config({"callbacks": callbacks} if callbacks is not None else None)
