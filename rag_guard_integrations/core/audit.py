"""Audit record v1: who asked, under which policy, and what was decided per chunk, without text.

The record's JSON schema ships with the package (``schemas/audit-v1.json``, see
:func:`audit_schema`). It never holds chunk text or metadata values: a reason that could quote
one (an exception message, a classifier's error) is cut down to its fixed part, and a metadata
value a reason names (``tenant='b'``) is withheld; the query text is included only when asked.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import re
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from importlib import resources
from typing import TYPE_CHECKING, Any

from rag_guard_integrations.core.records import slot_filler

if TYPE_CHECKING:
    from rag_guard_integrations.core.access import AccessContext
    from rag_guard_integrations.core.decisions import ChunkDecision, GuardResult, Violation

AUDIT_VERSION = 1
SCHEMA_FILE = "audit-v1.json"
NO_POLICY = "<none>"
# A reason holding this many characters of the chunk's own text in a row quotes it; an
# exception message, free text from anywhere, is held to a shorter run.
_QUOTE_WINDOW = 24
_MESSAGE_WINDOW = 10
_FAILURE = re.compile(r"(?s)^(.*? check failed \([\w.]+)(: .*)(\); denied \(fail closed\))$")
# A metadata value a reason names is replaced by this; a non-text value shorter than this many
# characters is left alone (it would match unrelated digits).
VALUE_WITHHELD = "<value withheld>"
_SHORTEST_VALUE = 4
_VALUE_DEPTH = 4  # nesting levels of a metadata value searched for items a reason names
_CLASSIFIER_NOTE = re.compile(r"(?s)classifier: .*?(?=; labels unknown, denied|\)$|$)")


def _reseed() -> None:
    # Request ids are a random per-process prefix and a counter: a uuid4 costs a system call
    # per check. A forked worker draws its own prefix.
    global _PREFIX, _COUNTER  # noqa: PLW0603
    _PREFIX = os.urandom(8).hex()
    _COUNTER = itertools.count()


_PREFIX = ""
_COUNTER = itertools.count()
_reseed()
if hasattr(os, "register_at_fork"):  # POSIX only; elsewhere workers are spawned, not forked
    os.register_at_fork(after_in_child=_reseed)


def new_request_id() -> str:
    """A 32-hex-digit id, unique across processes and requests."""
    return f"{_PREFIX}{next(_COUNTER) & 0xFFFFFFFFFFFFFFFF:016x}"


def sha256_text(text: str) -> str:
    """The hex sha256 of ``text`` encoded as UTF-8."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class RequestInfo:
    """Who asked what, when, and under which policy: the identity an audit record carries.

    Example:
        >>> info = RequestInfo.new("termination notice?", None, ("contracts",), "0" * 64)
        >>> len(info.request_id), info.principal
        (32, None)
    """

    request_id: str
    started_ns: int
    query: str
    principal: str | None
    access: Mapping[str, frozenset[str]]
    policy_names: tuple[str, ...]
    policy_sha256: str
    mode: str = "enforce"

    @property
    def time(self) -> str:
        """When the check started, ISO 8601 in UTC."""
        return datetime.fromtimestamp(self.started_ns / 1e9, tz=timezone.utc).isoformat()

    @classmethod
    def new(
        cls,
        query: str,
        access: AccessContext | None,
        policy_names: tuple[str, ...],
        policy_sha256: str,
        *,
        mode: str = "enforce",
        started_ns: int | None = None,
    ) -> RequestInfo:
        """A fresh request id for ``query`` asked with ``access`` (started now unless given)."""
        return _new_request_info(
            new_request_id(),
            time.time_ns() if started_ns is None else started_ns,
            query,
            None if access is None else access.principal,
            {} if access is None else access.allowlists,
            policy_names,
            policy_sha256,
            mode,
        )


# Made on every check.
_new_request_info = slot_filler(RequestInfo)


def audit_schema() -> dict[str, Any]:
    """The JSON schema of audit record v1, as shipped in the package."""
    text = (resources.files("rag_guard_integrations") / "schemas" / SCHEMA_FILE).read_text()
    schema: dict[str, Any] = json.loads(text)
    return schema


def audit_record(result: GuardResult, *, include_query: bool = False) -> dict[str, Any]:
    """Audit record v1 of ``result`` (see the module docstring); the query text only when
    ``include_query``."""
    info = result.request or RequestInfo.new("", None, (NO_POLICY,), sha256_text(""))
    evaluated = result.shadow or result
    query: dict[str, Any] = {
        "sha256": sha256_text(info.query),
        "allowed": evaluated.query.allowed,
        "tier": evaluated.query.tier,
        "intents": list(evaluated.query.intents),
    }
    if include_query:
        query["text"] = info.query
    chunks = [
        _chunk_entry(applied, recorded, include_query=include_query)
        for applied, recorded in zip(result.decisions, evaluated.decisions, strict=True)
    ]
    record: dict[str, Any] = {
        "version": AUDIT_VERSION,
        "request_id": info.request_id,
        "time": info.time,
        "principal": info.principal,
        "access": {name: sorted(values) for name, values in sorted(info.access.items())},
        "query": query,
        "policy": {"names": list(info.policy_names), "sha256": info.policy_sha256},
        "mode": info.mode,
        "chunks": chunks,
        "rules": _rules(result, evaluated),
        "notices": list(result.notices),
        "refused": result.refusal is not None,
    }
    if evaluated.access_source is not None:
        record["access_source"] = evaluated.access_source.to_dict()
    return record


def _chunk_entry(
    applied: ChunkDecision, recorded: ChunkDecision, *, include_query: bool
) -> dict[str, Any]:
    """What was decided for one chunk; in shadow mode the recorded verdict, marked unenforced."""
    if recorded is applied or not _plain_allow(applied):
        shown, enforced = applied, True
    else:  # the chunk reached the LLM unchanged: show what the whole policy decided
        shown, enforced = recorded, _plain_allow(recorded)
    if not shown.allowed:
        decision = "deny"
    elif shown.redactions:
        decision = "redact"
    else:
        decision = "allow"
    original = recorded.source.text
    return {
        "index": shown.index,
        "id": shown.chunk.id,
        "content_sha256": sha256_text(original),
        "decision": decision,
        "enforced": enforced,
        "stage": shown.stage,
        "rule": shown.rule,
        "reason": text_free_reason(
            shown.stage,
            shown.reason,
            original,
            keep_query=include_query,
            metadata=None if shown.allowed else recorded.source.metadata,
        ),
        "labels": sorted(shown.labels),
        "redactions": [
            {"label": r.label, "start": r.start, "end": r.end, "recognizer": r.recognizer}
            for r in shown.redactions
        ],
    }


def _plain_allow(decision: ChunkDecision) -> bool:
    return decision.allowed and not decision.redactions


def _rules(result: GuardResult, evaluated: GuardResult) -> list[dict[str, Any]]:
    applied = {v.rule for v in (*result.violations, *result.warnings)}
    seen: set[str] = set()
    out = []
    fired: tuple[Violation, ...] = (
        *result.violations,
        *result.warnings,
        *evaluated.violations,
        *evaluated.warnings,
    )
    for violation in fired:
        if violation.rule in seen:
            continue
        seen.add(violation.rule)
        out.append(
            {
                "rule": violation.rule,
                "action": violation.action,
                "enforced": violation.rule in applied,
                "chunks": sorted(set(violation.chunk_indices)),
            }
        )
    return out


def text_free_reason(
    stage: str,
    reason: str,
    text: str,
    *,
    keep_query: bool = False,
    metadata: Mapping[str, object] | None = None,
) -> str:
    """``reason`` without anything that could carry chunk (or, unless ``keep_query``, query)
    text: a classifier's error (it may echo the chunk) becomes ``classifier failed``, an
    exception message that repeats part of the chunk is cut to the exception's type, a domain
    rejection keeps no query words, each value of ``metadata`` it names becomes
    ``<value withheld>``, and a reason that still quotes ``text`` is withheld.

    Example:
        >>> text_free_reason("labels", "labels check failed (ValueError: 'top secret "
        ...                  "plans'); denied (fail closed)", "top secret plans")
        'labels check failed (ValueError); denied (fail closed)'
    """
    if stage == "domain" and not keep_query:
        return "the query was rejected"
    cleaned = (
        _CLASSIFIER_NOTE.sub("classifier failed", reason) if "classifier: " in reason else reason
    )
    failure = _FAILURE.match(cleaned) if "check failed (" in cleaned else None
    if failure is not None and _quotes(failure[2], text, _MESSAGE_WINDOW):
        cleaned = failure[1] + failure[3]
    if metadata:
        cleaned = _without_values(cleaned, metadata)
    if _quotes(cleaned, text, _QUOTE_WINDOW):
        return f"{stage}: reason withheld (it quotes the chunk text)"
    return cleaned


def _without_values(reason: str, metadata: Mapping[str, object]) -> str:
    """``reason`` with every value of ``metadata`` it names (as written or as its repr; the
    items of lists and mappings too, to a bounded depth) replaced by :data:`VALUE_WITHHELD`,
    the longest first, so a container's repr keeps its brackets and loses its values."""
    forms: set[str] = set()
    _named_values(reason, metadata.values(), 0, forms)
    for form in sorted(forms, key=len, reverse=True):
        reason = reason.replace(form, VALUE_WITHHELD)
    return reason


def _named_values(reason: str, values: Iterable[object], depth: int, forms: set[str]) -> None:
    """Add to ``forms`` each of ``values`` (and their items) that ``reason`` names."""
    for item in values:
        if isinstance(item, str):  # the common case first: an ABC check costs more
            # Its repr differs from the text only where it escapes a character.
            if item not in reason and item.isprintable() and "\\" not in item:
                continue
            shown = item
        elif isinstance(item, list | tuple | set | frozenset | dict | Mapping):
            if depth < _VALUE_DEPTH:
                items = item.values() if isinstance(item, Mapping) else item
                _named_values(reason, items, depth + 1, forms)
            continue
        else:
            shown = str(item)
            if len(shown) < _SHORTEST_VALUE:
                continue
        if (quoted := repr(item)) in reason:
            forms.add(quoted)
        if len(shown) >= _SHORTEST_VALUE and shown in reason:
            forms.add(shown)


def _quotes(reason: str, text: str, window: int) -> bool:
    """True when ``reason`` holds ``window`` characters of ``text`` in a row (all of a shorter
    text, when that is at least 8 characters).

    Any such run covers one of the half-window pieces at the reason's half-window offsets, so
    only those are searched for, and a hit is confirmed with the full windows around it.
    """
    if len(text) < window:
        return len(text) >= 8 and text in reason
    half = window // 2
    for piece in range(0, len(reason) - half + 1, half):
        if reason[piece : piece + half] in text:
            first, last = max(0, piece - half), min(piece, len(reason) - window)
            if any(reason[i : i + window] in text for i in range(first, last + 1)):
                return True
    return False
