"""Async written once: an adapter's orchestration is a generator that yields the I/O it needs
(:class:`Call`), and one of two drivers runs it, :func:`run` calling each step's sync form and
:func:`arun` awaiting its async form. Everything else, the order of the steps, the error
handling and the bookkeeping, exists once for both paths.

Example:
    >>> def double(x):
    ...     got = yield Call(lambda: x, lambda: _ready(x))  # the fetch, sync or async
    ...     return 2 * got
    >>> async def _ready(x):
    ...     return x
    >>> run(double(21))
    42
    >>> import asyncio
    >>> asyncio.run(arun(double(21)))
    42
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Generator
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

T = TypeVar("T")
R = TypeVar("R")

Flow = Generator["Call[Any]", Any, R]
"""An orchestration: it yields :class:`Call` steps, receives each one's value (or its
exception, raised at the ``yield``) and returns the request's outcome."""


@dataclass(frozen=True, slots=True)
class Call(Generic[T]):
    """One step of I/O in both forms: ``sync()`` returns the value, ``asynchronous()`` an
    awaitable of it (or the value itself when there is nothing to await). Without
    ``asynchronous`` the async driver calls ``sync`` and awaits what it returns when that is
    awaitable (a step over an object that is already sync or async, such as a callback manager
    of the driver's kind)."""

    sync: Callable[[], T]
    asynchronous: Callable[[], Awaitable[T]] | None = None


def run(flow: Flow[R]) -> R:
    """Drive ``flow`` synchronously: each step's ``sync()``."""
    value: Any = None
    error: BaseException | None = None
    while True:
        try:
            step = flow.send(value) if error is None else flow.throw(error)
        except StopIteration as done:
            return done.value  # type: ignore[no-any-return]
        value, error = None, None
        try:
            value = step.sync()
        except BaseException as failure:  # handed to the flow, which decides
            error = failure


async def arun(flow: Flow[R]) -> R:
    """Drive ``flow`` asynchronously: each step's ``asynchronous()`` (else ``sync()``), awaited
    when it gives an awaitable."""
    value: Any = None
    error: BaseException | None = None
    while True:
        try:
            step = flow.send(value) if error is None else flow.throw(error)
        except StopIteration as done:
            return done.value  # type: ignore[no-any-return]
        value, error = None, None
        try:
            value = step.sync() if step.asynchronous is None else step.asynchronous()
            if inspect.isawaitable(value):
                value = await value
        except BaseException as failure:  # handed to the flow, which decides
            error = failure


def once(step: Call[T]) -> Flow[T]:
    """The flow of one step: its value."""
    value: T = yield step
    return value
