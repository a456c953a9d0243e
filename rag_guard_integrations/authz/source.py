"""The contract between the guard and an authorization system: a scope to push down and a bulk
check of the retrieved chunks, per principal, both failing closed."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from rag_guard_integrations.core.arguments import a_type
from rag_guard_integrations.core.constraints import Allowed, Constraints

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

# Characters that some engine or store reads as "any": never part of a principal this package
# hands to an engine, whatever the engine.
WILDCARD_CHARACTERS = frozenset("*?%")


@dataclass(frozen=True, slots=True)
class Scope:
    """What a principal may see, for a store to filter on before the search.

    ``ids`` are the resource ids the principal may see (values of the chunk metadata key
    ``key``; ``key`` None: the chunk's own id), or None when the source cannot bound them: it
    cannot list resources, its list was truncated, or the listing failed (``reason`` says which).
    A scope only saves work: the bulk check still judges every chunk that comes back.

    Example:
        >>> Scope.bounded(["d1", "d2"], "doc_id", "cedar").constraints()
        Constraints(doc_id=all:['d1', 'd2'])
        >>> Scope.unbounded("spicedb", "LookupResources stopped at 1000 results").constraints()
        Constraints()
        >>> Scope.bounded([], "doc_id", "cedar").constraints() is None
        True
    """

    source: str
    key: str | None
    ids: frozenset[str] | None
    reason: str
    token: str | None = None

    @classmethod
    def bounded(
        cls,
        ids: Iterable[str],
        key: str | None,
        source: str,
        token: str | None = None,
    ) -> Scope:
        """The scope of exactly ``ids``."""
        listed = frozenset(ids)
        return cls(source, key, listed, f"{len(listed)} resources listed", token)

    @classmethod
    def unbounded(
        cls, source: str, reason: str, key: str | None = None, token: str | None = None
    ) -> Scope:
        """A scope that bounds nothing, and why (nothing is pushed down)."""
        return cls(source, key, None, reason, token)

    @property
    def is_bounded(self) -> bool:
        """True when the ids are the complete list of what the principal may see."""
        return self.ids is not None

    def constraints(self) -> Constraints | None:
        """The scope as store constraints: the ids on ``key`` when bounded; empty (push nothing)
        when unbounded or keyed on the chunk id, which is no metadata attribute; None when it is
        bounded and empty (no chunk could pass)."""
        if self.ids is None:
            return Constraints()
        if not self.ids:
            return None
        if self.key is None:
            return Constraints()
        return Constraints({self.key: Allowed(self.ids)})


@dataclass(frozen=True, slots=True)
class Answers:
    """A bulk check's verdicts: the resources ``granted``; every other resource asked about is
    denied, with its reason in ``reasons`` where there is more to say than "not granted" (the
    engine could not decide: an error, a caveat without context, no answer). ``token`` is the
    consistency token or policy version the answers hold for.

    Example:
        >>> answers = Answers(frozenset({"d1"}), "zed:abc", {"d3": "no answer"})
        >>> answers.why_denied("d2"), answers.why_denied("d3")
        ('not granted', 'no answer')
    """

    granted: frozenset[str]
    token: str | None = None
    reasons: Mapping[str, str] = field(default_factory=dict)

    def why_denied(self, resource: str) -> str | None:
        """Why ``resource`` is denied, or None when it is granted."""
        if resource in self.granted:
            return None
        return self.reasons.get(resource, "not granted")


@runtime_checkable
class AccessSource(Protocol):
    """An authorization system the guard asks, per principal, what may be seen.

    ``name`` names the engine in records (``cedar``, ``casbin``, ``spicedb``); ``resource_key``
    is the chunk metadata key holding the resource id a chunk belongs to (None: the chunk's own
    id). ``check`` is the live bulk check: the guard calls it on every retrieved candidate
    before any other stage and denies whatever it does not grant. ``scope`` lists what the
    principal may see, for pushdown, or says it cannot. Both carry the consistency token or
    policy version they hold for, which the guard records. A principal reaches them only after
    :func:`principal_problem` found nothing wrong with it.

    Example:
        >>> class Allowlist:
        ...     name, resource_key = "allowlist", "doc_id"
        ...     def __init__(self, grants): self.grants = grants
        ...     def check(self, principal, resources):
        ...         return Answers(frozenset(r for r in resources
        ...                                  if r in self.grants.get(principal, ())))
        ...     def scope(self, principal):
        ...         return Scope.bounded(self.grants.get(principal, ()), "doc_id", self.name)
        >>> isinstance(Allowlist({"alice": {"d1"}}), AccessSource)
        True
    """

    name: str
    resource_key: str | None

    def check(self, principal: str, resources: Sequence[str]) -> Answers:
        """Which of ``resources`` (distinct ids) ``principal`` may see."""
        ...

    def scope(self, principal: str) -> Scope:
        """Every resource ``principal`` may see, or an unbounded scope saying why not."""
        ...


class ScopeCache:
    """Scopes by principal for one policy version, for engines whose scope evaluates every
    resource: a scope is reused only under the token it was computed at, so a changed policy
    is never answered from the cache. Holds at most ``size`` principals (oldest dropped).

    Example:
        >>> cache = ScopeCache(size=2)
        >>> cache.put("v1", "ana", Scope.bounded({"d1"}, None, "demo"))
        >>> cache.get("v1", "ana").ids, cache.get("v2", "ana")
        (frozenset({'d1'}), None)
    """

    def __init__(self, size: int = 1024) -> None:
        self.size = size
        self._token: str | None = None
        self._scopes: dict[str, Scope] = {}

    def get(self, token: str, principal: str) -> Scope | None:
        """The scope of ``principal`` computed at ``token``, or None."""
        return self._scopes.get(principal) if token == self._token else None

    def put(self, token: str, principal: str, scope: Scope) -> None:
        """Keep ``scope`` for ``principal`` at ``token`` (forgetting other versions)."""
        if token != self._token:
            self._token, self._scopes = token, {}
        if len(self._scopes) >= self.size:
            self._scopes.pop(next(iter(self._scopes)))
        self._scopes[principal] = scope


def principal_problem(principal: object) -> str | None:
    """Why ``principal`` cannot be asked about (None: it can). A missing, blank or padded
    principal, one with control or format characters, or one holding a character an engine
    reads as a wildcard never reaches an engine: the guard denies instead.

    Example:
        >>> principal_problem("alice") is None
        True
        >>> principal_problem(None), principal_problem("*")
        ('no principal', "the principal holds the wildcard character '*'")
    """
    if principal is None:
        return "no principal"
    if not isinstance(principal, str):
        return f"the principal is {a_type(principal)}, not a str"
    wild = sorted(WILDCARD_CHARACTERS.intersection(principal))
    checks = (
        (not principal.strip(), "the principal is blank"),
        (principal != principal.strip(), "the principal has surrounding whitespace"),
        (bool(wild), f"the principal holds the wildcard character {wild[0]!r}" if wild else ""),
        (
            any(unicodedata.category(ch) in {"Cc", "Cf", "Zl", "Zp"} for ch in principal),
            "the principal holds control or format characters",
        ),
    )
    return next((problem for failed, problem in checks if failed), None)


def resource_of(
    metadata: Mapping[str, object], chunk_id: str | None, key: str | None
) -> tuple[str | None, str]:
    """The resource id a chunk belongs to (from ``metadata[key]``, or ``chunk_id`` when
    ``key`` is None) and ``""``; or None and why it has none: the value is missing, blank,
    padded, or not one id (a chunk belongs to one resource).

    Example:
        >>> resource_of({"doc_id": "d1"}, None, "doc_id"), resource_of({}, "c1", None)
        (('d1', ''), ('c1', ''))
        >>> resource_of({"doc_id": ["d1", "d2"]}, None, "doc_id")
        (None, 'doc_id is a list, not one resource id')
    """
    value: object = chunk_id if key is None else metadata.get(key)
    where = "the chunk id" if key is None else key
    if value is None:
        return None, f"the chunk carries no {where}"
    if isinstance(value, bool) or not isinstance(value, str | int):
        return None, f"{where} is {a_type(value)}, not one resource id"
    text = str(value)
    if not text.strip() or text != text.strip():
        return None, f"{where} is blank or padded"
    return text, ""


def error_name(error: BaseException) -> str:
    """An error as a record may show it: its type, and a gRPC status code where it has one;
    never its message, which may quote what was asked about.

    Example:
        >>> error_name(TimeoutError("lookup of 'secret plans' timed out"))
        'TimeoutError'
    """
    name = type(error).__name__
    code = getattr(error, "code", None)
    if callable(code):
        try:
            status = code()
        except Exception:  # a code() that fails adds nothing
            return name
        return f"{name}: {getattr(status, 'name', status)}"
    return name


def distinct(resources: Iterable[str]) -> tuple[str, ...]:
    """``resources`` without repeats, in first-seen order (one question per resource)."""
    return tuple(dict.fromkeys(resources))
