"""The access stage that runs first: the live bulk check of an access source over every
retrieved candidate, and the age bound on ACLs copied into chunk metadata at ingestion."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rag_guard_integrations.authz.source import (
    AccessSource,
    Answers,
    Scope,
    distinct,
    error_name,
    principal_problem,
    resource_of,
)
from rag_guard_integrations.core.access_record import AccessRecord, AclAges
from rag_guard_integrations.core.arguments import a_type
from rag_guard_integrations.core.reasons import Reason
from rag_guard_integrations.guards.recency import RecencyGuard, _as_datetime, utc_now
from rag_guard_integrations.guards.stage import UNCONSTRAINED, Judged, Part, Pushdown, StageSpec

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from datetime import datetime

    from rag_guard_integrations.core.access import AccessContext
    from rag_guard_integrations.core.chunk import Chunk
    from rag_guard_integrations.core.stage import Request
    from rag_guard_integrations.guards.stage import StageInputs
    from rag_guard_integrations.policy.schema import Policy

STAGE = "authz"
Denials = dict[int, tuple[str, str]]
"""Input position -> (stage, reason) of each chunk a stage denied."""


class AclAgeGuard(RecencyGuard):
    """Deny a chunk whose copied ACL (the date in ``field``) is older than the bound, undated
    or in the future: the copy may no longer say who can see the chunk.

    Example:
        >>> from datetime import datetime, timezone
        >>> from rag_guard_integrations import Chunk
        >>> guard = AclAgeGuard("acl_synced_at", 1,
        ...                     clock=lambda: datetime(2026, 12, 1, tzinfo=timezone.utc))
        >>> guard(Chunk("...", {"acl_synced_at": "2026-11-20"}), None)
        'acl_synced_at 2026-11-20 is 11 days old, over the 1 allowed'
    """

    name = "acl_age"

    def age_seconds(self, chunk: Chunk) -> int | None:
        """How old the chunk's ACL copy is, in whole seconds, or None when it carries no date."""
        when = _as_datetime(chunk.metadata.get(self.field))
        return None if when is None else int((self.clock() - when).total_seconds())


@dataclass(frozen=True, slots=True)
class LiveAccess:
    """Judges every candidate before any other stage (filtering is not authorisation).

    With an access ``source``, each chunk's resource (see :func:`resource_of`) is checked live
    in one bulk call per request; a chunk is allowed only when the source grants its resource.
    An error in the source, an answer of the wrong type, a resource it did not answer about, a
    chunk with no resource id and an unusable principal all deny (fail closed); a reason names
    an error's type only, never its message, which may quote what was asked about. Without a
    source, ``acl_age`` denies chunks whose copied ACL is older than the policy's bound; with
    one, the live answer decides and the ages are only recorded.

    Example:
        >>> from rag_guard_integrations import AccessContext, Chunk
        >>> from rag_guard_integrations.authz.source import Answers
        >>> class OnlyD1:
        ...     name, resource_key = "demo", "doc_id"
        ...     def check(self, principal, resources):
        ...         return Answers(frozenset({"d1"}) & set(resources), "v1")
        ...     def scope(self, principal):
        ...         return Scope.bounded({"d1"}, "doc_id", self.name)
        >>> live = LiveAccess(OnlyD1())
        >>> chunks = [Chunk("a", {"doc_id": "d1"}), Chunk("b", {"doc_id": "d2"})]
        >>> denied, record = live.judge(chunks, AccessContext("alice"))
        >>> denied, record.granted
        ({1: ('authz', "demo: not granted for resource 'd2'")}, 1)
    """

    source: AccessSource | None
    acl_age: AclAgeGuard | None = None
    reports = "access_source"

    @classmethod
    def of(
        cls,
        policy: Policy,
        source: AccessSource | None,
        clock: Callable[[], datetime] = utc_now,
    ) -> LiveAccess | None:
        """The stage for ``policy`` and ``source``, or None when neither asks for one."""
        spec = policy.acl_freshness
        acl_age = None if spec is None else AclAgeGuard(spec.field, spec.max_age_days, clock)
        if source is None and acl_age is None:
            return None
        return cls(source, acl_age)

    @property
    def name(self) -> str:
        """The stage name its denials carry: ``authz`` with a source, else ``acl_age``."""
        return STAGE if self.source is not None else "acl_age"

    def prepare(self, request: Request) -> Part:
        """Who is asking (the scope is asked for only when the pushdown is read)."""
        return Part(request.access)

    def pushdown(self, part: Part, request: Request) -> Pushdown:
        """The caller's scope, and its ids as a constraint when it is bounded (None: empty)."""
        scope = self.scope(request.access)
        if scope is None:
            return UNCONSTRAINED
        scoped = scope.constraints()
        return Pushdown(None if scoped is None else dict(scoped), scope)

    def check_many(self, chunks: Sequence[Chunk], state: AccessContext | None) -> Judged:
        """:meth:`judge` as verdicts in order, with the access record they report."""
        denied, record = self.judge(chunks, state)
        verdicts: list[str | None] = [None] * len(chunks)
        for index, (_, reason) in denied.items():
            verdicts[index] = reason
        return Judged(verdicts, record)

    def judge(
        self, chunks: Sequence[Chunk], access: AccessContext | None
    ) -> tuple[Denials, AccessRecord]:
        """The chunks denied (position -> stage and reason) and the record of the check; if
        the stage itself fails, every chunk is denied."""
        try:
            return self._judge(chunks, access)
        except Exception as error:  # fail closed: nothing passes a stage that could not judge
            failed = type(error).__name__
            stage = STAGE if self.source is not None else "acl_age"
            reason = (stage, Reason.fixed(f"{stage} check failed ({failed}); denied (fail closed)"))
            name = None if self.source is None else self.source.name
            return dict.fromkeys(range(len(chunks)), reason), AccessRecord(name, failure=failed)

    def _judge(
        self, chunks: Sequence[Chunk], access: AccessContext | None
    ) -> tuple[Denials, AccessRecord]:
        ages = self._ages(chunks)
        if self.source is None:
            assert self.acl_age is not None  # of() builds no stage without either
            denied: Denials = {}
            for index, chunk in enumerate(chunks):
                if (reason := self.acl_age(chunk, None)) is not None:
                    denied[index] = ("acl_age", reason)
            return denied, AccessRecord(None, acl_ages=ages)
        return self._check(self.source, chunks, access, ages)

    def _check(
        self,
        source: AccessSource,
        chunks: Sequence[Chunk],
        access: AccessContext | None,
        ages: AclAges | None,
    ) -> tuple[Denials, AccessRecord]:
        name = source.name
        principal = None if access is None else access.principal
        if (problem := principal_problem(principal)) is not None:
            reason = (STAGE, Reason.fixed(f"{name}: {problem}; denied (fail closed)"))
            return dict.fromkeys(range(len(chunks)), reason), AccessRecord(name, acl_ages=ages)
        denied: Denials = {}
        resources: dict[int, str] = {}
        for index, chunk in enumerate(chunks):
            resource, problem = resource_of(chunk.metadata, chunk.id, source.resource_key)
            if resource is None:
                denied[index] = (STAGE, Reason.fixed(f"{name}: {problem}; denied"))
            else:
                resources[index] = resource
        asked = distinct(resources.values())
        if not asked:
            return denied, AccessRecord(name, acl_ages=ages)
        assert principal is not None  # principal_problem refuses None
        try:
            answers: object = source.check(principal, asked)
        except Exception as error:  # a broken or unreachable source denies every chunk
            answers = error
        if not isinstance(answers, Answers) or (malformed := _malformed(answers)):
            failed = (
                error_name(answers)
                if isinstance(answers, BaseException)
                else f"answered a {type(answers).__name__}"
                if not isinstance(answers, Answers)
                else f"answered a malformed Answers: {malformed}"
            )
            reason = (STAGE, Reason.fixed(f"{name} check failed ({failed}); denied (fail closed)"))
            denied.update(dict.fromkeys(resources, reason))
            return denied, AccessRecord(name, None, len(asked), 0, failed, ages)
        for index, resource in resources.items():
            why = answers.why_denied(resource)
            if why is not None:
                # The resource id is the chunk's own value: the record names the answer only.
                # The source's own words may quote the resource: records say only "denied".
                text = f"{name}: {why} for resource {resource!r}"
                denied[index] = (STAGE, Reason(text, f"{name}: denied"))
        granted = sum(resource in answers.granted for resource in asked)
        return denied, AccessRecord(name, answers.token, len(asked), granted, None, ages)

    def _ages(self, chunks: Sequence[Chunk]) -> AclAges | None:
        if self.acl_age is None:
            return None
        ages = [self.acl_age.age_seconds(chunk) for chunk in chunks]
        dated = [age for age in ages if age is not None]
        oldest, newest = (max(dated), min(dated)) if dated else (None, None)
        return AclAges(self.acl_age.field, oldest, newest, len(ages) - len(dated))

    def scope(self, access: AccessContext | None) -> Scope | None:
        """What the caller may see, for pushdown (None without a source). An unusable principal
        gets the empty scope (nothing can pass); a source that fails, answers with something
        else than a :class:`Scope`, or scopes another key gets an unbounded one (nothing is
        pushed down; the bulk check still decides)."""
        source = self.source
        if source is None:
            return None
        principal = None if access is None else access.principal
        if principal_problem(principal) is not None or principal is None:
            return Scope.bounded((), source.resource_key, source.name)
        try:
            scope = source.scope(principal)
        except Exception as error:  # the scope only saves work: a failure bounds nothing
            return Scope.unbounded(source.name, f"scope failed ({error_name(error)})")
        if not isinstance(scope, Scope) or scope.key != source.resource_key:
            return Scope.unbounded(source.name, "the source answered with another kind of scope")
        return scope


def _stage(policy: Policy, inputs: StageInputs) -> LiveAccess | None:
    return LiveAccess.of(policy, inputs.access_source)


STAGE_SPEC = StageSpec(STAGE, "acl_freshness (and Guard(access_source=...))", "chunk", _stage)


def _malformed(answers: Answers) -> str | None:
    """What is wrong with a source's ``answers`` beyond their type, or None: ``granted`` must
    be a set of str (a string would grant its substrings, a mapping its keys, a generator
    nothing twice), ``token`` a str or None, ``reasons`` a mapping of str."""
    granted, token, reasons = answers.granted, answers.token, answers.reasons
    if not isinstance(granted, frozenset | set) or not all(isinstance(g, str) for g in granted):
        return f"granted is {a_type(granted)}, not a set of str"
    if token is not None and not isinstance(token, str):
        return f"token is {a_type(token)}, not a str"
    if not isinstance(reasons, Mapping) or not all(isinstance(r, str) for r in reasons.values()):
        return "reasons is not a mapping of str"
    return None
