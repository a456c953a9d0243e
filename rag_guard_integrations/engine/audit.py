"""Where audit records go: the policy's identity, the ``rag_guard_integrations.audit`` logger
(one JSON record a line) and, when ``opentelemetry`` is installed, a ``rag_guard.check`` span."""

from __future__ import annotations

import functools
import json
import logging
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

from rag_guard_integrations.core.audit import sha256_text
from rag_guard_integrations.core.labels import clean_label

if TYPE_CHECKING:
    from collections.abc import Iterator

    from rag_guard_integrations.core.decisions import GuardResult
    from rag_guard_integrations.policy.schema import Policy

logger = logging.getLogger("rag_guard_integrations.audit")
SPAN_NAME = "rag_guard.check"
# Results published in this thread or task while an adapter holds its record back.
_HELD: ContextVar[list[GuardResult] | None] = ContextVar("rag_guard_held", default=None)


def policy_identity(policy: Policy) -> tuple[tuple[str, ...], str]:
    """The names a policy was loaded under and the sha256 of the merged policy as canonical JSON.

    Example:
        >>> from rag_guard_integrations import load_policy
        >>> names, digest = policy_identity(load_policy("contracts", "default"))
        >>> names, len(digest)
        (('contracts', 'default'), 64)
    """
    names = tuple(part for part in (policy.name or "").split("+") if part) or ("<unnamed>",)
    canonical = json.dumps(policy.model_dump(mode="json"), sort_keys=True, separators=(",", ":"))
    return names, sha256_text(canonical)


def record_names(policy: Policy) -> frozenset[str]:
    """The label and recogniser names a record of ``policy`` may show: its vocabulary, its
    recognisers and their labels (every one the policy wrote; a chunk's or a model's own
    labels, and recogniser names a classifier made up, are not).

    Example:
        >>> from rag_guard_integrations import load_policy
        >>> {"financial", "credit_card"} <= record_names(load_policy("default"))
        True
    """
    classifiers = policy.classifiers
    produced = [spec.label for spec in classifiers.patterns] + list(classifiers.builtin.values())
    recognizers = [spec.name for spec in classifiers.patterns] + list(classifiers.builtin)
    labels = {clean_label(label) for label in produced}
    return frozenset(policy.vocabulary).union(labels, recognizers)


@contextmanager
def held() -> Iterator[list[GuardResult]]:
    """Within the block, :func:`publish` keeps results in the yielded list instead of recording
    them: an adapter that withholds more than the guard did publishes the final result itself,
    so each request is recorded once, with every decision it made."""
    kept: list[GuardResult] = []
    token = _HELD.set(kept)
    try:
        yield kept
    finally:
        _HELD.reset(token)


def publish(result: GuardResult) -> None:
    """Log ``result.audit()`` at INFO as one JSON line, and record it on a span when
    OpenTelemetry is installed and tracing; the record is built only when someone listens."""
    kept = _HELD.get()
    if kept is not None:
        kept.append(result)
        return
    tracer = _tracer()
    span = None
    if tracer is not None and result.request is not None:
        span = tracer.start_span(SPAN_NAME, start_time=result.request.started_ns)
        if not span.is_recording():
            span.end()
            span = None
    if span is None and not logger.isEnabledFor(logging.INFO):
        return
    record = result.audit()
    if logger.isEnabledFor(logging.INFO):
        logger.info(
            "%s", json.dumps(record, sort_keys=True, ensure_ascii=False), extra={"audit": record}
        )
    if span is not None:
        span.set_attributes(span_attributes(record))
        span.end()


def span_attributes(record: dict[str, Any]) -> dict[str, Any]:
    """An audit record as flat OpenTelemetry attributes (primitives and lists of one type)."""
    chunks = record["chunks"]
    attributes: dict[str, Any] = {
        "rag_guard.audit.version": record["version"],
        "rag_guard.audit.key_id": record["key_id"],
        "rag_guard.request_id": record["request_id"],
        "rag_guard.policy.names": record["policy"]["names"],
        "rag_guard.policy.sha256": record["policy"]["sha256"],
        "rag_guard.query.hmac": record["query"]["hmac"],
        "rag_guard.query.allowed": record["query"]["allowed"],
        "rag_guard.mode": record["mode"],
        "rag_guard.refused": record["refused"],
        "rag_guard.chunks": len(chunks),
        "rag_guard.allowed": sum(c["decision"] != "deny" or not c["enforced"] for c in chunks),
        "rag_guard.chunk.ids": [c["id"] or c["content_hmac"] for c in chunks],
        "rag_guard.chunk.decisions": [c["decision"] for c in chunks],
        "rag_guard.chunk.enforced": [c["enforced"] for c in chunks],
        "rag_guard.chunk.stages": [c["stage"] for c in chunks],
        "rag_guard.chunk.rules": [c["rule"] or "" for c in chunks],
        "rag_guard.chunk.reasons": [c["reason"] for c in chunks],
        "rag_guard.rules": [r["rule"] for r in record["rules"]],
        "rag_guard.notices": record["notices"],
    }
    if record["principal"] is not None:
        attributes["rag_guard.principal"] = record["principal"]
    for name, values in record["access"].items():
        attributes[f"rag_guard.access.{name}"] = values
    return attributes


def _tracer() -> Any:
    """The package's tracer, or None when OpenTelemetry is not installed or no tracer provider
    is set (the API's proxy or no-op provider): such a provider's spans record nothing, and
    making one costs more than the rest of a small check's audit."""
    trace = _trace_api()
    if trace is None:
        return None
    provider = trace.get_tracer_provider()
    if isinstance(provider, trace.ProxyTracerProvider | trace.NoOpTracerProvider):
        return None
    return _provided(provider)


@functools.lru_cache(maxsize=4)
def _provided(provider: Any) -> Any:
    return provider.get_tracer("rag_guard_integrations")


@functools.cache
def _trace_api() -> Any:
    try:
        from opentelemetry import trace  # noqa: PLC0415 - optional, imported once when used
    except ImportError:
        return None
    return trace
