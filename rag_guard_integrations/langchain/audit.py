"""What the LangChain adapters share: picking the caller's own Documents, the audit record, its
``rag_guard_result`` callback event and log line, and the reject-or-return decision."""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING, Any

from langchain_core.callbacks import (
    BaseCallbackManager,
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

EVENT_NAME = "rag_guard_result"
logger = logging.getLogger("rag_guard_integrations")


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


def _with_text(document: Document, text: str) -> Document:
    """A copy of ``document`` holding the masked ``text`` (the caller's object is untouched)."""
    return document.model_copy(update={"page_content": text, "metadata": dict(document.metadata)})


def _unheard(callbacks: Callbacks) -> bool:
    # A run's own manager with no handler: skip building a config nobody would read.
    return isinstance(callbacks, BaseCallbackManager) and not callbacks.handlers


def _config(callbacks: Callbacks) -> RunnableConfig:
    return ensure_config({"callbacks": callbacks} if callbacks is not None else None)
