"""What a check decided, and why: per chunk, per query, per combination rule, as frozen records."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, fields
from itertools import filterfalse
from typing import TYPE_CHECKING, Any, overload

from rag_guard_integrations.core.audit import audit_record, record_labels, record_recognizer
from rag_guard_integrations.core.display import result_html
from rag_guard_integrations.core.reasons import recorded

if TYPE_CHECKING:
    from collections.abc import Collection

    from rag_guard_integrations.core.access_record import AccessRecord
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

    def to_dict(
        self, *, include_text: bool = True, names: Collection[str] = frozenset()
    ) -> dict[str, Any]:
        """JSON-ready record. With ``include_text`` the chunk's text, metadata, labels and full
        reason; without it nothing the chunk holds: the reason's record form (see
        :class:`~rag_guard_integrations.core.reasons.Reason`), the labels among the policy's
        ``names`` (any other is counted in ``unknown_labels``) and masks by those recogniser
        names (any other is ``classifier``)."""
        out: dict[str, Any] = {
            "index": self.index,
            "id": self.chunk.id,
            "allowed": self.allowed,
            "stage": self.stage,
            "reason": self.reason if include_text else recorded(self.stage, self.reason),
            "rule": self.rule,
            "labels": sorted(self.labels),
            "score": self.chunk.score,
        }
        if not include_text:
            out["labels"], out["unknown_labels"] = record_labels(self.labels, names)
        if self.redactions:
            out["redactions"] = [[r.label, r.start, r.end, r.recognizer] for r in self.redactions]
            if not include_text:
                for mask in out["redactions"]:
                    mask[3] = record_recognizer(mask[3], names)
        if include_text:
            out["text"] = self.chunk.text
            out["metadata"] = _jsonable(self.chunk.metadata)
        return out


class ChunkDecisions(Sequence[ChunkDecision]):
    """The decisions of one check, one per input chunk, built when first read.

    A check records only what it denied (``denied``: position -> stage and reason), the rule
    behind each combination removal and the labels; a :class:`ChunkDecision` object is made
    for a position the first time someone reads it, so a check at k=1,000 whose caller only
    takes ``allowed`` builds none. Reads the same as a tuple of decisions.

    Example:
        >>> from rag_guard_integrations.core.chunk import Chunk
        >>> decisions = ChunkDecisions([Chunk("a"), Chunk("b")], {1: ("hint", "no match")},
        ...                            {}, {}, "passed hint")
        >>> decisions.allowed_indices, decisions[1].stage, len(decisions)
        ((0,), 'hint', 2)
    """

    __slots__ = (
        "_allowed",
        "_built",
        "_chunks",
        "_denied",
        "_labels",
        "_overrides",
        "_passed",
        "_positions",
        "_rules",
    )

    def __init__(
        self,
        chunks: Sequence[Chunk],
        denied: Mapping[int, tuple[str, str]],
        labels: Mapping[int, frozenset[str]],
        rules: Mapping[int, str],
        passed_reason: str,
        *,
        overrides: Mapping[int, ChunkDecision] | None = None,
    ) -> None:
        self._chunks = chunks
        self._overrides = overrides or {}  # decisions made already (masked chunks)
        self._denied = denied
        self._labels = labels
        self._rules = rules
        self._passed = passed_reason
        self._built: list[ChunkDecision | None] = [None] * len(chunks)
        self._positions = tuple(filterfalse(denied.__contains__, range(len(chunks))))
        self._allowed = self._positions

    @classmethod
    def of(cls, decisions: Iterable[ChunkDecision]) -> ChunkDecisions:
        """Decisions already built (``allowed_indices`` are their ``index`` fields)."""
        built = list(decisions)
        out = cls([d.chunk for d in built], {}, {}, {}, PASSED)
        out._built = list(built)
        out._overrides = dict(enumerate(built))
        out._denied = {p: (d.stage, d.reason) for p, d in enumerate(built) if not d.allowed}
        out._positions = tuple(p for p, d in enumerate(built) if d.allowed)
        out._allowed = tuple(built[p].index for p in out._positions)
        return out

    @property
    def allowed_indices(self) -> tuple[int, ...]:
        """Input positions of the allowed chunks, in order."""
        return self._allowed

    def allowed_chunks(self) -> list[Chunk]:
        """The allowed chunks, in input order (no decision object is built)."""
        chunks, overrides = self._chunks, self._overrides
        if overrides:
            return [overrides[p].chunk if p in overrides else chunks[p] for p in self._positions]
        return [chunks[p] for p in self._positions]

    def redacted(self) -> dict[int, str]:
        """Input index -> masked text of the allowed chunks a ``redact`` rule masked."""
        return {
            d.index: d.chunk.text for d in self._overrides.values() if d.allowed and d.redactions
        }

    def denied_stages(self) -> dict[str, int]:
        """How many chunks each stage withheld."""
        stages: dict[str, int] = {}
        for position in sorted(self._denied):
            stage = self._denied[position][0]
            stages[stage] = stages.get(stage, 0) + 1
        return stages

    def _decision(self, position: int) -> ChunkDecision:
        decision = self._built[position]
        if decision is None and position in self._overrides:
            decision = self._built[position] = self._overrides[position]
        if decision is None:
            chunk = self._chunks[position]
            labels = self._labels.get(position, frozenset())
            verdict = self._denied.get(position)
            if verdict is None:
                decision = ChunkDecision(position, chunk, True, PASSED, self._passed, None, labels)
            else:
                stage, reason = verdict
                rule = self._rules.get(position)
                decision = ChunkDecision(position, chunk, False, stage, reason, rule, labels)
            self._built[position] = decision
        return decision

    def __len__(self) -> int:
        return len(self._built)

    @overload
    def __getitem__(self, position: int) -> ChunkDecision: ...

    @overload
    def __getitem__(self, position: slice) -> tuple[ChunkDecision, ...]: ...

    def __getitem__(self, position: int | slice) -> ChunkDecision | tuple[ChunkDecision, ...]:
        if isinstance(position, slice):
            return tuple(self._decision(p) for p in range(len(self._built))[position])
        size = len(self._built)
        if not -size <= position < size:
            raise IndexError(f"decision {position} out of range for {size} chunks")
        return self._decision(position % size)

    def __iter__(self) -> Iterator[ChunkDecision]:
        return (self._decision(p) for p in range(len(self._built)))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, ChunkDecisions | tuple):
            return tuple(self) == tuple(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # equal by content, like the tuple it stands for

    def __repr__(self) -> str:
        return f"ChunkDecisions({list(self)!r})"


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

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle with the evidence as a plain dict (the shared empty one is read-only, which
        pickle cannot carry), so a result or ``ContextBlocked`` crosses processes."""
        values = (getattr(self, item.name) for item in fields(self))
        return (type(self), tuple(dict(v) if isinstance(v, Mapping) else v for v in values))


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

    def to_dict(self, *, include_text: bool = True) -> dict[str, Any]:
        """JSON-ready record; each link as ``[a, b, key, value]``, or without ``include_text``
        as ``[a, b, key]`` (the shared value is the chunks' own)."""
        return {
            "rule": self.rule,
            "action": self.action,
            "message": self.message,
            "labels": list(self.labels),
            "chunks": list(self.chunk_indices),
            "scope": self.scope,
            "links": [
                [lk.a, lk.b, lk.key, lk.value] if include_text else [lk.a, lk.b, lk.key]
                for lk in self.links
            ],
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
    decisions: Sequence[ChunkDecision]
    violations: tuple[Violation, ...] = ()
    warnings: tuple[Violation, ...] = ()
    bridges: tuple[Bridge, ...] = ()
    unknown_labels: Mapping[int, frozenset[str]] = field(default_factory=dict)
    refusal: str | None = None
    request: RequestInfo | None = None
    notices: tuple[str, ...] = ()
    shadow: GuardResult | None = None
    dropped_labels: Mapping[int, frozenset[str]] = field(default_factory=dict)
    """Labels a classifier answered outside its vocabulary, per input position (not applied)."""
    access_source: AccessRecord | None = None
    """The access source asked and its consistency token, and the copied ACLs' ages."""

    def __post_init__(self) -> None:
        # Decisions given as a tuple are wrapped once, so every reader below takes one path.
        if not isinstance(self.decisions, ChunkDecisions):
            object.__setattr__(self, "decisions", ChunkDecisions.of(self.decisions))

    @property
    def allowed(self) -> list[Chunk]:
        """The chunks that may reach the LLM, in input order."""
        return _lazy(self.decisions).allowed_chunks()

    @property
    def allowed_indices(self) -> tuple[int, ...]:
        """Input positions of the allowed chunks (adapters return their own objects by these)."""
        return _lazy(self.decisions).allowed_indices

    @property
    def redacted(self) -> dict[int, str]:
        """Input position -> masked text, for allowed chunks a ``redact`` rule masked: adapters
        hand the LLM a copy of their own object with this text."""
        return _lazy(self.decisions).redacted()

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
        stages = _lazy(self.decisions).denied_stages()
        return {
            "query_allowed": self.query.allowed,
            "tier": self.query.tier,
            "intents": list(self.query.intents),
            "chunks": len(self.decisions),
            "allowed": len(self.allowed_indices),
            "denied_by_stage": stages,
            "redacted": len(self.redacted),
            "violations": [v.rule for v in self.violations],
            "warnings": [w.rule for w in self.warnings],
            "is_safe": self.is_safe,
            "refusal": self.refusal,
            "notices": list(self.notices),
        }

    def audit(self, *, include_query: bool = False) -> dict[str, Any]:
        """Audit record v2 (schema ``schemas/audit-v2.json``): request id, time, principal,
        access, the audit key's id, the query's keyed hash, policy names and sha256, and per
        chunk its id, keyed content hash, decision, stage, rule, recorded reason and labels.
        Nothing a chunk holds; the query text only when ``include_query``."""
        return audit_record(self, include_query=include_query)

    def to_dict(self, *, include_text: bool = True) -> dict[str, Any]:
        """The JSON-ready decisions. Without ``include_text`` nothing a chunk holds: no text,
        metadata or link values, reasons in their record form, and labels outside the policy's
        vocabulary (the chunk's or a model's own) only counted."""
        names = self.request.names if self.request is not None else frozenset()
        out = [d.to_dict(include_text=include_text, names=names) for d in self.decisions]
        return {
            "query": self.query.to_dict(),
            "allowed": list(self.allowed_indices),
            "is_safe": self.is_safe,
            "refusal": self.refusal,
            "decisions": out,
            "violations": [v.to_dict(include_text=include_text) for v in self.violations],
            "warnings": [w.to_dict(include_text=include_text) for w in self.warnings],
            "bridges": [{"label": b.label, "rules": list(b.rules)} for b in self.bridges],
            "unknown_labels": _labels_by_chunk(self.unknown_labels, include_text),
            "notices": list(self.notices),
            "dropped_labels": _labels_by_chunk(self.dropped_labels, include_text),
        }

    def _repr_html_(self) -> str:
        return result_html(self)


def _labels_by_chunk(
    labels: Mapping[int, frozenset[str]], include_text: bool
) -> dict[str, list[str] | int]:
    """Labels per chunk position, sorted; without ``include_text`` their number only (labels
    outside the vocabulary are the chunk's or a model's own words)."""
    return {str(i): sorted(found) if include_text else len(found) for i, found in labels.items()}


def _lazy(decisions: Sequence[ChunkDecision]) -> ChunkDecisions:
    return decisions if isinstance(decisions, ChunkDecisions) else ChunkDecisions.of(decisions)


_MAX_DEPTH = 32


def _jsonable(value: Any, depth: int = 0) -> Any:
    """Metadata as JSON can hold it: mappings and sequences kept, anything else as str; values
    nested deeper than 32 levels become a placeholder instead of exhausting the stack."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if depth >= _MAX_DEPTH:
        return "<nested too deep>"
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        items = [_jsonable(v, depth + 1) for v in value]
        return sorted(items, key=str) if isinstance(value, set | frozenset) else items
    return str(value)
