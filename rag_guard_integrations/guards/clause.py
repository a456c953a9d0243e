"""The clause guard: which clause the query asks for, and which chunks really are that clause."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rag_guard_integrations.core.chunk_list import metadata_of, texts_of
from rag_guard_integrations.core.constraints import Allowed
from rag_guard_integrations.core.errors import PolicyError
from rag_guard_integrations.core.patterns import matches
from rag_guard_integrations.core.reasons import Reason
from rag_guard_integrations.core.sentences import clause_text
from rag_guard_integrations.guards.clause_query import QueryReader, QueryScope
from rag_guard_integrations.guards.clause_semantic import SemanticSignal
from rag_guard_integrations.guards.stage import Part, Pushdown, StageSpec
from rag_guard_integrations.policy.loader import load_policy
from rag_guard_integrations.policy.schema import AccessSpec

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from rag_guard_integrations.core.chunk import Chunk
    from rag_guard_integrations.core.stage import Request
    from rag_guard_integrations.embeddings import Embedder
    from rag_guard_integrations.guards.stage import StageInputs
    from rag_guard_integrations.policy.loader import PolicyRef
    from rag_guard_integrations.policy.schema import ClauseSpec, OnNoIntent, Policy


class ClauseGuard:
    """Keep a chunk only if its ``clause_id`` is one the query asks for and its text matches
    that clause's fingerprint. A query that names no clause is refused, or, with
    ``on_no_intent="access_only"``, left to the access checks with no clause restriction; a
    question about a whole contract (a ``whole_contract`` clause: "Summarize the MSA") is
    answered from every clause. A question that names contracts (``access.mentions``) is
    answered from those only, and refused when the caller may not see one of them.

    A fingerprint's regex decides when it matches; the semantic signal (``fingerprint:
    {semantic: ...}``) judges what the regex misses (``combine: either``), or must confirm its
    matches (``both``). Its embeddings are computed only then, for all such chunks of a check
    in one batch; when the embedder cannot run, those chunks are denied (fail closed).

    Example:
        >>> from rag_guard_integrations import load_policy
        >>> guard = ClauseGuard.from_policy(load_policy("contracts"))
        >>> guard.detect("what is the termination notice period?")
        ('TERMINATION_NOTICE',)
    """

    name = "clause"
    reports = None

    def __init__(
        self,
        clauses: Mapping[str, ClauseSpec],
        on_no_intent: OnNoIntent = "refuse",
        access: AccessSpec | None = None,
        embedder: Embedder | None = None,
        refusal: str = "No authorized matching clause found.",
    ) -> None:
        self.clause_ids = tuple(clauses)
        self.on_no_intent = on_no_intent
        self.reader = QueryReader(clauses, access or AccessSpec())
        self._refusal_text = refusal
        self._fingerprints = {
            clause_id: _Fingerprint(clause_id, spec, embedder)
            for clause_id, spec in clauses.items()
            if spec.fingerprint is not None
        }

    @classmethod
    def from_policy(cls, policy: PolicyRef) -> ClauseGuard | None:
        """The clause guard of ``policy``, or None when it defines no clauses."""
        policy = load_policy(policy)
        if not policy.clauses:
            return None
        return cls(
            policy.clauses, policy.on_no_intent, policy.access, refusal=policy.no_context_refusal
        )

    def detect(self, normalized_query: str) -> tuple[str, ...]:
        """Clause ids the (normalised) query asks for, in policy order."""
        return self.reader.intents(normalized_query)

    @property
    def restricts_without_intent(self) -> bool:
        """True when a query naming no clause lets no chunk through (``on_no_intent: refuse``)."""
        return self.on_no_intent == "refuse"

    def prepare(self, request: Request) -> Part:
        """The question read once (:class:`QueryScope`): the clause ids it asks for, and the
        text to answer with when it names contracts the caller may not see."""
        scope = self.reader.scope(request.normalized_query, request.access)
        return Part(scope, scope.intents, self._unseen_refusal(scope))

    def pushdown(self, part: Part, request: Request) -> Pushdown:
        """``clause_id`` and the contracts the question names; None when no chunk can pass."""
        return Pushdown(self._constraints(part.state))

    def _constraints(self, scope: QueryScope) -> dict[str, Allowed] | None:
        if scope.unseen or (not scope.intents and self.restricts_without_intent):
            return None
        found = {a: allowed for a, allowed in scope.named.items() if allowed.match == "all"}
        if scope.intents and not scope.whole_contract:
            found["clause_id"] = Allowed(frozenset(scope.intents))
        return found

    def _unseen_refusal(self, scope: QueryScope) -> str | None:
        if not scope.unseen:
            return None
        names = ", ".join(value for _, value in scope.unseen)
        unseen = f"The question names {names}, which you are not authorised to see."
        return f"{self._refusal_text} {unseen}"

    def __call__(self, chunk: Chunk, request: Request) -> Reason | None:
        return self.check_many([chunk], self.prepare(request).state)[0]

    def check_many(self, chunks: Sequence[Chunk], scope: QueryScope) -> list[Reason | None]:
        """Why each chunk is denied (None: it passes) under the question's reading ``scope``
        (:meth:`prepare`); semantic checks run in one batch."""
        metadata = metadata_of(chunks)
        reasons = self._scope_reasons(metadata, scope)
        pending: dict[str, list[int]] = {}
        if not scope.whole_contract:
            fingerprints = self._fingerprints
            texts = texts_of(chunks)
            for index, meta in enumerate(metadata):
                if reasons[index] is not None:
                    continue
                fingerprint = fingerprints.get(str(meta.get("clause_id")))
                if fingerprint is not None:
                    reasons[index], judge = fingerprint.by_regex(texts[index])
                    if judge:
                        pending.setdefault(fingerprint.clause_id, []).append(index)
        for clause_id, indices in pending.items():
            judged = self._fingerprints[clause_id].semantic_reasons([chunks[i] for i in indices])
            for index, reason in zip(indices, judged, strict=True):
                reasons[index] = reason
        return reasons

    def _scope_reasons(
        self, metadata: Sequence[Mapping[str, Any]], scope: QueryScope
    ) -> list[Reason | None]:
        """Why each chunk is not what the question asks for, before any fingerprint. The
        values named are the policy's (``access.mentions``), never the chunk's."""
        intents = scope.intents
        if scope.unseen:
            names = ", ".join(f"{a} {v!r}" for a, v in scope.unseen)
            unseen = Reason.fixed(f"the question names {names}, which the caller may not see")
            return [unseen] * len(metadata)
        if not intents and self.restricts_without_intent:
            return [_NO_INTENT] * len(metadata)
        named = [
            (attribute, allowed, _asked_about(attribute, allowed))
            for attribute, allowed in scope.named.items()
        ]
        # access_only without intents, or a whole contract: the clause id does not decide.
        by_clause = _ClauseReasons(intents) if intents and not scope.whole_contract else None
        out: list[Reason | None] = []
        for meta in metadata:
            reason = None
            for attribute, allowed, denial in named:
                if not allowed.admits(meta.get(attribute)):
                    reason = denial
                    break
            if reason is None and by_clause is not None:
                reason = by_clause.reason(meta.get("clause_id"))
            out.append(reason)
        return out


_NO_INTENT = Reason.fixed("the query asks for no clause this policy knows")
_NO_CLAUSE_ID = Reason.fixed("the chunk carries no clause_id")


class _ClauseReasons:
    """Why a chunk's ``clause_id`` is not one of the clauses ``intents`` names, for one check:
    a clause id seen before in it gets the same reason (records name the policy's clause ids
    only, never the chunk's own ``clause_id`` value)."""

    def __init__(self, intents: Sequence[str]) -> None:
        self.intents = intents
        self.asked = ", ".join(intents)
        self.seen: dict[str, Reason | None] = {}

    def reason(self, clause_id: object) -> Reason | None:
        """:meth:`_judge` of ``clause_id``, once per string value in this check."""
        if type(clause_id) is not str:
            return self._judge(clause_id)
        seen = self.seen
        if clause_id not in seen:
            seen[clause_id] = self._judge(clause_id)
        return seen[clause_id]

    def _judge(self, clause_id: object) -> Reason | None:
        if clause_id is None:
            return _NO_CLAUSE_ID
        if clause_id not in self.intents:
            return Reason(
                f"clause {clause_id} is not what the query asks for ({self.asked})",
                f"the chunk's clause is not what the query asks for ({self.asked})",
            )
        return None


def _asked_about(attribute: str, allowed: Allowed) -> Reason:
    asked = ", ".join(sorted(allowed.values))
    return Reason.fixed(f"the question asks about {attribute} {asked}")


class _Fingerprint:
    """One clause's fingerprint: a regex, a semantic signal, or both."""

    def __init__(self, clause_id: str, spec: ClauseSpec, embedder: Embedder | None) -> None:
        self.clause_id = clause_id
        self.regex = spec.fingerprint_regex
        self.combine = spec.combine
        self._denial = Reason.fixed(f"the text does not match the {clause_id} fingerprint")
        self.semantic: tuple[SemanticSignal, str, float] | None = None
        if (semantic := spec.semantic) is not None:
            signal = SemanticSignal(semantic.examples, embedder)
            label = semantic.label or clause_id
            if label not in signal.labels():
                raise PolicyError(
                    f"clauses.{clause_id}.fingerprint.semantic: label {label!r} has no "
                    f"sentences in examples {semantic.examples!r}; add some, or set label"
                )
            self.semantic = (signal, label, semantic.min_score)

    def by_regex(self, text: str) -> tuple[Reason | None, bool]:
        """The regex's verdict: the denial when it decides alone (a miss with no semantic
        signal, or with ``combine: both``), and whether the semantic signal must judge."""
        hit = None if self.regex is None else matches(self.regex, clause_text(text))
        if self.semantic is None:
            return (None if hit is not False else self._denial), False
        if self.combine == "both":
            return (self._denial, False) if hit is False else (None, True)
        return None, not hit

    def semantic_reasons(self, chunks: Sequence[Chunk]) -> list[Reason | None]:
        """The semantic verdicts on chunks the regex left undecided (fail closed)."""
        if self.semantic is None:
            return [None] * len(chunks)
        signal, label, threshold = self.semantic
        try:
            verdicts = signal.judge([(chunk.text, label) for chunk in chunks])
        except Exception as error:  # any failure of the embedder or model denies
            failed = f"the {self.clause_id} fingerprint's semantic check could not run"
            reason = Reason(
                f"{failed} ({type(error).__name__}: {error}); denied (fail closed)",
                f"{failed} ({type(error).__name__}); denied (fail closed)",
            )
            return [reason] * len(chunks)
        # Scores and the policy's label names only: the record may hold the whole sentence.
        return [
            None
            if verdict.score >= threshold
            else Reason.fixed(f"{self._denial} ({verdict.explain(label)}, below {threshold:.2f})")
            for verdict in verdicts
        ]


def _stage(policy: Policy, inputs: StageInputs) -> ClauseGuard | None:
    return ClauseGuard.from_policy(policy)


STAGE = StageSpec("clause", "clauses", "chunk", _stage)
