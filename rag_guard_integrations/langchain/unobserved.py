"""Running the guard's inner retriever out of sight of every observer.

What an inner retriever returns is what the guard has not checked yet. Called as a child run,
it would reach ``on_retriever_end`` of every callback handler, ``astream_events``, LangSmith and
any tracer. Passing ``callbacks=None`` does not detach it: ``ensure_config`` merges the
surrounding run's config from a context variable, and ``CallbackManager.configure`` adds the
LangSmith tracer from the environment (``LANGSMITH_TRACING``), from ``tracing_v2_enabled()`` and
from ``langsmith.tracing_context``, plus every registered configure hook (``collect_runs``).
:func:`unobserved` clears all of those for the current thread or task only, so concurrent
requests keep their own tracing. ``langchain_core.globals.set_debug(True)`` is a process-wide
switch that prints every run: a debugging choice this cannot undo.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from langchain_core.runnables.config import var_child_runnable_config
from langchain_core.tracers.context import (
    _configure_hooks,  # the registered hooks (collect_runs, usage counters) have no public list
    tracing_v2_callback_var,
)
from langsmith.run_helpers import tracing_context

if TYPE_CHECKING:
    from collections.abc import Iterator
    from contextvars import ContextVar, Token


@contextmanager
def unobserved() -> Iterator[None]:
    """Within the block, runs started by LangChain have no callback handler and no tracer.

    Example:
        >>> with unobserved():  # doctest: +SKIP
        ...     documents = inner_retriever.invoke(query)  # no handler sees these
    """
    observers: list[ContextVar[Any]] = [
        var_child_runnable_config,
        tracing_v2_callback_var,
        *(hook[0] for hook in _configure_hooks),
    ]
    tokens: list[tuple[ContextVar[Any], Token[Any]]] = [(v, v.set(None)) for v in observers]
    try:
        with tracing_context(enabled=False, parent=False):
            yield
    finally:
        for var, token in reversed(tokens):
            var.reset(token)
