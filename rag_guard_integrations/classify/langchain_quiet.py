"""Running LangChain runnables out of sight of every observer: what the LLM classifier sends
its model is a chunk the guard has not decided on yet, and what a guarded retriever's inner
retriever returns has not been checked yet; neither may reach a callback handler, an event
stream or a tracer.

Passing ``callbacks=None`` does not detach a run: ``ensure_config`` merges the surrounding
run's config from a context variable, and ``CallbackManager.configure`` adds the LangSmith
tracer from the environment (``LANGSMITH_TRACING``), from ``tracing_v2_enabled()`` and from
``langsmith.tracing_context``, plus every registered configure hook: the handler its context
variable holds (``collect_runs``) or, when the hook's environment variable is set, a new one
(how W&B and Comet tracers register). :func:`unobserved` clears all of those for the current
thread or task only, so concurrent requests keep their own tracing; a hook's variable holds a
handler that ignores everything, so that no new tracer is made. Imported only where a
LangChain model or retriever is run (``langchain-core`` is then installed).
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.runnables.config import var_child_runnable_config
from langchain_core.tracers.context import (
    _configure_hooks,  # the registered hooks (collect_runs, usage counters) have no public list
    tracing_v2_callback_var,
)
from langsmith.run_helpers import tracing_context

if TYPE_CHECKING:
    from collections.abc import Iterator
    from contextvars import ContextVar, Token


class _Deaf(BaseCallbackHandler):
    """A handler that takes no event: what a configure hook's variable holds inside the block."""

    ignore_llm = ignore_chain = ignore_agent = ignore_retriever = ignore_chat_model = True
    ignore_retry = ignore_custom_event = True


_DEAF = _Deaf()


@contextmanager
def unobserved() -> Iterator[None]:
    """Within the block, runs started by LangChain have no callback handler and no tracer.

    Example:
        >>> with unobserved():  # doctest: +SKIP
        ...     reply = model.invoke(messages)  # no handler sees these
    """
    tokens: list[tuple[ContextVar[Any], Token[Any]]] = [
        (var_child_runnable_config, var_child_runnable_config.set(None)),
        (tracing_v2_callback_var, tracing_v2_callback_var.set(None)),
    ]
    for var, _inheritable, handler_class, _env in _configure_hooks:
        # None would let a hook with an environment variable build a fresh tracer.
        tokens.append((var, var.set(None if handler_class is None else _DEAF)))
    try:
        with tracing_context(enabled=False, parent=False):
            yield
    finally:
        for var, token in reversed(tokens):
            var.reset(token)
