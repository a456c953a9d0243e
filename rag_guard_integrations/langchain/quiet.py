"""Running the guard's inner retriever out of sight of every observer.

What an inner retriever returns is what the guard has not checked yet. Called as a child run,
it would reach ``on_retriever_end`` of every callback handler, ``astream_events``, LangSmith and
any tracer; it runs inside :func:`unobserved` (see
:mod:`rag_guard_integrations.classify.langchain_quiet`, which the LLM classifier's model calls
share).

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
from typing import TYPE_CHECKING

from langchain_core.tracers.context import (
    _configure_hooks,  # the registered hooks (collect_runs, usage counters) have no public list
)
from langchain_core.utils.env import env_var_is_set
from langsmith import utils as langsmith_utils

from rag_guard_integrations.adapters.quiet_logs import class_modules, quiet_logs
from rag_guard_integrations.classify.langchain_quiet import unobserved

if TYPE_CHECKING:
    from collections.abc import Iterator

__all__ = ["environment_tracers", "fetching", "unobserved", "warn_if_environment_traces"]
logger = logging.getLogger("rag_guard_integrations")


@contextmanager
def fetching(retriever: object) -> Iterator[None]:
    """Where ``retriever`` fetches unchecked candidates: no callback handler or tracer sees
    the run (:func:`unobserved`), and no log record leaves it (LangChain's loggers, the
    retriever's class modules, the root logger's handlers; see
    :mod:`rag_guard_integrations.adapters.quiet_logs`)."""
    with unobserved(), quiet_logs(("langchain",), class_modules(type(retriever))):
        yield


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
