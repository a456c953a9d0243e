"""The Guard pipeline: runs the query stage, the per-chunk checks, labelling and the
combination rules in order, records every decision, and fails closed."""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from functools import partial
from itertools import compress, filterfalse, repeat
from operator import attrgetter, is_
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from rag_guard_integrations.classify.base import Classification
from rag_guard_integrations.core.access import AccessContext, AccessLike
from rag_guard_integrations.core.audit import RequestInfo
from rag_guard_integrations.core.chunk import Chunk, coerce_chunks
from rag_guard_integrations.core.constraints import Allowed, Constraints
from rag_guard_integrations.core.decisions import ChunkDecisions, GuardResult, QueryDecision
from rag_guard_integrations.core.errors import ContextBlocked, InputError
from rag_guard_integrations.core.labels import (
    UNCLASSIFIED,
    clean_label,
    labels_many,
    metadata_labels,
)
from rag_guard_integrations.core.normalize import normalize
from rag_guard_integrations.core.records import slot_filler
from rag_guard_integrations.core.stage import ChunkCheck, Request
from rag_guard_integrations.engine.audit import policy_identity, publish
from rag_guard_integrations.engine.notices import policy_notices, request_notices
from rag_guard_integrations.engine.redact import Masked, confirm_masks, redact
from rag_guard_integrations.engine.shadow import Shadow
from rag_guard_integrations.guards.clause import ClauseGuard
from rag_guard_integrations.guards.combination import (
    CombinationOutcome,
    Labelled,
    LabelledSet,
    rule_message,
)
from rag_guard_integrations.guards.registry import (
    QueryInputs,
    policy_checks,
    query_checks,
    set_check,
)
from rag_guard_integrations.policy.loader import load_policy

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence

    from rag_guard_integrations.classify.base import Classifier, Finding
    from rag_guard_integrations.embeddings import Embedder
    from rag_guard_integrations.guards.domain_identifiers import IdentifierLookup
    from rag_guard_integrations.guards.registry import QueryCheck, SetCheck
    from rag_guard_integrations.policy.loader import PolicyRef
    from rag_guard_integrations.policy.schema import Policy


FETCH_FACTOR = 4
_IS_NONE = partial(is_, None)
_METADATA = attrgetter("metadata")
# The query verdict without a domain guard or clause intents, shared (frozen, empty evidence).
_NO_QUERY_STAGE = QueryDecision(evidence=MappingProxyType({}))
_NO_OUTCOME = CombinationOutcome()
# Records made on every check, with every field known: filled slot by slot.
_new_result = slot_filler(GuardResult)
_new_request = slot_filler(Request)
_new_labelled_set = slot_filler(LabelledSet)


def fetch_size(k: int, fetch_k: int | None = None) -> int:
    """How many candidates to ask a retriever for so that ``k`` allowed ones can remain.

    ``fetch_k`` when given (never below ``k``), else ``FETCH_FACTOR`` x ``k``.

    Example:
        >>> fetch_size(4), fetch_size(4, fetch_k=10), fetch_size(4, fetch_k=2)
        (16, 10, 4)
    """
    return max(k, fetch_k if fetch_k is not None else FETCH_FACTOR * k)


@dataclass(slots=True)
class _Run:
    """The state of one check between its synchronous stages and labelling."""

    request: Request
    chunks: list[Chunk]
    query: QueryDecision
    denied: dict[int, tuple[str, str]] = field(default_factory=dict)
    labels: dict[int, frozenset[str]] = field(default_factory=dict)
    pending: list[int] = field(default_factory=list)
    notes: dict[int, str] = field(default_factory=dict)
    dropped: dict[int, frozenset[str]] = field(default_factory=dict)
    started_ns: int = field(default_factory=time.time_ns)
    # Labels that no span backs (metadata's, and a classifier's given without a finding), for
    # the chunks a classifier labelled; any other chunk's are its labels.
    claimed: dict[int, frozenset[str]] = field(default_factory=dict)
    findings: dict[int, tuple[Finding, ...]] = field(default_factory=dict)
    masked: dict[int, Masked] = field(default_factory=dict)
    info: RequestInfo | None = None
    notices: tuple[str, ...] = ()


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
    ) -> None:
        self.policy = policy
        self._inputs = QueryInputs(
            embedder, identifiers if callable(identifiers) else tuple(identifiers)
        )
        self.query_checks: tuple[QueryCheck, ...] = query_checks(policy, self._inputs)
        self.combination: SetCheck | None = set_check(policy)
        self.checks: tuple[ChunkCheck, ...] = (*policy_checks(policy), *checks)
        self.clause = next((c for c in self.checks if isinstance(c, ClauseGuard)), None)
        self.recognizers = self._recognizers()
        self.classifier = self._bind(classifier)
        self._classify_always = policy.classify == "always"
        self._vocabulary = frozenset(policy.vocabulary) if policy.declares_vocabulary else None
        self._reads_labels = self.combination is not None or self._vocabulary is not None
        stages = [c.name for c in self.checks] + (["combination"] if self.combination else [])
        self._passed_reason = "passed " + ", ".join(stages)
        self._identity = policy_identity(policy)
        self._notices = policy_notices(policy, self.classifier)
        self._shadow = Shadow.of(policy)
        self._redacting = {rule.name: rule for rule in policy.rules if rule.action == "redact"}
        self._verdicts = {rule.name: ("combination", rule_message(rule)) for rule in policy.rules}

    @classmethod
    def from_policy(
        cls,
        *refs: PolicyRef,
        classifier: Classifier | None = None,
        embedder: Embedder | None = None,
        checks: Iterable[ChunkCheck] = (),
        identifiers: Iterable[str] | IdentifierLookup = (),
    ) -> Guard:
        """A guard for policies, built-in names or paths, merged in order. Every
        ``from_policy`` of the package takes such references as :func:`load_policy` does (a
        Policy, a built-in name or a path); the stages' own take one, this one several.

        ``identifiers`` are the collection's standard identifiers (for instance
        ``collection_identifiers(chunks, policy.domain.identifier_keys)`` over the corpus):
        the domain guard accepts a query that names one of them, whatever was retrieved; or a
        lookup the retriever or index provides (see :class:`DomainGuard`).
        """
        return cls(
            load_policy(*refs),
            classifier=classifier,
            embedder=embedder,
            checks=checks,
            identifiers=identifiers,
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

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle and copy as the policy, classifier, embedder, extra checks and identifiers;
        the compiled (RE2) state is rebuilt. The process-wide MiniLM embedder pickles as a
        reference."""
        extra = self.checks[len(policy_checks(self.policy)) :]
        inputs = self._inputs
        return (
            type(self),
            (self.policy, self.classifier, inputs.embedder, extra, inputs.identifiers),
        )

    def _bind(self, classifier: Classifier | None) -> Classifier | None:
        if self.policy.classify == "never" or self.combination is None:
            return None
        if classifier is None:
            # Under ``recognizers: always`` the recognisers already label every chunk.
            return None if self.policy.recognizers == "always" else self.recognizers
        return classifier.bind(self.policy.vocabulary)

    def _labellers(self, run: _Run) -> list[tuple[Classifier, list[int], str]]:
        """Who labels which chunks: the recognisers every labelled chunk, whatever its metadata
        claims (``recognizers: always``), then the classifier the chunks ``classify`` names."""
        out: list[tuple[Classifier, list[int], str]] = []
        if self.recognizers is not None and self.policy.recognizers == "always" and run.labels:
            out.append((self.recognizers, list(run.labels), "recognizers"))
        if self.classifier is not None and run.pending:
            out.append((self.classifier, run.pending, "classifier"))
        return out

    def check(self, query: str, chunks: Sequence[Any], access: AccessLike = None) -> GuardResult:
        """Decide which of ``chunks`` may reach the LLM for ``query`` and ``access``."""
        run = self._start(query, chunks, access)
        for labeller, indices, stage in self._labellers(run):
            texts = [run.chunks[i].text for i in indices]
            self._take_labels(run, indices, _attempt(labeller.classify_many, texts), stage)
        return self._conclude(run)

    async def acheck(
        self, query: str, chunks: Sequence[Any], access: AccessLike = None
    ) -> GuardResult:
        """Async twin of :meth:`check`: classification awaits the classifier's async path."""
        run = self._start(query, chunks, access)
        for labeller, indices, stage in self._labellers(run):
            texts = [run.chunks[i].text for i in indices]
            found = await _aattempt(labeller.aclassify_many, texts)
            self._take_labels(run, indices, found, stage)
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
        context = AccessContext.coerce(access)
        if self.policy.mode == "shadow":
            return Constraints()  # a store-side filter would enforce what shadow mode only records
        constraints: dict[str, Allowed] = {}
        for attribute in self.policy.access.attributes:
            allowed = context.allowlists.get(attribute) if context is not None else None
            if not allowed:
                return None
            constraints[attribute] = Allowed(allowed, self.policy.access.match_of(attribute))
        if self.clause is not None:
            if not isinstance(query, str):
                raise InputError(f"query must be a str, got {type(query).__name__}")
            intents = self.clause.detect(normalize(query))
            if intents:
                constraints["clause_id"] = Allowed(frozenset(intents))
            elif self.clause.restricts_without_intent:
                return None
        return Constraints(constraints)

    def _start(self, query: str, chunks: Sequence[Any], access: object) -> _Run:
        if not isinstance(query, str):
            raise InputError(f"query must be a str, got {type(query).__name__}; decode it first")
        items = coerce_chunks(chunks)
        context = AccessContext.coerce(access)
        normalized = normalize(query)
        decision = self._decide_query(query, normalized, items)
        run = _Run(_new_request(query, normalized, decision.intents, context), items, decision)
        if not decision.allowed:
            rejected = ("domain", f"the query was rejected ({decision.reason})")
            run.denied = dict.fromkeys(range(len(items)), rejected)
            return run
        # Stage by stage over the chunks still in: each chunk is denied by the first stage that
        # denies it, as if the stages ran chunk by chunk.
        remaining: Sequence[int] = range(len(items))
        for check in self.checks:
            chunks = items if len(remaining) == len(items) else [items[i] for i in remaining]
            reasons = _stage(check, chunks, run.request)
            if reasons.count(None) != len(reasons):
                for index, reason in zip(remaining, reasons, strict=True):
                    if reason is not None:
                        run.denied[index] = (check.name, reason)
                remaining = list(compress(remaining, map(_IS_NONE, reasons)))
        if self._reads_labels:
            self._read_labels(run, remaining)
        return run

    def _decide_query(self, query: str, normalized: str, items: list[Chunk]) -> QueryDecision:
        try:
            intents = self.clause.detect(normalized) if self.clause is not None else ()
            if not self.query_checks:
                return QueryDecision(intents=intents) if intents else _NO_QUERY_STAGE
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
        return replace(decision, intents=intents)

    def _read_labels(self, run: _Run, positions: Sequence[int]) -> None:
        """Read the labels of the chunks at ``positions`` from their metadata, all at once, and
        queue for the classifier those it should label (no label left once blanks are dropped,
        or ``classify: always``)."""
        if self.combination is not None and self.combination.links_chunks:
            positions = [i for i in positions if self._linkable(run, i)]
        chunks = run.chunks
        if len(positions) != len(chunks):
            chunks = list(map(chunks.__getitem__, positions))
        try:
            labels, problems = labels_many(list(map(_METADATA, chunks)))
        except Exception:  # odd metadata somewhere: chunk by chunk, so that only it fails
            for index in positions:
                self._read_one(run, index)
            return
        run.labels.update(zip(positions, labels, strict=True))
        for offset, problem in problems.items():
            run.notes[positions[offset]] = problem
        if self.classifier is not None:
            always = self._classify_always
            run.pending.extend(
                i for i, found in zip(positions, labels, strict=True) if always or not found
            )

    def _linkable(self, run: _Run, index: int) -> bool:
        """Whether chunk ``index``'s linking values can be read; if not, it is denied alone."""
        assert self.combination is not None
        try:
            broken = self.combination.unreadable_links(run.chunks[index].metadata)
        except Exception as error:
            broken = _failure("labels", error)
        if broken:
            run.denied[index] = ("linking", broken)
        return not broken

    def _read_one(self, run: _Run, index: int) -> None:
        try:
            labels, problem = metadata_labels(run.chunks[index].metadata)
        except Exception as error:
            run.denied[index] = ("labels", _failure("labels", error))
            return
        if problem is not None:
            run.notes[index] = problem
        run.labels[index] = labels
        # Blank labels were dropped by metadata_labels: a chunk left with none is unlabelled.
        if self.classifier is not None and (self._classify_always or not labels):
            run.pending.append(index)

    def _take_labels(
        self,
        run: _Run,
        indices: Sequence[int],
        found: Sequence[Classification] | Exception,
        stage: str,
    ) -> None:
        """Union each classification into its chunk's labels (cleaned like metadata labels); a
        classifier's error becomes the chunk's note (no-text records leave its text out)."""
        if isinstance(found, Exception):  # a failing classifier must not let chunks through
            reason = _failure(stage, found)
            found = [Classification.failed(reason)] * len(indices)
        elif (
            not isinstance(found, list | tuple)
            or len(found) != len(indices)
            or not all(isinstance(item, Classification) for item in found)
        ):
            problem = "classifier returned a wrong number or kind of results"
            found = [Classification.failed(problem)] * len(indices)
        for index, classification in zip(indices, found, strict=True):
            labels = _clean_labels(classification.labels)
            run.claimed.setdefault(index, run.labels[index])  # before the first classifier
            run.labels[index] = run.labels[index] | labels
            run.findings[index] = run.findings.get(index, ()) + classification.findings
            # A label given without a span cannot be masked away, like one metadata claims.
            if unspanned := labels - {f.label for f in classification.findings}:
                run.claimed[index] = run.claimed[index] | unspanned
            if dropped := _clean_labels(classification.dropped):
                run.dropped[index] = run.dropped.get(index, frozenset()) | dropped
            if classification.error is not None:
                run.notes[index] = f"classifier: {classification.error}"

    def _conclude(self, run: _Run) -> GuardResult:
        """The applied result (with the whole evaluation alongside when parts are in shadow
        mode), published to the audit logger; raises when a block rule fired under
        ``on_block: raise``."""
        request = run.request
        run.info = RequestInfo.new(
            request.query, request.access, *self._identity, started_ns=run.started_ns
        )
        run.notices = self._notices + request_notices(self.policy, request.access)
        if self._shadow is None:
            result = self._finish(run, self.combination)
        else:
            whole = replace(run, denied=dict(run.denied), masked={})
            evaluated = self._finish(whole, self.combination)
            result = self._shadow.apply(
                evaluated, run.chunks, lambda combination: self._finish(run, combination)
            )
        publish(result)
        if self.policy.on_block == "raise" and any(v.action == "block" for v in result.violations):
            raise ContextBlocked(result)
        return result

    def _finish(self, run: _Run, combination: SetCheck | None) -> GuardResult:
        unknown = self._unknown_labels(run) if self._vocabulary is not None else {}
        survivors: Sequence[int] = (
            list(filterfalse(run.denied.__contains__, range(len(run.chunks))))
            if run.denied
            else range(len(run.chunks))
        )
        outcome = None
        if combination is not None and survivors:
            survivor_chunks = (
                run.chunks
                if len(survivors) == len(run.chunks)
                else list(map(run.chunks.__getitem__, survivors))
            )
            carried = list(map(run.labels.get, survivors, repeat(frozenset(), len(survivors))))
            try:
                outcome = combination(_new_labelled_set(survivors, carried, survivor_chunks))
            except Exception as error:  # a broken rule engine blocks the whole set
                reason = _failure("combination", error)
                run.denied.update(dict.fromkeys(survivors, ("combination", reason)))
        rules: dict[int, str] = (
            self._remove(run, outcome, survivors)
            if outcome is not None and outcome.violations
            else {}
        )
        # Labels that could not be read or computed are not known to be safe: withheld even when
        # no rule of the policy names ``unclassified`` (fail closed).
        for index, note in run.notes.items():
            run.denied.setdefault(
                index, ("labels", f"{note}; labels unknown, denied (fail closed)")
            )
        if run.masked and combination is not None:
            kept = [
                Labelled(
                    i, run.labels.get(i, frozenset()), run.chunks[i].score, run.chunks[i].metadata
                )
                for i in survivors
                if i not in run.denied
            ]
            for index, rule in confirm_masks(run.masked, kept, combination).items():
                message = self._redacting[rule].message or rule
                run.denied[index] = ("combination", f"{message} (masking could not make it safe)")
                rules[index] = rule
        return self._result(run, outcome, unknown, rules)

    def _unknown_labels(self, run: _Run) -> dict[int, frozenset[str]]:
        """Labels outside the policy's vocabulary per chunk; the chunk is denied for them under
        ``on_unknown_label: block``."""
        assert self._vocabulary is not None
        unknown: dict[int, frozenset[str]] = {}
        for index, labels in run.labels.items():
            if extra := labels - self._vocabulary:
                unknown[index] = extra
                if self.policy.on_unknown_label == "block":
                    # The reason stays one short line; unknown_labels keeps them all.
                    shown = sorted(extra)[:5]
                    more = f" and {len(extra) - 5} more" if len(extra) > 5 else ""
                    names = ", ".join(shown) + more
                    run.denied[index] = ("labels", f"labels outside the vocabulary: {names}")
        return unknown

    def _remove(
        self, run: _Run, outcome: CombinationOutcome, survivors: Sequence[int]
    ) -> dict[int, str]:
        """Deny the chunks the fired rules remove (masking a redact rule's carriers instead
        where it can); the rule behind each removal."""
        blocked: Mapping[int, str] = outcome.removed
        if self.policy.on_block == "empty":
            blocking = [v.rule for v in outcome.violations if v.action == "block"]
            blocked = dict.fromkeys(survivors, blocking[0]) if blocking else blocked
        if self._redacting:  # carriers of redact rules stay, masked, where they can
            blocked = {
                index: rule
                for index, rule in blocked.items()
                if not (rule in self._redacting and self._mask(run, index, rule))
            }
        # One shared verdict per rule; only chunks with a label note get their own reason.
        verdicts = self._verdicts
        if not all(map(verdicts.__contains__, blocked.values())):  # rules beyond the policy's
            verdicts = {v.rule: ("combination", v.message) for v in outcome.violations}
        run.denied.update(zip(blocked, map(verdicts.__getitem__, blocked.values()), strict=True))
        for index in run.notes.keys() & blocked.keys() if run.notes else ():
            reason = f"{verdicts[blocked[index]][1]} ({run.notes[index]})"
            run.denied[index] = ("combination", reason)
        return dict(blocked)

    def _mask(self, run: _Run, index: int, rule: str) -> bool:
        """Keep carrier ``index`` of redact rule ``rule`` with its spans masked, if it can be
        (not when its labels are uncertain: a classifier failed on it)."""
        if index in run.notes:
            return False
        masked = redact(
            run.chunks[index],
            rule,
            trigger=self._redacting[rule].trigger.all_present,
            labels=run.labels.get(index, frozenset()),
            claimed=run.claimed.get(index, run.labels.get(index, frozenset())),
            findings=run.findings.get(index, ()),
        )
        if masked is None:
            return False
        run.masked[index] = masked
        return True

    def _result(
        self,
        run: _Run,
        outcome: CombinationOutcome | None,
        unknown: dict[int, frozenset[str]],
        rules: Mapping[int, str],
    ) -> GuardResult:
        masked = {
            i: m.decision(i, run.chunks[i], run.labels.get(i, frozenset()))
            for i, m in run.masked.items()
        }
        decisions = ChunkDecisions(
            run.chunks, run.denied, run.labels, rules, self._passed_reason, overrides=masked
        )
        refusal = run.query.refusal if not run.query.allowed else None
        # Nothing passed, and something was withheld or nothing could have passed (a pushdown
        # that fetched nothing, a query that asks for no known clause).
        if refusal is None and len(run.denied) == len(run.chunks):
            request = run.request
            if run.chunks or self.prefilter(request.query, request.access) is None:
                refusal = self.policy.no_context_refusal
        if outcome is None:
            outcome = _NO_OUTCOME
        return _new_result(
            run.query,
            decisions,
            outcome.violations,
            outcome.warnings,
            outcome.bridges,
            unknown,
            refusal,
            run.info,
            run.notices,
            None,  # shadow: set by Shadow.apply
            run.dropped,
        )


def _stage(check: ChunkCheck, chunks: list[Chunk], request: Request) -> list[str | None]:
    """Why ``check`` denies each chunk (None: it passes). A stage with a ``check_many`` takes
    the chunks at once; if that raises or miscounts, each chunk is checked alone, so that a
    broken check denies only the chunks it fails on (fail closed)."""
    many = getattr(check, "check_many", None)
    if many is not None:
        try:
            reasons = many(chunks, request)
        except Exception:
            reasons = None
        if isinstance(reasons, list) and len(reasons) == len(chunks):
            return reasons
    out: list[str | None] = []
    for chunk in chunks:
        try:
            out.append(check(chunk, request))
        except Exception as error:  # noqa: PERF203 - a broken check denies only this chunk
            out.append(_failure(check.name, error))
    return out


def _attempt(
    classify: Callable[[list[str]], Sequence[Classification]], texts: list[str]
) -> Sequence[Classification] | Exception:
    try:
        return classify(texts)
    except Exception as error:  # recorded, and the chunks denied, by _take_labels
        return error


async def _aattempt(
    classify: Callable[[list[str]], Awaitable[Sequence[Classification]]], texts: list[str]
) -> Sequence[Classification] | Exception:
    try:
        return await classify(texts)
    except Exception as error:  # as in _attempt
        return error


def _clean_labels(labels: frozenset[str]) -> frozenset[str]:
    """A classifier's labels cleaned like metadata labels (blank ones dropped); a label that is
    not a string makes the chunk ``unclassified``."""
    cleaned = {clean_label(label) if isinstance(label, str) else UNCLASSIFIED for label in labels}
    cleaned.discard("")
    return frozenset(cleaned)


def _failure(stage: str, error: BaseException) -> str:
    return f"{stage} check failed ({type(error).__name__}: {error}); denied (fail closed)"
