"""The Guard pipeline: runs the query stage, the per-chunk checks, labelling and the
combination rules in order, records every decision, and fails closed."""

from __future__ import annotations

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
from rag_guard_integrations.core.chunk import Chunk, coerce_chunks
from rag_guard_integrations.core.constraints import Allowed, Constraints
from rag_guard_integrations.core.decisions import GuardResult, QueryDecision
from rag_guard_integrations.core.errors import ArgumentError, ContextBlocked, InputError
from rag_guard_integrations.core.normalize import normalize
from rag_guard_integrations.core.reasons import Reason
from rag_guard_integrations.core.records import slot_filler
from rag_guard_integrations.core.stage import ChunkCheck, Request
from rag_guard_integrations.engine.audit import policy_identity, publish, record_names
from rag_guard_integrations.engine.labelling import Labelling, aattempt, attempt, take_labels
from rag_guard_integrations.engine.notices import policy_notices, request_notices
from rag_guard_integrations.engine.run import Run, stage_reasons
from rag_guard_integrations.engine.shadow import Shadow
from rag_guard_integrations.engine.verdicts import Verdicts
from rag_guard_integrations.guards.clause import ClauseGuard
from rag_guard_integrations.guards.live_access import LiveAccess
from rag_guard_integrations.guards.registry import (
    QueryInputs,
    policy_checks,
    query_checks,
    set_check,
)
from rag_guard_integrations.policy.loader import load_policy
from rag_guard_integrations.policy.schema import Policy

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from rag_guard_integrations.authz.source import AccessSource
    from rag_guard_integrations.classify.base import Classifier
    from rag_guard_integrations.core.keys import AuditKeyLike
    from rag_guard_integrations.embeddings import Embedder
    from rag_guard_integrations.guards.domain_identifiers import IdentifierLookup
    from rag_guard_integrations.guards.registry import QueryCheck, SetCheck
    from rag_guard_integrations.policy.loader import PolicyRef


FETCH_FACTOR = 4
_IS_NONE = partial(is_, None)
# The query verdict without a domain guard or clause intents, shared (frozen, empty evidence).
_NO_QUERY_STAGE = QueryDecision(evidence=MappingProxyType({}))
# The request of every check, with every field known: filled slot by slot.
_new_request = slot_filler(Request)


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

    The stages come from one registry (:mod:`rag_guard_integrations.guards.registry`): each
    stage whose section the policy configures runs, the query stages first (the domain gate),
    then the per-chunk stages in order, then the set stage (the combination rules). ``checks``
    adds your own per-chunk checks (objects with a ``name`` and
    ``__call__(chunk, request) -> reason | None``), run after the policy's. A check can only
    deny; one that raises denies the chunk (a query stage that raises rejects the query).

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
        self.policy = policy
        self.audit_key = keys.audit_key(audit_key)
        self.access_source = access_source
        self.live = LiveAccess.of(policy, access_source)
        self._inputs = QueryInputs(
            embedder, identifiers if callable(identifiers) else tuple(identifiers)
        )
        self.query_checks: tuple[QueryCheck, ...] = query_checks(policy, self._inputs)
        self.combination: SetCheck | None = set_check(policy)
        self.checks: tuple[ChunkCheck, ...] = (*policy_checks(policy), *checks)
        self.clause = next((c for c in self.checks if isinstance(c, ClauseGuard)), None)
        self.recognizers = self._recognizers()
        self.classifier = self._bind(classifier)
        self._reads_labels = self.combination is not None or policy.declares_vocabulary
        self._labelling = Labelling(policy, self.combination, self.recognizers, self.classifier)
        stages = [*(self.live.stages if self.live else ()), *(c.name for c in self.checks)]
        stages += ["combination"] if self.combination else []
        passed = Reason.fixed("passed " + ", ".join(stages))
        # The evaluation behind shadow mode is the policy as enforced: it asks what an
        # enforcing prefilter would say (whether an empty retrieval could have held anything).
        self._verdicts = Verdicts(policy, passed, self._constraints)
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
        if self.combination is None or not (
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
        (RE2) state is rebuilt. The process-wide MiniLM embedder pickles as a reference."""
        extra = self.checks[len(policy_checks(self.policy)) :]
        inputs = self._inputs
        rebuild = partial(type(self), audit_key=self.audit_key, access_source=self.access_source)
        return (rebuild, (self.policy, self.classifier, inputs.embedder, extra, inputs.identifiers))

    def _bind(self, classifier: Classifier | None) -> Classifier | None:
        if self.policy.classify == "never" or self.combination is None:
            return None
        if classifier is None:
            # Under ``recognizers: always`` the recognisers already label every chunk.
            return None if self.policy.recognizers == "always" else self.recognizers
        return classifier.bind(self.policy.vocabulary)

    def check(self, query: str, chunks: Sequence[Any], access: AccessLike = None) -> GuardResult:
        """Decide which of ``chunks`` may reach the LLM for ``query`` and ``access``."""
        run = self._start(query, chunks, access)
        for labeller, indices, stage in self._labelling.labellers(run):
            texts = [run.chunks[i].text for i in indices]
            take_labels(run, indices, attempt(labeller.classify_many, texts), stage)
        return self._conclude(run)

    async def acheck(
        self, query: str, chunks: Sequence[Any], access: AccessLike = None
    ) -> GuardResult:
        """Async twin of :meth:`check`: classification awaits the classifier's async path."""
        run = self._start(query, chunks, access)
        for labeller, indices, stage in self._labelling.labellers(run):
            texts = [run.chunks[i].text for i in indices]
            found = await aattempt(labeller.aclassify_many, texts)
            take_labels(run, indices, found, stage)
        return self._conclude(run)

    def prefilter(self, query: str, access: AccessLike = None) -> Constraints | None:
        """What every chunk this guard could allow must carry, for a retriever to push into its
        store: each access attribute -> the caller's allowlist with the policy's match mode,
        and ``clause_id`` -> the clause ids the query asks for.

        None when no chunk could pass (an attribute with no allowed value, or a clause policy
        with ``on_no_intent: refuse`` and a query that asks for no clause; under
        ``access_only`` such a query pushes down the allowlists only); empty when nothing can
        be pushed down. Pushdown
        only saves work and recall: :meth:`check` still judges whatever comes back.

        Example:
            >>> Guard.from_policy("contracts").prefilter(
            ...     "termination notice period?", {"contract_type": ["MSA"]})
            Constraints(contract_type=all:['MSA'], clause_id=all:['TERMINATION_NOTICE'])
        """
        if self.policy.mode == "shadow":
            return Constraints()  # a store-side filter would enforce what shadow mode only records
        return self._constraints(query, access)

    def _constraints(self, query: str, access: AccessLike) -> Constraints | None:
        """:meth:`prefilter` of the policy as enforced, whatever its mode."""
        context = AccessContext.coerce(access)
        constraints: dict[str, Allowed] = {}
        for attribute in self.policy.access.attributes:
            allowed = context.allowlists.get(attribute) if context is not None else None
            if not allowed:
                return None
            constraints[attribute] = Allowed(allowed, self.policy.access.match_of(attribute))
        if self.clause is not None:
            if not isinstance(query, str):
                raise InputError(f"query must be a str, got {type(query).__name__}")
            narrowed = self.clause.constraints(normalize(query), context)
            if narrowed is None:
                return None
            constraints.update(narrowed)
        if self.live is not None and not self.live.join_scope(constraints, context):
            return None
        return Constraints(constraints)

    def _start(self, query: str, chunks: Sequence[Any], access: object) -> Run:
        if not isinstance(query, str):
            raise InputError(f"query must be a str, got {type(query).__name__}; decode it first")
        items = coerce_chunks(chunks)
        context = AccessContext.coerce(access)
        normalized = normalize(query)
        # Filtering is not authorisation: the access stage judges every candidate first, so no
        # later stage, the query gate included, sees a chunk the caller may not.
        denied, record = self.live.judge(items, context) if self.live else ({}, None)
        seen = [c for i, c in enumerate(items) if i not in denied] if denied else items
        decision = self._decide_query(query, normalized, seen, context)
        run = Run(_new_request(query, normalized, decision.intents, context), items, decision)
        run.denied, run.access_record = denied, record
        if not decision.allowed:
            why = Reason(
                f"the query was rejected ({decision.reason})",
                f"the query was rejected (tier {decision.tier})",
            )
            run.denied = dict.fromkeys(range(len(items)), ("domain", why)) | denied
            return run
        # Stage by stage over the chunks still in: each chunk is denied by the first stage that
        # denies it, as if the stages ran chunk by chunk.
        remaining: Sequence[int] = (
            [i for i in range(len(items)) if i not in denied] if denied else range(len(items))
        )
        for check in self.checks:
            chunks = items if len(remaining) == len(items) else [items[i] for i in remaining]
            reasons = stage_reasons(check, chunks, run.request)
            if reasons.count(None) != len(reasons):
                for index, reason in zip(remaining, reasons, strict=True):
                    if reason is not None:
                        run.denied[index] = (check.name, reason)
                remaining = list(compress(remaining, map(_IS_NONE, reasons)))
        if self._reads_labels:
            self._labelling.read(run, remaining)
        return run

    def _decide_query(
        self, query: str, normalized: str, items: list[Chunk], access: AccessContext | None
    ) -> QueryDecision:
        try:
            intents = self.clause.detect(normalized) if self.clause is not None else ()
            # A question naming contracts the caller may not see: what to answer if nothing passes.
            refusal = self.clause.refusal(normalized, access) if self.clause is not None else None
            if not self.query_checks:
                if not intents and refusal is None:
                    return _NO_QUERY_STAGE
                return QueryDecision(intents=intents, refusal=refusal)
            decision = self.query_checks[0].decide(query, items)
            for check in self.query_checks[1:]:  # a later stage can still reject the query
                if not decision.allowed:
                    break
                if not (later := check.decide(query, items)).allowed:
                    decision = later
        except Exception as error:  # a broken query stage rejects the query
            refusal = self.policy.domain.refusal if self.policy.domain else None
            # The query decision goes into every record whole: its reason names the error's type
            # only, since the message may quote a retrieved chunk.
            reason = f"query check failed ({type(error).__name__}); denied (fail closed)"
            return QueryDecision(False, "error", reason, refusal=refusal)
        if decision.allowed and refusal is not None:
            return replace(decision, intents=intents, refusal=refusal)
        return replace(decision, intents=intents)

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
            result = self._verdicts.finish(run, self.combination)
        else:
            whole = replace(run, denied=dict(run.denied), masked={})
            evaluated = self._verdicts.finish(whole, self.combination)
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
