"""Audit record v2: who asked, under which policy, and what was decided per chunk, built only
from names the policy and the caller defined.

The record's JSON schema ships with the package (``schemas/audit-v2.json``, see
:func:`audit_schema`). Nothing a chunk holds reaches it, at any depth: per chunk it names the
id, a keyed hash of the text, the decision, stage and rule, the reason's record form (a template
filled with policy and caller names, see :mod:`~rag_guard_integrations.core.reasons`), the
labels of the policy's vocabulary (any other label is only counted) and the masked spans
(by the policy's recogniser names: any other is ``classifier``). The
query is a keyed hash, its text only when asked for. Hashes are HMAC-SHA256 under the
deployment's key (:mod:`~rag_guard_integrations.core.keys`), which the record names by its id.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from importlib import resources
from typing import TYPE_CHECKING, Any

from rag_guard_integrations.core.keys import AuditKey, audit_key
from rag_guard_integrations.core.reasons import recorded
from rag_guard_integrations.core.records import slot_filler

if TYPE_CHECKING:
    from collections.abc import Collection, Mapping

    from rag_guard_integrations.core.access import AccessContext
    from rag_guard_integrations.core.decisions import ChunkDecision, GuardResult, Violation

AUDIT_VERSION = 2
READABLE_VERSIONS = (1, 2)
"""Record versions ``rag-guard audit`` reads: v1 held plain sha256 hashes, v2 keyed ones."""
NO_POLICY = "<none>"


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
    """The hex sha256 of ``text`` encoded as UTF-8 (for the policy's identity, which is no
    secret; chunk and query hashes are keyed)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class RequestInfo:
    """Who asked what, when, and under which policy: the identity an audit record carries, with
    the key its hashes use and the label and recogniser names it may show.

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
    key: AuditKey = field(default_factory=audit_key, repr=False)
    names: frozenset[str] = frozenset()
    """The label and recogniser names a record may show: the policy's vocabulary, recognisers
    and their labels."""

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
        key: AuditKey | None = None,
        names: frozenset[str] = frozenset(),
    ) -> RequestInfo:
        """A fresh request id for ``query`` asked with ``access`` (started now unless given;
        hashed with ``key``, else the configured or process key)."""
        return _new_request_info(
            new_request_id(),
            time.time_ns() if started_ns is None else started_ns,
            query,
            None if access is None else access.principal,
            {} if access is None else access.allowlists,
            policy_names,
            policy_sha256,
            mode,
            audit_key() if key is None else key,
            names,
        )


# Made on every check.
_new_request_info = slot_filler(RequestInfo)


def audit_schema(version: int = AUDIT_VERSION) -> dict[str, Any]:
    """The JSON schema of audit record ``version`` (2, or 1 for records written before), as
    shipped in the package."""
    name = f"audit-v{version}.json"
    text = (resources.files("rag_guard_integrations") / "schemas" / name).read_text()
    schema: dict[str, Any] = json.loads(text)
    return schema


def audit_record(result: GuardResult, *, include_query: bool = False) -> dict[str, Any]:
    """Audit record v2 of ``result`` (see the module docstring); the query text only when
    ``include_query``."""
    info = result.request or RequestInfo.new("", None, (NO_POLICY,), sha256_text(""))
    evaluated = result.shadow or result
    query: dict[str, Any] = {
        "hmac": info.key.digest(info.query),
        "allowed": evaluated.query.allowed,
        "tier": evaluated.query.tier,
        "intents": list(evaluated.query.intents),
    }
    if include_query:
        query["text"] = info.query
    chunks = [
        _chunk_entry(applied, recorded_decision, info)
        for applied, recorded_decision in zip(result.decisions, evaluated.decisions, strict=True)
    ]
    return {
        "version": AUDIT_VERSION,
        "request_id": info.request_id,
        "time": info.time,
        "principal": info.principal,
        "access": {name: sorted(values) for name, values in sorted(info.access.items())},
        "key_id": info.key.id,
        "query": query,
        "policy": {"names": list(info.policy_names), "sha256": info.policy_sha256},
        "mode": info.mode,
        "chunks": chunks,
        "rules": _rules(result, evaluated),
        "notices": list(result.notices),
        "refused": result.refusal is not None,
        "refused_shadow": result.refusal is None and evaluated.refusal is not None,
    }


def _chunk_entry(
    applied: ChunkDecision, recorded_decision: ChunkDecision, info: RequestInfo
) -> dict[str, Any]:
    """What was decided for one chunk; in shadow mode the recorded verdict, marked unenforced."""
    if recorded_decision is applied or not _plain_allow(applied):
        shown, enforced = applied, True
    else:  # the chunk reached the LLM unchanged: show what the whole policy decided
        shown, enforced = recorded_decision, _plain_allow(recorded_decision)
    if not shown.allowed:
        decision = "deny"
    elif shown.redactions:
        decision = "redact"
    else:
        decision = "allow"
    named, unknown = record_labels(shown.labels, info.names)
    return {
        "index": shown.index,
        "id": shown.chunk.id,
        "content_hmac": info.key.digest(recorded_decision.source.text),
        "decision": decision,
        "enforced": enforced,
        "stage": shown.stage,
        "rule": shown.rule,
        "reason": recorded(shown.stage, shown.reason),
        "labels": named,
        "unknown_labels": unknown,
        "redactions": [
            {
                "label": r.label,
                "start": r.start,
                "end": r.end,
                "recognizer": record_recognizer(r.recognizer, info.names),
            }
            for r in shown.redactions
        ],
    }


def record_labels(labels: Collection[str], names: Collection[str]) -> tuple[list[str], int]:
    """The labels a record names (those of the policy's ``names``, sorted) and how many others
    there are: a label outside the vocabulary came from the chunk's metadata or a model, so it
    is counted, never written."""
    named = sorted(label for label in labels if label in names)
    return named, len(labels) - len(named)


def record_recognizer(recognizer: str, names: Collection[str]) -> str:
    """The name a record gives the recogniser behind a mask: its own when the policy defines
    it, else ``classifier`` (a classifier's findings may be named after what it read)."""
    return recognizer if recognizer in names else "classifier"


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
