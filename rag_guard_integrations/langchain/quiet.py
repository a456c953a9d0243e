"""Running the guard's inner retriever out of sight of every observer.

What an inner retriever returns is what the guard has not checked yet. Called as a child run,
it would reach ``on_retriever_end`` of every callback handler, ``astream_events``, LangSmith and
any tracer. Passing ``callbacks=None`` does not detach it: ``ensure_config`` merges the
surrounding run's config from a context variable, and ``CallbackManager.configure`` adds the
LangSmith tracer from the environment (``LANGSMITH_TRACING``), from ``tracing_v2_enabled()`` and
from ``langsmith.tracing_context``, plus every registered configure hook: the handler its
context variable holds (``collect_runs``) or, when the hook's environment variable is set, a new
one (how W&B and Comet tracers register). :func:`unobserved` clears all of those for the
current thread or task only, so concurrent requests keep their own tracing; a hook's variable
holds a handler that ignores everything, so that no new tracer is made.

What it cannot reach: a thread the inner retriever starts itself without copying the context
(``contextvars.copy_context().run``; LangChain's own executors do copy it) starts with nothing
of this, and tracers enabled by the environment trace what runs there.
:func:`warn_if_environment_traces` says so once per process when such a tracer is enabled.
``langchain_core.globals.set_debug(True)`` is a process-wide switch that prints every run: a
debugging choice this cannot undo.
"""

from __future__ import annotations

import logging
from contextlib import contextmanager
from functools import cache
from typing import TYPE_CHECKING, Any

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.runnables.config import var_child_runnable_config
from langchain_core.tracers.context import (
    _configure_hooks,  # the registered hooks (collect_runs, usage counters) have no public list
    tracing_v2_callback_var,
)
from langchain_core.utils.env import env_var_is_set
from langsmith import utils as langsmith_utils
from langsmith.run_helpers import tracing_context

if TYPE_CHECKING:
    from collections.abc import Iterator
    from contextvars import ContextVar, Token

logger = logging.getLogger("rag_guard_integrations")


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
        ...     documents = inner_retriever.invoke(query)  # no handler sees these
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


def environment_tracers() -> tuple[str, ...]:
    """The environment variables that turn a tracer on for every thread: LangSmith's and those
    of registered configure hooks that are set now."""
    names = [env for *_, env in _configure_hooks if env is not None and env_var_is_set(env)]
    tracing = langsmith_utils.get_env_var("TRACING", default="")
    if langsmith_utils.get_env_var("TRACING_V2", default=tracing) == "true":
        names.append("LANGSMITH_TRACING")
    return tuple(sorted(names))


def warn_if_environment_traces(owner: str) -> None:
    """Log once per process, per set of variables, that environment tracing reaches a thread
    the inner retriever starts without copying the context."""
    names = environment_tracers()
    if names:
        _warn(owner, names)


@cache
def _warn(owner: str, names: tuple[str, ...]) -> None:
    logger.warning(
        "%s: tracing is on from the environment (%s): a thread the inner retriever starts "
        "without copying the context (contextvars.copy_context().run) is traced with the "
        "unchecked candidates; fetch in the calling thread, a LangChain executor, or a copied "
        "context",
        owner,
        ", ".join(names),
    )
