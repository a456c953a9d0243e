"""Keep a guarded fetch's log records out of every log, for the current thread or task only.

An inner retriever that logs what it found (a store client at DEBUG, a custom retriever's own
``logger.debug(hits)``) would write every candidate, withheld ones too, to the application's
logs. Inside :func:`quiet_logs`, records from the framework's loggers (by name prefix), from the
retriever's class modules, and every record any handler of any logger sees (the root's, an
application's package logger's, logging's last resort) are dropped; other threads and
concurrent requests log as before (a ``ContextVar``; no logger level changes).

Not reachable from here: a handler attached during the fetch itself, ``print``, and a thread the
fetch starts without copying the context.

Example:
    >>> import logging
    >>> with quiet_logs(("langchain",), ("my_app.retrievers",)):
    ...     logging.getLogger("my_app.retrievers").warning("found: the withheld clause")
"""

from __future__ import annotations

import functools
import logging
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Iterator

_QUIET: ContextVar[bool] = ContextVar("rag_guard_quiet_logs", default=False)


class _QuietInContext(logging.Filter):
    """Drops a logger's records while the current context fetches."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not _QUIET.get()


_FILTER = _QuietInContext()
_FILTERED: set[str] = set()
_SEEN: dict[tuple[str, ...], int] = {}


@contextmanager
def quiet_logs(prefixes: tuple[str, ...], modules: tuple[str, ...] = ()) -> Iterator[None]:
    """No log record from this context while the block runs: not from loggers whose names start
    with one of ``prefixes`` (the framework's), nor from ``modules``' loggers (the inner
    retriever's classes, see :func:`class_modules`), nor any that a logger's handler sees."""
    _filter_loggers(prefixes, modules)
    token = _QUIET.set(True)
    try:
        yield
    finally:
        _QUIET.reset(token)


def class_modules(cls: type) -> tuple[str, ...]:
    """The modules of a class and its bases (a custom retriever logs under its own module's
    name), for :func:`quiet_logs`; read once per class rather than on every call."""
    return _class_modules(cls)


@functools.lru_cache(maxsize=256)
def _class_modules(cls: Any) -> tuple[str, ...]:
    return tuple(sorted({c.__module__ for c in cls.__mro__ if c is not object}))


def _filter_loggers(prefixes: tuple[str, ...], modules: tuple[str, ...]) -> None:
    # A logger's filters see only the records logged at that logger, so each one needs it;
    # the registry is rescanned only when it has grown. Every handler gets it too (checked on
    # every fetch: handlers come and go): the root's see every record that propagates, an
    # application's package logger's those of its children (``myapp`` for ``myapp.client``),
    # and logging's last resort those no handler takes.
    registry = logging.root.manager.loggerDict
    if len(registry) != _SEEN.get(prefixes):
        _SEEN[prefixes] = len(registry)
        _add_filter([name for name in list(registry) if name.startswith(prefixes)])
    _add_filter([module for module in modules if module not in _FILTERED])
    loggers = [logging.root, *(v for v in list(registry.values()) if isinstance(v, logging.Logger))]
    handlers = [handler for logger in loggers for handler in logger.handlers]
    if logging.lastResort is not None:
        handlers.append(logging.lastResort)
    for handler in handlers:
        if _FILTER not in handler.filters:
            handler.addFilter(_FILTER)


def _add_filter(names: list[str]) -> None:
    for name in names:
        logger = logging.getLogger(name)
        if _FILTER not in logger.filters:
            logger.addFilter(_FILTER)
        _FILTERED.add(name)
