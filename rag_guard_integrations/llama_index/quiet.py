"""Silence, for the current thread or task only, everything LlamaIndex reports while a guarded
component fetches unchecked candidates: instrumentation events and spans, legacy callbacks and
DEBUG log records (each would carry every node fetched, denied ones too).

Not reachable from here: records of a logger that does not propagate to the root and is neither
a ``llama_index`` logger nor one of the retriever's class modules, ``print``, and work the inner
retriever hands to a thread or executor that does not copy the context (``threading.Thread``,
``ThreadPoolExecutor.submit``; ``asyncio.to_thread`` and LlamaIndex's own helpers copy it).

LlamaIndex has no switch for this, so the public entry points every report goes through are
gated once, on first use: ``Dispatcher.event``/``aevent``/``span_enter``/``span_exit``/
``span_drop`` (every event handler and span handler of every dispatcher) and
``CallbackManager.on_event_start``/``on_event_end``/``start_trace``/``end_trace`` (the global
``Settings.callback_manager`` and every per-object one). A gate does nothing but pass the call
on, except inside :func:`silenced` in the same context (a ``ContextVar``, so other threads and
concurrent requests keep their instrumentation; asyncio tasks and LlamaIndex's own worker
threads copy the context, so work the fetch hands them stays silent too).

The same block runs the postprocessors a guarded engine applies after the guard (a
``PrevNextNodePostprocessor`` adds neighbours the guard has not judged yet). A fetch or
postprocessor that starts a query engine or a response synthesizer (``QueryStartEvent``,
``SynthesizeStartEvent``: a ``RecursiveRetriever`` or an ``IndexNode`` following a query
engine) would send unchecked nodes to an LLM: it is refused.
"""

from __future__ import annotations

import functools
import inspect
import threading
import uuid
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

from llama_index.core.callbacks import CallbackManager
from llama_index.core.instrumentation.events.query import QueryStartEvent
from llama_index.core.instrumentation.events.synthesis import SynthesizeStartEvent
from llama_index_instrumentation.dispatcher import Dispatcher

from rag_guard_integrations.adapters.quiet_logs import class_modules, quiet_logs
from rag_guard_integrations.core.errors import AdapterConfigError

__all__ = ["class_modules", "silenced"]

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

_QUIET: ContextVar[bool] = ContextVar("rag_guard_quiet_fetch", default=False)
_GATED = "__rag_guard_gated__"
_DISPATCHER_METHODS = ("event", "aevent", "span_enter", "span_exit", "span_drop")
_CALLBACK_METHODS = ("on_event_start", "on_event_end", "start_trace", "end_trace")
_LOCK = threading.Lock()
_INSTALLED: list[bool] = []


@contextmanager
def silenced(*modules: str) -> Iterator[None]:
    """Report nothing from this context while the block runs: no instrumentation events or
    spans, no callbacks, and no records from ``llama_index`` loggers or from ``modules``'
    loggers (the modules of a custom retriever's classes).

    Raises:
        AdapterConfigError: the installed llama-index has no gate point (the block would leak),
            or the block starts a query engine over unchecked nodes.
    """
    _install()
    token = _QUIET.set(True)
    try:
        with quiet_logs(("llama_index",), modules):
            yield
    finally:
        _QUIET.reset(token)


def _install() -> None:
    if _INSTALLED:
        return
    with _LOCK:
        for cls, names in ((Dispatcher, _DISPATCHER_METHODS), (CallbackManager, _CALLBACK_METHODS)):
            for name in names:
                method = getattr(cls, name, None)
                if not callable(method):
                    raise AdapterConfigError(
                        f"this llama-index has no {cls.__name__}.{name}, so a guarded fetch "
                        "cannot keep withheld nodes out of instrumentation; install "
                        "llama-index-core 0.14 (llama-index-instrumentation 0.6)"
                    )
                if not getattr(method, _GATED, False):
                    setattr(cls, name, _gate(name, method))
        _INSTALLED.append(True)


def _gate(name: str, method: Callable[..., Any]) -> Callable[..., Any]:
    """``method`` as it is, or (in a silenced context) a call that reports nothing."""
    if inspect.iscoroutinefunction(method):

        @functools.wraps(method)
        async def agated(self: Any, *args: Any, **kwargs: Any) -> Any:
            if not _QUIET.get():
                return await method(self, *args, **kwargs)
            _refuse_query(args, kwargs)
            return None

        setattr(agated, _GATED, True)
        return agated

    @functools.wraps(method)
    def gated(self: Any, *args: Any, **kwargs: Any) -> Any:
        if not _QUIET.get():
            return method(self, *args, **kwargs)
        _refuse_query(args, kwargs)
        if name == "on_event_start":
            given = kwargs.get("event_id") or (args[2] if len(args) > 2 else None)
            return given or str(uuid.uuid4())
        return None

    setattr(gated, _GATED, True)
    return gated


def _refuse_query(args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    event = args[0] if args else kwargs.get("event")
    if isinstance(event, QueryStartEvent | SynthesizeStartEvent):
        raise AdapterConfigError(
            f"a guarded fetch or post-guard postprocessor ran a query engine "
            f"({type(event).__name__}) on nodes the guard has not checked (a RecursiveRetriever "
            "with query engines, or an IndexNode pointing to one); guard that query engine's "
            "retriever instead"
        )
