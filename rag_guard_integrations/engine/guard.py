"""The Guard pipeline: plans a request once, runs the engine's stages in order over the chunks
retrieved for it, labelling and the set stage last, records every decision, and fails closed."""

from __future__ import annotations

import logging
import secrets
from dataclasses import replace
from functools import partial
from itertools import compress
from operator import is_
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from rag_guard_integrations.core import keys
from rag_guard_integrations.core.access import AccessContext, AccessLike
from rag_guard_integrations.core.audit import RequestInfo
from rag_guard_integrations.core.chunk_list import coerce_chunks
from rag_guard_integrations.core.constraints import Constraints
from rag_guard_integrations.core.decisions import GuardResult, QueryDecision
from rag_guard_integrations.core.errors import (
    ArgumentError,
    ContextBlocked,
    InputError,
    MissingExtraError,
)
from rag_guard_integrations.core.normalize import normalize
from rag_guard_integrations.core.reasons import Reason
from rag_guard_integrations.core.records import slot_filler
from rag_guard_integrations.core.stage import ChunkCheck, Request
from rag_guard_integrations.engine import stages
from rag_guard_integrations.engine.audit import policy_identity, publish, record_names
from rag_guard_integrations.engine.labelling import Labelling, aattempt, attempt, take_labels
from rag_guard_integrations.engine.notices import policy_notices, request_notices
from rag_guard_integrations.engine.plan import (
    NO_QUERY_STAGE,
    RequestPlan,
    join,
    query_decision,
    unseen,
)
from rag_guard_integrations.engine.run import Run, stage_reasons
from rag_guard_integrations.engine.shadow import Shadow
from rag_guard_integrations.engine.verdicts import Verdicts
from rag_guard_integrations.guards.domain_collection import CollectionIdentifiers
from rag_guard_integrations.guards.stage import Judged, Part, StageInputs
from rag_guard_integrations.policy.loader import load_policy
from rag_guard_integrations.policy.schema import Policy

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

    from rag_guard_integrations.authz.source import AccessSource, Scope
    from rag_guard_integrations.classify.base import Classifier
    from rag_guard_integrations.core.chunk import Chunk
    from rag_guard_integrations.core.keys import AuditKeyLike
    from rag_guard_integrations.embeddings import Embedder
    from rag_guard_integrations.guards.domain_identifiers import IdentifierLookup
    from rag_guard_integrations.guards.stage import Kind, QueryStage, SetStage
    from rag_guard_integrations.policy.loader import PolicyRef


logger = logging.getLogger("rag_guard_integrations")
FETCH_FACTOR = 4
_IS_NONE = partial(is_, None)
# The request and plan of every check, with every field known: filled slot by slot.
_new_request = slot_filler(Request)
_new_plan = slot_filler(RequestPlan)


def fetch_size(k: int, fetch_k: int | None = None) -> int:
    """How many candidates to ask a retriever for so that ``k`` allowed ones can remain.

    ``fetch_k`` when given (never below ``k``), else ``FETCH_FACTOR`` x ``k``.

    Example:
        >>> fetch_size(4), fetch_size(4, fetch_k=10), fetch_size(4, fetch_k=2)
        (16, 10, 4)
    """
    return max(k, fetch_k if fetch_k is not None else FETCH_FACTOR * k)


class Guard:
    """Checks retrieved chunks against one policy before they can become prompt context.

    The stages come from one ordered list (:data:`rag_guard_integrations.engine.stages.
    STAGES`): each stage whose section the policy configures runs, in that order, the set
    stage (the combination rules) last. A request is read once, by :meth:`plan`, and checked
    with :meth:`check`; ``check(query, chunks, access=...)`` plans inside. ``checks`` adds your
    own per-chunk checks (objects with a ``name`` and ``__call__(chunk, request) -> reason |
    None``), run after the policy's chunk stages. A check can only deny; one that raises
    denies the chunk (a stage that raises while reading the query rejects the query).
    ``guard.stages`` maps the name of each stage the policy configures to it, for inspection.

    Args:
        policy: the merged policy (:func:`load_policy`).
        classifier: labels chunks for the combination rules as ``classify`` says; the policy's
            pattern recognisers label every chunk anyway (``recognizers: always``).
        embedder: the domain guard's embedder; by default the offline MiniLM.
        checks: extra per-chunk checks.
        identifiers: the collection's standard identifiers, or a lookup that answers whether
            it holds one, for the domain guard's tier 2.
        audit_key: the secret the audit record's content and query hashes are keyed with
            (HMAC-SHA256; bytes or a str of at least 16 bytes); by default
            ``$RAG_GUARD_AUDIT_KEY``, else a random key of the process, with a notice (see
            :mod:`rag_guard_integrations.core.keys`). Records name it by its id only.
        access_source: an authorization system (:class:`~rag_guard_integrations.authz.
            AccessSource`) asked live about every candidate before any other stage, the query
            gate included; its scope joins :meth:`prefilter`.

    A check's reason reaches records in its record form: return a
    :class:`~rag_guard_integrations.core.reasons.Reason` from your own check to have it
    recorded (a plain string is recorded as ``"<name>: reason not recorded ..."``, since it may
    quote the chunk).

    Example:
        >>> from rag_guard_integrations import AccessContext, Guard
        >>> guard = Guard.from_policy("contracts")
        >>> chunks = [{"text": "Either party may terminate on thirty (30) days' written notice.",
        ...            "meta": {"contract_type": "MSA", "clause_id": "TERMINATION_NOTICE"}}]
        >>> result = guard.check("What is the termination notice period?", chunks,
        ...                      access=AccessContext(contract_type={"MSA"}))
        >>> len(result.allowed), result.refusal
        (1, None)
    """

    def __init__(
        self,
        policy: Policy,
        classifier: Classifier | None = None,
        embedder: Embedder | None = None,
        checks: Iterable[ChunkCheck] = (),
        identifiers: Iterable[str] | IdentifierLookup = (),
        *,
        audit_key: AuditKeyLike = None,
        access_source: AccessSource | None = None,
    ) -> None:
        if not isinstance(policy, Policy):
            raise ArgumentError(
                f"Guard: policy must be a loaded Policy, got {type(policy).__name__}; "
                "pass load_policy(...) or use Guard.from_policy('contracts')"
            )
        self.policy = policy
        self.audit_key = keys.audit_key(audit_key)
        self.access_source = access_source
        given = identifiers if callable(identifiers) else tuple(identifiers)
        extra = tuple(checks)
        # Without identifiers given, tier 2 reads those an adapter teaches it (learn_identifiers);
        # not where callers may see different chunks (an access source, or checks of the
        # caller's own, which may be per caller too).
        per_caller = access_source is not None or bool(extra)
        self.learned: CollectionIdentifiers | None = (
            given
            if isinstance(given, CollectionIdentifiers)
            else None
            if given
            else CollectionIdentifiers.learning(policy, per_caller=per_caller)
        )
        self._inputs = StageInputs(
            embedder, given if self.learned is None else self.learned, access_source
        )
        self._extra = extra
        # The checks given besides the policy's stages (what a stored reference cannot rebuild).
        self.extra_checks: tuple[ChunkCheck, ...] = self._extra
        built = stages.build(policy, self._inputs, self._extra)
        self._stages: tuple[tuple[Kind, Any], ...] = built.ordered
        # Each stage the policy configures, by name (read-only), for inspection.
        self.stages: Mapping[str, Any] = MappingProxyType(built.names)
        self.checks = built.chunk_stages
        self._set_stage: SetStage | None = built.set_stage
        self._query_refusal = next(
            (stage.refusal for kind, stage in self._stages if kind == "query"), None
        )
        self._token = secrets.token_hex(8)
        self._warned_extra = False  # a missing extra that refuses every query: logged once
        self.recognizers = self._recognizers()
        self.classifier = self._bind(classifier)
        self._reads_labels = self._set_stage is not None or policy.checks_vocabulary
        self._labelling = Labelling(policy, self._set_stage, self.recognizers, self.classifier)
        names = [stage.name for kind, stage in self._stages if kind != "query"]
        passed = Reason.fixed("passed " + ", ".join(names))
        self._verdicts = Verdicts(policy, passed, self._nothing_can_pass)
        self._identity = policy_identity(policy)
        self._record_names = record_names(policy)
        self._notices = policy_notices(policy, self.classifier, self.audit_key)
        self._shadow = Shadow.of(policy)

    @classmethod
    def from_policy(
        cls,
        *refs: PolicyRef,
        classifier: Classifier | None = None,
        embedder: Embedder | None = None,
        checks: Iterable[ChunkCheck] = (),
        identifiers: Iterable[str] | IdentifierLookup = (),
        audit_key: AuditKeyLike = None,
        access_source: AccessSource | None = None,
    ) -> Guard:
        """A guard for policies, built-in names or paths, merged in order. Every
        ``from_policy`` of the package takes such references as :func:`load_policy` does (a
        Policy, a built-in name or a path); the stages' own take one, this one several.

        ``identifiers`` are the collection's standard identifiers (for instance
        ``collection_identifiers(chunks, policy.domain.identifier_keys)`` over the corpus):
        the domain guard accepts a query that names one of them, whatever was retrieved; or a
        lookup the retriever or index provides (see :class:`DomainGuard`). ``access_source``
        is the authorization system asked live about every candidate (see :class:`Guard`).
        """
        return cls(
            load_policy(*refs),
            classifier=classifier,
            embedder=embedder,
            checks=checks,
            identifiers=identifiers,
            audit_key=audit_key,
            access_source=access_source,
        )

    def _recognizers(self) -> Classifier | None:
        """The policy's pattern recognisers, run on every chunk that is labelled whatever its
        metadata claims (``recognizers: always``): index metadata only adds labels."""
        policy = self.policy
        if self._set_stage is None or not (
            policy.classifiers.patterns or policy.classifiers.builtin
        ):
            return None
        from rag_guard_integrations.classify.pattern import PatternClassifier  # noqa: PLC0415

        return PatternClassifier.from_policy(policy).bind(policy.vocabulary)

    def __repr__(self) -> str:
        """The policies by the names they were loaded under and the first 12 hex digits of the
        merged policy's sha256 (the audit record's ``policy.sha256``); the access source by type.

        Example:
            >>> Guard.from_policy("contracts", "default")  # doctest: +ELLIPSIS
            Guard(policies=['contracts', 'default'], sha256=...)
        """
        names, digest = self._identity
        source = (
            ""
            if self.access_source is None
            else f", access_source={type(self.access_source).__name__}"
        )
        return f"Guard(policies={list(names)!r}, sha256={digest[:12]}{source})"

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle and copy as the policy, classifier, embedder, extra checks, identifiers and
        audit key and access source (a worker keys its records as this guard does); the compiled
        (RE2) state is rebuilt. The process-wide MiniLM embedder pickles as a reference. A copy
        accepts this guard's plans."""
        inputs = self._inputs
        rebuild = partial(type(self), audit_key=self.audit_key, access_source=self.access_source)
        args = (self.policy, self.classifier, inputs.embedder, self._extra, inputs.identifiers)
        return (rebuild, args, {"_token": self._token})

    def _bind(self, classifier: Classifier | None) -> Classifier | None:
        if self.policy.classify == "never" or self._set_stage is None:
            return None
        if classifier is None:
            # Under ``recognizers: always`` the recognisers already label every chunk.
            return None if self.policy.recognizers == "always" else self.recognizers
        return classifier.bind(self.policy.vocabulary)

    def learn_identifiers(self, metadatas: Iterable[Mapping[str, Any]]) -> int:
        """Teach the domain gate's tier 2 the standard identifiers a collection holds, from its
        chunks' metadata (the policy's ``identifier_keys``; text never counts). The guarded
        retrievers do it themselves: from the whole store at first use where the store can be
        listed, else from each retrieved set. Returns how many identifiers were new; 0 when
        the guard learns none: no domain section, ``identifiers=`` given when it was built, or
        callers who see different chunks (access attributes or an access source), for whom a
        learned identifier would tell one caller what exists among another's chunks.

        Example:
            >>> guard = Guard.from_policy("bis")
            >>> guard.check("IS 2062 scope", []).query.tier
            'below_threshold'
            >>> guard.learn_identifiers([{"standard": "IS 2062"}])
            1
            >>> guard.check("IS 2062 scope", []).query.tier
            'identifier'
        """
        return 0 if self.learned is None else self.learned.learn_metadata(metadatas)

    def plan(self, query: str, access: AccessLike = None) -> RequestPlan:
        """Read ``query`` for ``access`` once, before anything is retrieved: the query
        normalised, the clause ids it asks for, each stage's reading of it, the pushdown filter
        and a rejection that needs no chunk (see :class:`RequestPlan`). Hand the plan to
        :meth:`check` with the chunks retrieved for it; nothing of the query is read again.

        In ``mode: shadow`` the plan pushes nothing down and rejects nothing (the check still
        evaluates and records everything).

        Example:
            >>> guard = Guard.from_policy("contracts")
            >>> plan = guard.plan("What is the termination notice period?",
            ...                   {"contract_type": ["MSA"]})
            >>> plan.intents, plan.constraints
            (('TERMINATION_NOTICE',), Constraints(contract_type=all:['MSA'], \
clause_id=all:['TERMINATION_NOTICE']))
            >>> chunks = [{"text": "Either party may terminate on thirty (30) days' notice.",
            ...            "meta": {"contract_type": "MSA", "clause_id": "TERMINATION_NOTICE"}}]
            >>> len(guard.check(plan, chunks).allowed)
            1
        """
        return self._plan(query, AccessContext.coerce(access), pushdown=True)

    def check(
        self, query: str | RequestPlan, chunks: Sequence[Any], access: AccessLike = None
    ) -> GuardResult:
        """Decide which of ``chunks`` may reach the LLM for a request: a :meth:`plan`, or a
        ``query`` and ``access`` (planned here). ``access`` with a plan is an ArgumentError:
        the plan holds who is asking."""
        run = self._start(self._planned(query, access), chunks)
        for labeller, indices, stage in self._labelling.labellers(run):
            texts = list(map(run.chunks.texts.__getitem__, indices))
            take_labels(run, indices, attempt(labeller.classify_many, texts), stage)
        return self._conclude(run)

    async def acheck(
        self, query: str | RequestPlan, chunks: Sequence[Any], access: AccessLike = None
    ) -> GuardResult:
        """Async twin of :meth:`check`: classification awaits the classifier's async path."""
        run = self._start(self._planned(query, access), chunks)
        for labeller, indices, stage in self._labelling.labellers(run):
            texts = list(map(run.chunks.texts.__getitem__, indices))
            found = await aattempt(labeller.aclassify_many, texts)
            take_labels(run, indices, found, stage)
        return self._conclude(run)

    def prefilter(self, query: str, access: AccessLike = None) -> Constraints | None:
        """What every chunk this guard could allow must carry, for a retriever to push into its
        store (:attr:`RequestPlan.constraints` of :meth:`plan`): each access attribute -> the
        caller's allowlist with the policy's match mode, ``clause_id`` -> the clause ids the
        query asks for, and an access source's bounded scope.

        None when no chunk could pass (an attribute with no allowed value, or a clause policy
        with ``on_no_intent: refuse`` and a query that asks for no clause; under
        ``access_only`` such a query pushes down the allowlists only); empty when nothing can
        be pushed down. Pushdown only saves work and recall: :meth:`check` still judges
        whatever comes back.

        Example:
            >>> Guard.from_policy("contracts").prefilter(
            ...     "termination notice period?", {"contract_type": ["MSA"]})
            Constraints(contract_type=all:['MSA'], clause_id=all:['TERMINATION_NOTICE'])
        """
        return self.plan(query, access).constraints

    def _planned(self, query: str | RequestPlan, access: AccessLike) -> RequestPlan:
        """The plan a check runs on: the one given (made by this guard), or one made here."""
        if not isinstance(query, RequestPlan):
            return self._plan(query, AccessContext.coerce(access), pushdown=False)
        if access is not None:
            raise ArgumentError(
                "check: access= was given with a plan, which holds who is asking; "
                "pass it to plan(query, access) instead"
            )
        if query.owner != self._token:
            raise ArgumentError(
                "check: the plan was made by another guard; make it with this guard's "
                "plan(query, access)"
            )
        return query

    def _plan(self, query: str, access: AccessContext | None, *, pushdown: bool) -> RequestPlan:
        """:meth:`plan`; without ``pushdown`` (a check that plans for itself) the pushdown is
        read only if the check needs it (nothing retrieved), since it may ask an access source."""
        if not isinstance(query, str):
            raise InputError(f"query must be a str, got {type(query).__name__}; decode it first")
        normalized = normalize(query)
        request = _new_request(query, normalized, (), access)
        parts: list[Part] = []
        failed = False
        for _, stage in self._stages:
            try:
                part = stage.prepare(request)
            except Exception as error:  # a stage that cannot read the query rejects it
                part, failed = Part(rejected=self._failure(error)), True
            if part.intents:
                request = _new_request(query, normalized, request.intents + part.intents, access)
            parts.append(part)
        rejected = next((part.rejected for part in parts if part.rejected is not None), None)
        enforced, scope = (None, None) if failed or not pushdown else self._pushdown(parts, request)
        refusal = rejected.refusal if rejected is not None else unseen(parts)
        shadow = self.policy.mode == "shadow"
        return _new_plan(
            query,
            normalized,
            access,
            request.intents,
            Constraints() if shadow else enforced,  # a store filter would enforce shadow mode
            scope,
            None if shadow else rejected,
            refusal or self.policy.no_context_refusal,
            None,
            self._token,
            tuple(parts),
            request,
            enforced,
            pushdown or failed,  # a query a stage failed on lets nothing pass: known already
        )

    def _pushdown(
        self, parts: Sequence[Part], request: Request
    ) -> tuple[Constraints | None, Scope | None]:
        """Every stage's pushdown contribution joined, for the policy as enforced."""
        try:
            return join(
                stage.pushdown(part, request)
                for (_, stage), part in zip(self._stages, parts, strict=True)
            )
        except Exception:  # a stage that cannot say what it allows lets nothing pass
            return None, None

    def _nothing_can_pass(self, run: Run) -> bool:
        """Whether the run's pushdown (of the policy as enforced) lets no chunk pass."""
        plan = run.plan
        if plan.pushed:
            return plan.enforced is None
        return self._pushdown(plan.parts, run.request)[0] is None

    def _failure(self, error: Exception) -> QueryDecision:
        """The rejection of a query a stage failed on (fail closed); its reason names the
        error's type only, since the message may quote a retrieved chunk, except for a
        missing extra, whose message is the package's own and names the install (also
        logged once per guard: every query is refused until it is installed)."""
        if isinstance(error, MissingExtraError):
            if not self._warned_extra:
                self._warned_extra = True
                logger.warning("every query is refused (fail closed): %s", error)
            reason = f"query check failed ({error}); denied (fail closed)"
        else:
            reason = f"query check failed ({type(error).__name__}); denied (fail closed)"
        return QueryDecision(False, "error", reason, refusal=self._query_refusal)

    def _start(self, plan: RequestPlan, chunks: Sequence[Any]) -> Run:
        items = coerce_chunks(chunks)
        request = plan.request
        assert request is not None  # every plan of this guard carries its request
        run = Run(plan, request, items, NO_QUERY_STAGE)  # decided below
        verdicts: list[QueryDecision] = []
        # Stage by stage over the chunks still in: each chunk is denied by the first stage that
        # denies it, as if the stages ran chunk by chunk; a rejected query denies what is left.
        remaining: Sequence[int] = range(len(items))
        for (kind, stage), part in zip(self._stages, plan.parts, strict=True):
            if kind == "set":
                break
            verdict = part.rejected
            if verdict is None and kind == "query":
                verdict = self._decide(stage, part, request, items.pick(remaining))
            if verdict is not None:
                verdicts.append(verdict)
                if not verdict.allowed:
                    why = Reason(
                        f"the query was rejected ({verdict.reason})",
                        f"the query was rejected (tier {verdict.tier})",
                    )
                    run.denied.update(dict.fromkeys(remaining, (stage.name, why)))
                    remaining = ()
                    break
                continue
            reasons = stage_reasons(stage, items.pick(remaining), part.state, request)
            if stage.reports is not None and isinstance(reasons, Judged):
                run.reported[stage.reports] = reasons.record
            if reasons.count(None) != len(reasons):
                for index, reason in zip(remaining, reasons, strict=True):
                    if reason is not None:
                        run.denied[index] = (stage.name, reason)
                remaining = list(compress(remaining, map(_IS_NONE, reasons)))
        run.query = query_decision(verdicts, plan)
        if self._reads_labels:
            self._labelling.read(run, remaining)
        return run

    def _decide(
        self, stage: QueryStage, part: Part, request: Request, chunks: Sequence[Chunk]
    ) -> QueryDecision:
        """``stage``'s verdict on the query; a stage that raises rejects it (fail closed)."""
        try:
            return stage.decide(part, request, chunks)
        except Exception as error:
            return self._failure(error)

    def _conclude(self, run: Run) -> GuardResult:
        """The applied result (with the whole evaluation alongside when parts are in shadow
        mode), published to the audit logger; raises when a block rule fired under
        ``on_block: raise``."""
        request = run.request
        run.info = RequestInfo.new(
            request.query,
            request.access,
            *self._identity,
            started_ns=run.started_ns,
            key=self.audit_key,
            names=self._record_names,
        )
        run.notices = self._notices + request_notices(self.policy, request.access)
        if self._shadow is None:
            result = self._verdicts.finish(run, self._set_stage)
        else:
            whole = replace(run, denied=dict(run.denied), masked={})
            evaluated = self._verdicts.finish(whole, self._set_stage)
            result = self._shadow.apply(evaluated, run.chunks, partial(self._verdicts.finish, run))
        publish(result)
        if self.policy.on_block == "raise" and any(v.action == "block" for v in result.violations):
            raise ContextBlocked(result)
        return result


def as_guard(value: object, owner: str) -> Guard:
    """The ``guard=`` of every adapter component: a Guard, or policy references (a built-in
    name, a path, a loaded Policy, or a list of them) made into one; anything else is an
    :class:`ArgumentError` naming ``owner``, the type and the fix.

    Example:
        >>> as_guard("contracts", "GuardedRetriever").policy.name
        'contracts'
        >>> as_guard(42, "GuardedRetriever")
        Traceback (most recent call last):
        ...
        rag_guard_integrations.core.errors.ArgumentError: GuardedRetriever: guard must be a \
Guard or policy references, got int; pass Guard.from_policy('contracts') or 'contracts'
    """
    if isinstance(value, Guard):
        return value
    refs = [value] if isinstance(value, str | Path | Policy) else value
    if (
        isinstance(refs, list | tuple)
        and refs
        and all(isinstance(ref, str | Path | Policy) for ref in refs)
    ):
        return Guard.from_policy(*refs)
    raise ArgumentError(
        f"{owner}: guard must be a Guard or policy references, got {type(value).__name__}; "
        "pass Guard.from_policy('contracts') or 'contracts'"
    )
