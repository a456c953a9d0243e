"""PatternClassifier: the deterministic recognisers (regex and names), with a per-text cache."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from rag_guard_integrations.classify.base import Classification
from rag_guard_integrations.classify.pattern_scan import (
    PatternScanner,
    classification,
    new_finding,
)
from rag_guard_integrations.classify.recognizers import (
    BUILTIN_RECOGNIZERS,
    DEFAULT_RECOGNIZERS,
    VALIDATORS,
    AnyRecognizer,
    NameRecognizer,
    Recognizer,
)
from rag_guard_integrations.classify.recognizers.proper_names import find_names
from rag_guard_integrations.classify.vocabulary import VocabularyBound, label_specs
from rag_guard_integrations.core.cache import BoundedCache, text_key
from rag_guard_integrations.core.errors import ArgumentError, PolicyError
from rag_guard_integrations.policy.loader import load_policy

if TYPE_CHECKING:
    from collections.abc import Hashable, Iterable, Sequence

    from rag_guard_integrations.classify.vocabulary import LabelsArg
    from rag_guard_integrations.policy.loader import PolicyRef
    from rag_guard_integrations.policy.schema import LabelSpec

DEFAULT_CACHE_SIZE = 4096
# Below this many characters a batch is classified inline; above it, in a worker thread so
# that a large batch does not stall the event loop.
_INLINE_CHARS = 65_536


class _Matcher:
    """The regex recognisers' scanner and the names recognisers, with a bounded per-text
    cache of what they found. Shared by the bound copies of a classifier."""

    def __init__(self, recognizers: tuple[AnyRecognizer, ...], cache_size: int) -> None:
        self.recognizers = recognizers
        self._patterns = PatternScanner([r for r in recognizers if isinstance(r, Recognizer)])
        # The names recognisers read capitalisation: one scan of the original text serves all.
        self._names = tuple(r for r in recognizers if isinstance(r, NameRecognizer))
        self._classify = self._with_names if self._names else self._patterns.classify
        self._cache: BoundedCache[Hashable, Classification] | None = (
            BoundedCache(cache_size) if cache_size else None
        )
        if self._cache is None:  # one call less per text
            self.classify = self._classify  # type: ignore[method-assign]

    def classify(self, text: str) -> Classification:
        """Every finding in ``text`` (cached), before any vocabulary is applied."""
        assert self._cache is not None  # else __init__ made this _classify
        key = text_key(text)
        result = self._cache.get(key)
        if result is None:
            result = self._classify(text)
            self._cache.put(key, result)
        return result

    def _with_names(self, text: str) -> Classification:
        names = find_names(text)
        return classification(
            [
                *self._patterns.classify(text).findings,
                *(
                    new_finding(r.name, r.label, start, end, 1.0)
                    for r in self._names
                    for start, end in getattr(names, r.kind)
                ),
            ]
        )


class PatternClassifier(VocabularyBound):
    """Labels text with deterministic recognisers: regex, checksum, and context words, and the
    personal and organisation names of :mod:`~.recognizers.proper_names`.

    All regex recognisers run in one RE2 pass (a ``re2.Set``); only those that occur are
    scanned again for their spans. Text is normalised first, so zero-width characters and
    full-width digits do not hide a value. The names recognisers share one scan of the original
    text (capitalisation is their signal). Every finding's offsets index the original text.

    Key init args:
        recognizers: :class:`Recognizer` or :class:`NameRecognizer` objects or built-in names;
            None means every built-in regex recogniser with its default label (``pii``,
            ``financial``, ``health`` or ``organization``). The names recognisers ``person``
            and ``organization`` read capitalisation, cost several times the rest together,
            and run only when named (the built-in packs name them).
        labels: the vocabulary this classifier may answer with; findings with other labels
            are dropped and recorded in ``Classification.dropped``. When given,
            :meth:`bind` keeps it instead of taking the policy's.
        cache_size: how many texts' results to remember (0 disables the cache).

    Example:
        >>> classifier = PatternClassifier(["email", "credit_card"])
        >>> result = classifier.classify("Mail jo@example.com, card 4111 1111 1111 1111")
        >>> sorted(result.labels)
        ['financial', 'pii']
        >>> [(f.recognizer, f.start, f.end) for f in result.findings]
        [('email', 5, 19), ('credit_card', 26, 45)]
    """

    def __init__(
        self,
        recognizers: Iterable[AnyRecognizer | str] | None = None,
        labels: LabelsArg | None = None,
        *,
        cache_size: int = DEFAULT_CACHE_SIZE,
    ) -> None:
        chosen = _recognizers(recognizers)
        self._explicit = labels is not None
        specs = label_specs(labels)
        self._vocabulary: frozenset[str] | None = None if specs is None else frozenset(specs)
        self._matcher = _Matcher(chosen, cache_size)
        self._cache_size = cache_size

    @classmethod
    def from_policy(
        cls, policy: PolicyRef, *, cache_size: int = DEFAULT_CACHE_SIZE
    ) -> PatternClassifier:
        """The policy's ``classifiers.patterns`` plus the built-ins ``classifiers.builtin`` maps
        to its labels (only the patterns when ``builtin`` is empty).

        Raises:
            PolicyError: an unknown built-in name, or a recogniser name used twice.
        """
        policy = load_policy(policy)
        where = ", ".join(policy.sources) or "policy"
        chosen: list[AnyRecognizer] = []
        for index, spec in enumerate(policy.classifiers.patterns):
            validator = VALIDATORS[spec.validator] if spec.validator else None
            try:
                recognizer = Recognizer(
                    spec.name, spec.label, spec.regex, validator, tuple(spec.context)
                )
            except ValueError as error:
                raise PolicyError(f"{where}: classifiers.patterns[{index}]: {error}") from None
            chosen.append(recognizer)
        for name, label in policy.classifiers.builtin.items():
            builtin = BUILTIN_RECOGNIZERS.get(name)
            if builtin is None:
                choices = ", ".join(BUILTIN_RECOGNIZERS)
                raise PolicyError(
                    f"{where}: classifiers.builtin.{name} is not a built-in recognizer; "
                    f"use one of {choices}"
                )
            chosen.append(builtin.with_label(label))
        try:
            return cls(chosen, cache_size=cache_size)
        except ValueError as error:
            raise PolicyError(f"{where}: classifiers: {error}") from None

    @property
    def recognizers(self) -> tuple[AnyRecognizer, ...]:
        """The recognisers this classifier runs, in order."""
        return self._matcher.recognizers

    @property
    def vocabulary(self) -> frozenset[str] | None:
        """The labels it may answer with, or None for any label its recognisers give."""
        return self._vocabulary

    def classify(self, text: str) -> Classification:
        """Label one text; never raises (a failure gives ``Classification.failed``)."""
        if not isinstance(text, str):
            return Classification.failed(f"expected text as a str, got {type(text).__name__}")
        try:
            found = self._matcher.classify(text)
            if self._vocabulary is None or found.labels <= self._vocabulary:
                return found  # nothing to drop (also when nothing was found)
            return self._restrict(found)
        except Exception as error:  # one bad text must not fail the batch
            return Classification.failed(f"pattern classifier: {type(error).__name__}: {error}")

    def classify_many(self, texts: Sequence[str]) -> list[Classification]:
        """Label several texts, in order."""
        return [self.classify(text) for text in texts]

    async def aclassify_many(self, texts: Sequence[str]) -> list[Classification]:
        """Async twin of :meth:`classify_many` (same results)."""
        size = sum(len(t) for t in texts if isinstance(t, str))
        if size <= _INLINE_CHARS:
            return self.classify_many(texts)
        return await asyncio.to_thread(self.classify_many, list(texts))

    def _use(self, labels: dict[str, LabelSpec] | None) -> None:
        # Binding keeps the compiled patterns and the cache; only the vocabulary changes.
        self._vocabulary = frozenset(labels or ())

    def _restrict(self, found: Classification) -> Classification:
        assert self._vocabulary is not None
        kept = tuple(f for f in found.findings if f.label in self._vocabulary)
        dropped = frozenset(f.label for f in found.findings) - self._vocabulary
        return Classification(frozenset(f.label for f in kept), kept, dropped)

    def __reduce__(self) -> tuple[Any, ...]:
        # The compiled RE2 set and the cache's lock cannot be pickled: a copy sent to another
        # process (a Ray worker) recompiles from the recognisers and starts with an empty cache.
        state = (self.recognizers, self._vocabulary, self._explicit, self._cache_size)
        return (_restore, state)

    def __repr__(self) -> str:
        names = [r.name for r in self.recognizers]
        labels = None if self._vocabulary is None else sorted(self._vocabulary)
        return f"PatternClassifier(recognizers={names!r}, labels={labels!r})"


def _recognizers(items: Iterable[AnyRecognizer | str] | None) -> tuple[AnyRecognizer, ...]:
    if items is None:
        return DEFAULT_RECOGNIZERS
    if isinstance(items, str | Recognizer | NameRecognizer):
        items = [items]
    chosen: list[AnyRecognizer] = []
    seen: set[str] = set()
    for item in items:
        recognizer = _recognizer(item)
        if recognizer.name in seen:
            raise ArgumentError(f"recognizer name {recognizer.name!r} is given twice; rename one")
        seen.add(recognizer.name)
        chosen.append(recognizer)
    return tuple(chosen)


def _recognizer(item: Any) -> AnyRecognizer:
    if isinstance(item, Recognizer | NameRecognizer):
        return item
    if isinstance(item, str) and item in BUILTIN_RECOGNIZERS:
        return BUILTIN_RECOGNIZERS[item]
    choices = ", ".join(BUILTIN_RECOGNIZERS)
    raise ArgumentError(
        f"{item!r} is not a built-in recognizer or a Recognizer; use one of {choices}"
    )


def _restore(
    recognizers: tuple[AnyRecognizer, ...],
    vocabulary: frozenset[str] | None,
    labels_given: bool,
    cache_size: int,
) -> PatternClassifier:
    classifier = PatternClassifier(recognizers, cache_size=cache_size)
    classifier._vocabulary = vocabulary
    classifier._explicit = labels_given
    return classifier
