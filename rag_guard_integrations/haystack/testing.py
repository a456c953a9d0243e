"""Stand-ins for testing guarded Haystack pipelines offline: a generator component that keeps
every prompt it is sent, and a tracer that keeps every span and tag the pipeline shows.

Example:
    ```python
    generator = RecordingGenerator()
    pipeline.add_component("llm", generator)
    with RecordingTracer() as seen:
        pipeline.run({"retriever": {"query": q}, "guard": {"query": q}})
    assert all("SECRET" not in p for p in generator.prompts + seen.texts)
    ```
"""

from __future__ import annotations

import contextlib
import threading
from typing import TYPE_CHECKING, Any

from haystack import component
from haystack.tracing.tracer import Span, Tracer, disable_tracing, enable_tracing, tracer

if TYPE_CHECKING:
    from collections.abc import Iterator


@component
class RecordingGenerator:
    """A generator that records each prompt and replies with it (``echo``) or with ``reply``."""

    def __init__(self, reply: str = "ok", *, echo: bool = False) -> None:
        self.reply = reply
        self.echo = echo
        self.prompts: list[str] = []
        self._lock = threading.Lock()

    @component.output_types(replies=list[str])
    def run(self, prompt: str) -> dict[str, list[str]]:
        """Record ``prompt``; the reply."""
        with self._lock:
            self.prompts.append(prompt)
        return {"replies": [prompt if self.echo else self.reply]}

    @component.output_types(replies=list[str])
    async def run_async(self, prompt: str) -> dict[str, list[str]]:
        """:meth:`run` for async pipelines."""
        return self.run(prompt)


class _Span(Span):
    def __init__(self, into: list[str], name: str) -> None:
        self.into = into
        into.append(name)

    def set_tag(self, key: str, value: Any) -> None:
        self.into.append(f"{key}={value!r}")


class RecordingTracer(Tracer):
    """Every span name and tag Haystack's tracing hands a tracer while the block runs, as text
    in :attr:`texts`; content tags only when ``HAYSTACK_CONTENT_TRACING_ENABLED`` is set (or
    ``content=True``)."""

    def __init__(self, *, content: bool | None = None) -> None:
        self.texts: list[str] = []
        self._content = content
        self._current: list[Span] = []
        self._saved = (tracer.actual_tracer, tracer.is_content_tracing_enabled)

    @contextlib.contextmanager
    def trace(
        self,
        operation_name: str,
        tags: dict[str, Any] | None = None,
        parent_span: Span | None = None,
    ) -> Iterator[Span]:
        """A span that records its name and tags."""
        span = _Span(self.texts, operation_name)
        span.set_tags(tags or {})
        self._current.append(span)
        try:
            yield span
        finally:
            self._current.remove(span)

    def current_span(self) -> Span | None:
        """The innermost open span."""
        return self._current[-1] if self._current else None

    def __enter__(self) -> RecordingTracer:
        self._saved = (tracer.actual_tracer, tracer.is_content_tracing_enabled)
        enable_tracing(self)
        if self._content is not None:
            tracer.is_content_tracing_enabled = self._content
        return self

    def __exit__(self, *exc_info: object) -> None:
        disable_tracing()
        tracer.actual_tracer, tracer.is_content_tracing_enabled = self._saved
