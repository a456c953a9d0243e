"""What a check decided, and why: per chunk, per query, per combination rule, as frozen records."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any

from rag_guard_integrations.core.audit import audit_record, text_free_reason
from rag_guard_integrations.core.display import result_html

if TYPE_CHECKING:
    from rag_guard_integrations.core.audit import RequestInfo
    from rag_guard_integrations.core.chunk import Chunk

PASSED = "passed"


@dataclass(frozen=True, slots=True)
class Redaction:
    """A span masked as ``[LABEL]`` in the text handed to the LLM (offsets index the original)."""

    label: str
    start: int
    end: int
    recognizer: str


@dataclass(frozen=True, slots=True)
class ChunkDecision:
    """One input chunk's verdict: ``stage`` names the check that denied it (or ``passed``)."""

    index: int
    chunk: Chunk
    allowed: bool
    stage: str
    reason: str
    rule: str | None = None
    labels: frozenset[str] = frozenset()
    redactions: tuple[Redaction, ...] = ()
    original: Chunk | None = None

    @property
    def source(self) -> Chunk:
        """The input chunk (``chunk`` is its masked copy when ``redactions`` is not empty)."""
        return self.original or self.chunk

    def to_dict(self, *, include_text: bool = True) -> dict[str, Any]:
        """JSON-ready record; chunk text only when ``include_text`` (without it, a reason that
        could quote the chunk is cut to its fixed part)."""
        reason = (
            self.reason
            if include_text
            else text_free_reason(self.stage, self.reason, self.source.text, keep_query=True)
        )
        out: dict[str, Any] = {
            "index": self.index,
            "id": self.chunk.id,
            "allowed": self.allowed,
            "stage": self.stage,
            "reason": reason,
            "rule": self.rule,
            "labels": sorted(self.labels),
            "score": self.chunk.score,
        }
        if self.redactions:
            out["redactions"] = [[r.label, r.start, r.end, r.recognizer] for r in self.redactions]
        if include_text:
            out["text"] = self.chunk.text
            out["metadata"] = _jsonable(self.chunk.metadata)
        return out


@dataclass(frozen=True, slots=True)
class QueryDecision:
    """The verdict on the query itself.

    ``allowed`` is False only when the domain guard rejects the query. ``tier`` names the
    domain tier that decided (``blocklist``, ``identifier``, ``root``, ``dense``,
    ``below_threshold``, ``error``), None without a domain guard. ``intents`` lists the clause
    ids the query asks for. ``similarity_source`` says where ``similarity`` came from
    (``retriever`` score or ``embedder``).
    """

    allowed: bool = True
    tier: str | None = None
    reason: str = "no domain guard configured"
    intents: tuple[str, ...] = ()
    evidence: Mapping[str, Any] = field(default_factory=dict)
    similarity: float | None = None
    similarity_source: str | None = None
    refusal: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready record: every field, by name."""
        return {item.name: _jsonable(getattr(self, item.name)) for item in fields(self)}


@dataclass(frozen=True, slots=True)
class Link:
    """Chunks ``a`` and ``b`` share ``key=value`` (an edge of a multi-hop chain)."""

    a: int
    b: int
    key: str
    value: str

    def __str__(self) -> str:
        return f"#{self.a}~#{self.b} ({self.key}={self.value})"


@dataclass(frozen=True, slots=True)
class Violation:
    """A combination rule that fired: every chunk carrying one of its trigger labels is listed."""

    rule: str
    action: str
    message: str
    labels: tuple[str, ...]
    chunk_indices: tuple[int, ...]
    scope: str = "context"
    links: tuple[Link, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready record."""
        return {
            "rule": self.rule,
            "action": self.action,
            "message": self.message,
            "labels": list(self.labels),
            "chunks": list(self.chunk_indices),
            "scope": self.scope,
            "links": [[lk.a, lk.b, lk.key, lk.value] for lk in self.links],
        }


@dataclass(frozen=True, slots=True)
class Bridge:
    """One label shared by the triggers of several rules that fired together."""

    label: str
    rules: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class GuardResult:
    """Everything one check decided; ``allowed`` is what may reach the LLM, in input order.

    Example:
        >>> from rag_guard_integrations import AccessContext, Guard
        >>> chunks = [{"text": "Either party may terminate on 30 days' written notice.",
        ...            "meta": {"contract_type": t, "clause_id": "TERMINATION_NOTICE"}}
        ...           for t in ("MSA", "SOW")]
        >>> result = Guard.from_policy("contracts").check(
        ...     "termination notice period?", chunks, access=AccessContext(contract_type={"MSA"}))
        >>> [c.metadata["contract_type"] for c in result.allowed], result.denied[0].stage
        (['MSA'], 'access')
    """

    query: QueryDecision
    decisions: tuple[ChunkDecision, ...]
    violations: tuple[Violation, ...] = ()
    warnings: tuple[Violation, ...] = ()
    bridges: tuple[Bridge, ...] = ()
    unknown_labels: Mapping[int, frozenset[str]] = field(default_factory=dict)
    refusal: str | None = None
    request: RequestInfo | None = None
    notices: tuple[str, ...] = ()
    shadow: GuardResult | None = None

    @property
    def allowed(self) -> list[Chunk]:
        """The chunks that may reach the LLM, in input order."""
        return [d.chunk for d in self.decisions if d.allowed]

    @property
    def allowed_indices(self) -> tuple[int, ...]:
        """Input positions of the allowed chunks (adapters return their own objects by these)."""
        return tuple(d.index for d in self.decisions if d.allowed)

    @property
    def redacted(self) -> dict[int, str]:
        """Input position -> masked text, for allowed chunks a ``redact`` rule masked: adapters
        hand the LLM a copy of their own object with this text."""
        return {d.index: d.chunk.text for d in self.decisions if d.allowed and d.redactions}

    @property
    def denied(self) -> list[ChunkDecision]:
        """Decisions of the chunks that were withheld."""
        return [d for d in self.decisions if not d.allowed]

    @property
    def is_safe(self) -> bool:
        """False when a block rule fired on the retrieved set (``allowed`` itself never does)."""
        return not self.violations

    def summary(self) -> dict[str, Any]:
        """Counts and names, no text: what logs and tracing events carry."""
        stages: dict[str, int] = {}
        for decision in self.decisions:
            if not decision.allowed:
                stages[decision.stage] = stages.get(decision.stage, 0) + 1
        return {
            "query_allowed": self.query.allowed,
            "tier": self.query.tier,
            "intents": list(self.query.intents),
            "chunks": len(self.decisions),
            "allowed": len(self.allowed_indices),
            "denied_by_stage": stages,
            "redacted": sum(1 for d in self.decisions if d.allowed and d.redactions),
            "violations": [v.rule for v in self.violations],
            "warnings": [w.rule for w in self.warnings],
            "is_safe": self.is_safe,
            "refusal": self.refusal,
            "notices": list(self.notices),
        }

    def audit(self, *, include_query: bool = False) -> dict[str, Any]:
        """Audit record v1 (schema ``schemas/audit-v1.json``): request id, time, principal,
        access, query hash, policy names and sha256, and per chunk its id, content hash,
        decision, stage, rule and reason. Never chunk text; the query text only when
        ``include_query``."""
        return audit_record(self, include_query=include_query)

    def to_dict(self, *, include_text: bool = True) -> dict[str, Any]:
        """The JSON-ready audit record (chunk text left out when ``include_text`` is False)."""
        return {
            "query": self.query.to_dict(),
            "allowed": list(self.allowed_indices),
            "is_safe": self.is_safe,
            "refusal": self.refusal,
            "decisions": [d.to_dict(include_text=include_text) for d in self.decisions],
            "violations": [v.to_dict() for v in self.violations],
            "warnings": [w.to_dict() for w in self.warnings],
            "bridges": [{"label": b.label, "rules": list(b.rules)} for b in self.bridges],
            "unknown_labels": {str(i): sorted(s) for i, s in self.unknown_labels.items()},
            "notices": list(self.notices),
        }

    def _repr_html_(self) -> str:
        return result_html(self)


def _jsonable(value: Any) -> Any:
    """Metadata as JSON can hold it: mappings and sequences kept, anything else as str."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        items = [_jsonable(v) for v in value]
        return sorted(items, key=str) if isinstance(value, set | frozenset) else items
    return str(value)
