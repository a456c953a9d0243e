"""Labels for the chunks a check keeps: read from their metadata, asked of the recognisers and
the classifier (an error is recorded, never raised), cleaned and merged into the run."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rag_guard_integrations.classify.base import Classification
from rag_guard_integrations.core.labels import (
    UNCLASSIFIED,
    clean_label,
    labels_many,
    metadata_labels,
)
from rag_guard_integrations.core.reasons import Reason
from rag_guard_integrations.engine.run import failure

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, Sequence

    from rag_guard_integrations.classify.base import Classifier
    from rag_guard_integrations.engine.run import Run
    from rag_guard_integrations.guards.stage import SetStage
    from rag_guard_integrations.policy.schema import Policy


class Labelling:
    """Who labels which chunks of a check, as a policy says: metadata labels first, then the
    recognisers on every labelled chunk (``recognizers: always``), then the classifier on the
    chunks ``classify`` names.

    Args:
        policy: the guard's policy (its ``recognizers`` and ``classify`` settings).
        set_stage: the set stage, whose linking values a chunk must have readable.
        recognizers: the policy's pattern recognisers, bound to its vocabulary.
        classifier: the classifier the guard runs, bound to the vocabulary, or None.
    """

    __slots__ = ("always_recognizers", "classifier", "classify_always", "set_stage")

    def __init__(
        self,
        policy: Policy,
        set_stage: SetStage | None,
        recognizers: Classifier | None,
        classifier: Classifier | None,
    ) -> None:
        self.set_stage = set_stage
        self.always_recognizers = recognizers if policy.recognizers == "always" else None
        self.classifier = classifier
        self.classify_always = policy.classify == "always"

    def labellers(self, run: Run) -> list[tuple[Classifier, list[int], str]]:
        """Who labels which chunks: the recognisers every labelled chunk, whatever its metadata
        claims (``recognizers: always``), then the classifier the chunks ``classify`` names."""
        out: list[tuple[Classifier, list[int], str]] = []
        if self.always_recognizers is not None and run.labels:
            out.append((self.always_recognizers, list(run.labels), "recognizers"))
        if self.classifier is not None and run.pending:
            out.append((self.classifier, run.pending, "classifier"))
        return out

    def read(self, run: Run, positions: Sequence[int]) -> None:
        """Read the labels of the chunks at ``positions`` from their metadata, all at once, and
        queue for the classifier those it should label (no label left once blanks are dropped,
        or ``classify: always``)."""
        if self.set_stage is not None and self.set_stage.links_chunks:
            for index in positions:
                self._note_unlinkable(run, index)
        metadata = run.chunks.metadata
        if len(positions) != len(metadata):
            metadata = [metadata[i] for i in positions]
        try:
            labels, problems = labels_many(metadata)
        except Exception:  # odd metadata somewhere: chunk by chunk, so that only it fails
            for index in positions:
                self._read_one(run, index)
            return
        run.labels.update(zip(positions, labels, strict=True))
        for offset, problem in problems.items():
            run.notes[positions[offset]] = problem
        if self.classifier is not None:
            always = self.classify_always
            run.pending.extend(
                i for i, found in zip(positions, labels, strict=True) if always or not found
            )

    def _note_unlinkable(self, run: Run, index: int) -> None:
        """Note chunk ``index`` when its linking values cannot be read: the rules that link
        chunks deny it alone (where they are enforced, see :meth:`Verdicts.finish`)."""
        assert self.set_stage is not None
        try:
            broken = self.set_stage.unreadable_links(run.chunks.metadata[index])
        except Exception as error:
            broken = failure("labels", error)
        if broken:
            run.unlinkable[index] = broken

    def _read_one(self, run: Run, index: int) -> None:
        try:
            labels, problem = metadata_labels(run.chunks.metadata[index])
        except Exception as error:
            run.denied[index] = ("labels", failure("labels", error))
            return
        if problem is not None:
            run.notes[index] = problem
        run.labels[index] = labels
        # Blank labels were dropped by metadata_labels: a chunk left with none is unlabelled.
        if self.classifier is not None and (self.classify_always or not labels):
            run.pending.append(index)


def take_labels(
    run: Run,
    indices: Sequence[int],
    found: Sequence[Classification] | Exception,
    stage: str,
) -> None:
    """Union each classification into its chunk's labels (cleaned like metadata labels); a
    classifier's error becomes the chunk's note (records say only that the classifier failed:
    its text may quote the chunk)."""
    if isinstance(found, Exception):  # a failing classifier must not let chunks through
        reason = failure(stage, found)
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
            run.notes[index] = Reason(f"classifier: {classification.error}", "classifier failed")


def attempt(
    classify: Callable[[list[str]], Sequence[Classification]], texts: list[str]
) -> Sequence[Classification] | Exception:
    """``classify(texts)``, or the exception it raised (for :func:`take_labels` to record)."""
    try:
        return classify(texts)
    except Exception as error:  # recorded, and the chunks denied, by take_labels
        return error


async def aattempt(
    classify: Callable[[list[str]], Awaitable[Sequence[Classification]]], texts: list[str]
) -> Sequence[Classification] | Exception:
    """Async twin of :func:`attempt`."""
    try:
        return await classify(texts)
    except Exception as error:  # as in attempt
        return error


def _clean_labels(labels: frozenset[str]) -> frozenset[str]:
    """A classifier's labels cleaned like metadata labels (blank ones dropped); a label that is
    not a string makes the chunk ``unclassified``."""
    cleaned = {clean_label(label) if isinstance(label, str) else UNCLASSIFIED for label in labels}
    cleaned.discard("")
    return frozenset(cleaned)
