"""What the LangChain adapters share around a check: the ``rag_guard.check`` child run whose
outputs are the decision summary, the ``rag_guard_result`` custom event and log line, picking
the caller's own Documents, and the reject-or-return decision. None of them carries chunk text."""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING, Any

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

from rag_guard_integrations.core.errors import QueryRejected

if TYPE_CHECKING:
    from collections.abc import Sequence

    from langchain_core.callbacks import Callbacks
    from langchain_core.documents import Document
    from langchain_core.runnables import RunnableConfig

    from rag_guard_integrations.core.access import AccessContext
    from rag_guard_integrations.core.decisions import GuardResult
    from rag_guard_integrations.engine.guard import Guard

EVENT_NAME = "rag_guard_result"
CHECK_RUN = "rag_guard.check"
logger = logging.getLogger("rag_guard_integrations")


def checked(
    guard: Guard,
    query: str,
    documents: Sequence[Document],
    access: AccessContext | None,
    callbacks: Callbacks,
    *,
    limit: int | None = None,
    **extra: Any,
) -> tuple[GuardResult, list[Document]]:
    """Check ``documents`` as the ``rag_guard.check`` child run of ``callbacks``; the result and
    the caller's own Documents that passed (at most ``limit``), after the event and log line."""
    manager = _sync_manager(callbacks)
    run = (
        manager.on_chain_start(None, _inputs(query, documents), name=CHECK_RUN) if manager else None
    )
    try:
        result = guard.check(query, documents, access)
    except BaseException as error:
        if run is not None:
            run.on_chain_error(error)
        raise
    kept, record = conclude(result, documents, access, limit=limit, **extra)
    if run is not None:
        run.on_chain_end(decision_outputs(result, record))
    emit(record, callbacks)
    return result, kept


async def achecked(
    guard: Guard,
    query: str,
    documents: Sequence[Document],
    access: AccessContext | None,
    callbacks: Callbacks,
    *,
    limit: int | None = None,
    **extra: Any,
) -> tuple[GuardResult, list[Document]]:
    """Async twin of :func:`checked`."""
    manager = _async_manager(callbacks)
    inputs = _inputs(query, documents)
    run = await manager.on_chain_start(None, inputs, name=CHECK_RUN) if manager else None
    try:
        result = await guard.acheck(query, documents, access)
    except BaseException as error:
        if run is not None:
            await run.on_chain_error(error)
        raise
    kept, record = conclude(result, documents, access, limit=limit, **extra)
    if run is not None:
        await run.on_chain_end(decision_outputs(result, record))
    await aemit(record, callbacks)
    return result, kept


def conclude(
    result: GuardResult,
    documents: Sequence[Document],
    access: AccessContext | None,
    *,
    limit: int | None = None,
    **extra: Any,
) -> tuple[list[Document], dict[str, Any]]:
    """The caller's own Document objects that passed (at most ``limit``) and the audit record.

    The record is ``result.summary()`` plus ``fetched``, ``dropped`` (denied by the guard) and
    ``returned`` counts; it never holds chunk text. It is logged at INFO here.
    """
    masked = result.redacted
    kept = [
        _with_text(documents[i], masked[i]) if i in masked else documents[i]
        for i in result.allowed_indices
    ]
    returned = kept if limit is None else kept[:limit]
    record = {
        **result.summary(),
        "fetched": len(documents),
        "dropped": len(documents) - len(kept),
        "returned": len(returned),
        "principal": access.principal if access is not None else None,
        **extra,
    }
    if logger.isEnabledFor(logging.INFO):
        logger.info("%s %s", EVENT_NAME, json.dumps(record, sort_keys=True, default=str))
    return returned, record


def decision_outputs(result: GuardResult, record: dict[str, Any]) -> dict[str, Any]:
    """The outputs of the ``rag_guard.check`` run: the record plus the audit record v1
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


def reject_if_asked(result: GuardResult, raise_on_reject: bool) -> None:
    """Raise :class:`QueryRejected` when the domain guard refused the query and the caller asked."""
    if raise_on_reject and not result.query.allowed:
        raise QueryRejected(result.query)


def _inputs(query: str, documents: Sequence[Document]) -> dict[str, Any]:
    return {"query": query, "candidates": len(documents)}


def _sync_manager(callbacks: Callbacks) -> CallbackManager | None:
    if _unheard(callbacks):
        return None
    manager = callbacks if isinstance(callbacks, CallbackManager) else None
    if manager is None:
        manager = get_callback_manager_for_config(_config(callbacks))
    return manager if manager.handlers else None


def _async_manager(callbacks: Callbacks) -> AsyncCallbackManager | None:
    if _unheard(callbacks):
        return None
    manager = callbacks if isinstance(callbacks, AsyncCallbackManager) else None
    if manager is None:
        manager = get_async_callback_manager_for_config(_config(callbacks))
    return manager if manager.handlers else None


def _with_text(document: Document, text: str) -> Document:
    """A copy of ``document`` holding the masked ``text`` (the caller's object is untouched)."""
    return document.model_copy(update={"page_content": text, "metadata": dict(document.metadata)})


def _unheard(callbacks: Callbacks) -> bool:
    # A run's own manager with no handler: skip building a config nobody would read.
    return isinstance(callbacks, BaseCallbackManager) and not callbacks.handlers


def _config(callbacks: Callbacks) -> RunnableConfig:
    return ensure_config({"callbacks": callbacks} if callbacks is not None else None)
