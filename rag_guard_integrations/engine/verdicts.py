"""The end of a check: the combination rules over the chunks still in, masking for redact
rules, labels outside the vocabulary, fail-closed label notes, and the GuardResult."""

from __future__ import annotations

from functools import partial
from itertools import filterfalse, repeat
from typing import TYPE_CHECKING

from rag_guard_integrations.core.decisions import ChunkDecisions, GuardResult
from rag_guard_integrations.core.reasons import Reason, compose
from rag_guard_integrations.core.records import slot_filler
from rag_guard_integrations.engine.redact import Masked, confirm_masks, masked_elsewhere, redact
from rag_guard_integrations.engine.run import failure
from rag_guard_integrations.guards.combination import (
    CombinationOutcome,
    Labelled,
    LabelledSet,
    rule_message,
)

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

    from rag_guard_integrations.engine.run import Run
    from rag_guard_integrations.guards.stage import SetStage
    from rag_guard_integrations.policy.schema import Policy

_NO_OUTCOME = CombinationOutcome()
# Records made on every check, with every field known: filled slot by slot.
_new_result = slot_filler(GuardResult)
_new_labelled_set = slot_filler(LabelledSet)


class Verdicts:
    """Turns a run whose chunks passed the per-chunk stages and were labelled into its
    :class:`GuardResult`, under one policy.

    Args:
        policy: the guard's policy (its rules, vocabulary and ``on_*`` settings).
        passed_reason: the reason an allowed chunk carries (the stages it passed, by name).
        nothing_can_pass: tells, for a run, whether its request's pushdown (of the policy as
            enforced) lets no chunk pass, so that an empty retrieval could have held nothing.
    """

    __slots__ = (
        "_by_rule",
        "_nothing_can_pass",
        "_passed_reason",
        "_redacting",
        "_vocabulary",
        "policy",
    )

    def __init__(
        self,
        policy: Policy,
        passed_reason: Reason,
        nothing_can_pass: Callable[[Run], bool],
    ) -> None:
        self.policy = policy
        self._passed_reason = passed_reason
        self._nothing_can_pass = nothing_can_pass
        self._vocabulary = frozenset(policy.vocabulary) if policy.checks_vocabulary else None
        self._redacting = {rule.name: rule for rule in policy.rules if rule.action == "redact"}
        self._by_rule: dict[str, tuple[str, str]] = {
            rule.name: ("combination", Reason.fixed(rule_message(rule))) for rule in policy.rules
        }

    def finish(self, run: Run, combination: SetStage | None) -> GuardResult:
        """Apply ``combination`` (the policy's rules, or those shadow mode enforces) to the
        chunks of ``run`` still in, and record every decision. A chunk whose linking values
        cannot be read is denied when ``combination`` links chunks (not when only a rule in
        shadow mode would)."""
        if run.unlinkable and combination is not None and combination.links_chunks:
            for index, reason in run.unlinkable.items():
                run.denied.setdefault(index, ("linking", reason))
        unknown = self._unknown_labels(run) if self._vocabulary is not None else {}
        survivors: Sequence[int] = (
            list(filterfalse(run.denied.__contains__, range(len(run.chunks))))
            if run.denied
            else range(len(run.chunks))
        )
        outcome = None
        if combination is not None and survivors:
            survivor_chunks = run.chunks.pick(survivors)
            carried = list(map(run.labels.get, survivors, repeat(frozenset(), len(survivors))))
            try:
                outcome = combination(_new_labelled_set(survivors, carried, survivor_chunks))
            except Exception as error:  # a broken rule engine blocks the whole set
                reason = failure("combination", error)
                run.denied.update(dict.fromkeys(survivors, ("combination", reason)))
        rules: dict[int, str] = (
            self._remove(run, outcome, survivors)
            if outcome is not None and outcome.violations
            else {}
        )
        # Labels that could not be read or computed are not known to be safe: withheld even when
        # no rule of the policy names ``unclassified`` (fail closed).
        for index, note in run.notes.items():
            reason = compose("{}; labels unknown, denied (fail closed)", note)
            run.denied.setdefault(index, ("labels", reason))
        if run.masked and combination is not None:
            kept = [
                Labelled(
                    i, run.labels.get(i, frozenset()), run.chunks[i].score, run.chunks[i].metadata
                )
                for i in survivors
                if i not in run.denied
            ]
            widen = partial(self._widen, run)
            for index, rule in confirm_masks(run.masked, kept, combination, widen).items():
                self._deny_masked(run, rules, index, rule, "masking could not make it safe")
            # A value masked in one chunk may be written in another that passed unmasked.
            allowed = filterfalse(run.denied.__contains__, range(len(run.chunks)))
            for index, rule in masked_elsewhere(run.masked, run.chunks, allowed).items():
                self._deny_masked(run, rules, index, rule, "holds a value masked in another chunk")
        return self._result(run, outcome, unknown, rules)

    def _deny_masked(
        self, run: Run, rules: dict[int, str], index: int, rule: str, why: str
    ) -> None:
        """Deny chunk ``index`` for redact ``rule`` (its message, then ``why``), masked or not."""
        message = self._redacting[rule].message or rule
        run.denied[index] = ("combination", Reason.fixed(f"{message} ({why})"))
        rules[index] = rule
        run.masked.pop(index, None)

    def _unknown_labels(self, run: Run) -> dict[int, frozenset[str]]:
        """Labels outside the policy's vocabulary per chunk; the chunk is denied for them under
        ``on_unknown_label: block``."""
        assert self._vocabulary is not None
        unknown: dict[int, frozenset[str]] = {}
        for index, labels in run.labels.items():
            if extra := labels - self._vocabulary:
                unknown[index] = extra
                if self.policy.on_unknown_label == "block":
                    # The reason stays one short line; unknown_labels keeps them all. The labels
                    # are the chunk's own words: records count them.
                    shown = sorted(extra)[:5]
                    more = f" and {len(extra) - 5} more" if len(extra) > 5 else ""
                    reason = Reason(
                        f"labels outside the vocabulary: {', '.join(shown)}{more}",
                        f"{len(extra)} label(s) outside the vocabulary",
                    )
                    run.denied[index] = ("labels", reason)
        return unknown

    def _remove(
        self, run: Run, outcome: CombinationOutcome, survivors: Sequence[int]
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
        verdicts = self._by_rule
        if not all(map(verdicts.__contains__, blocked.values())):  # rules beyond the policy's
            # A message the policy did not write is plain text: records leave it out.
            verdicts = {v.rule: ("combination", v.message) for v in outcome.violations}
        run.denied.update(zip(blocked, map(verdicts.__getitem__, blocked.values()), strict=True))
        for index in run.notes.keys() & blocked.keys() if run.notes else ():
            reason = compose("{} ({})", verdicts[blocked[index]][1], run.notes[index])
            run.denied[index] = ("combination", reason)
        return dict(blocked)

    def _mask(self, run: Run, index: int, rule: str) -> bool:
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

    def _widen(self, run: Run, index: int, rules: frozenset[str]) -> Masked | None:
        """Masked chunk ``index`` masked for redact ``rules`` as well: every span of their
        labels too, from the original chunk; None when one of them cannot be masked."""
        before = run.masked[index]
        labels = run.labels.get(index, frozenset())
        trigger = (labels - before.labels).union(
            *(self._redacting[rule].trigger.all_present for rule in rules)
        )
        return redact(
            run.chunks[index],
            before.rule,
            trigger=trigger,
            labels=labels,
            claimed=run.claimed.get(index, labels),
            findings=run.findings.get(index, ()),
        )

    def _result(
        self,
        run: Run,
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
        if (
            refusal is None
            and len(run.denied) == len(run.chunks)
            and (run.chunks or self._nothing_can_pass(run))
        ):
            refusal = run.query.refusal or self.policy.no_context_refusal
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
            run.reported.get("access_source"),
        )
