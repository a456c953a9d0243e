"""PatternClassifier: the deterministic recognisers, matched in one RE2 pass per text."""

from __future__ import annotations

import asyncio
import re
import unicodedata
from operator import attrgetter
from typing import TYPE_CHECKING, Any, NamedTuple

from rag_guard_integrations.classify.base import Classification, Finding
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
from rag_guard_integrations.core.normalize import ASCII_LINE_FOLDS, fold_keeping_lines
from rag_guard_integrations.core.patterns import (
    PatternSet,
    char_spans,
    compile_pattern,
    find_spans,
)
from rag_guard_integrations.core.records import slot_filler
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
_NOTHING = Classification(frozenset())
# Made for every finding and every text with one: filled slot by slot.
_new_finding = slot_filler(Finding)
_new_classification = slot_filler(Classification)
_FINDING_ORDER = attrgetter("start", "end", "recognizer")
_EMPTY: frozenset[str] = frozenset()
_SPACE_RUN = re.compile(r"  +")
# A digit followed by a digit: where dropped characters may have joined two digit groups.
_DIGIT_PAIR = re.compile(r"\d(?=\d)")


class _Entry(NamedTuple):
    """One recogniser as the matcher runs it: compiled pattern and context words, and the
    slots of its context words and standalone gate in the set (None: it has none)."""

    recognizer: Recognizer
    regex: Any
    context: Any
    context_slot: int | None
    standalone_slot: int | None


class _Matcher:
    """Recognisers compiled into one ``re2.Set`` (their patterns and context words), with a
    bounded per-text cache of what they found. Shared by the bound copies of a classifier."""

    def __init__(self, recognizers: tuple[AnyRecognizer, ...], cache_size: int) -> None:
        self.recognizers = recognizers
        regexes = [r for r in recognizers if isinstance(r, Recognizer)]
        # The names recognisers read capitalisation: one scan of the original text serves all.
        self._names = tuple(r for r in recognizers if isinstance(r, NameRecognizer))
        # Recognisers come first in the set, so that index i of a hit is recogniser i.
        patterns = [r.regex for r in regexes]
        self._entries: list[_Entry] = []
        for recognizer in regexes:
            context, gate = recognizer.context_regex, recognizer.standalone_regex
            context_slot = standalone_slot = None
            if context is not None:
                context_slot = len(patterns)
                patterns.append(context)
            if gate is not None:
                standalone_slot = len(patterns)
                patterns.append(gate)
            self._entries.append(
                _Entry(
                    recognizer,
                    compile_pattern(recognizer.regex),
                    None if context is None else compile_pattern(context),
                    context_slot,
                    standalone_slot,
                )
            )
        self._set = PatternSet(patterns)
        self._match_utf8 = self._set.match_utf8
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

    def _classify(self, text: str) -> Classification:
        found = self._classify_patterns(text)
        if not self._names:
            return found
        names = find_names(text)
        extra = [
            _new_finding(r.name, r.label, start, end, 1.0)
            for r in self._names
            for start, end in getattr(names, r.kind)
        ]
        if not extra:
            return found
        return _result([*found.findings, *extra], None)

    def _classify_patterns(self, text: str) -> Classification:
        folded, data, offsets = _fold(text)
        # The set already says which recognisers (and context words) occur at all: only
        # those are scanned again for their spans.
        hits = self._match_utf8(data)
        hits.sort()
        count = len(self._entries)
        if not hits or hits[0] >= count:
            return _NOTHING
        findings: list[Finding] = []
        for index in hits:
            if index >= count:
                break
            recognizer, regex, context, slot, gate = self._entries[index]
            no_context = slot is not None and slot not in hits
            if no_context and gate not in hits:
                continue
            # Context spans, found at first need; none when the set saw no context word.
            near: list[tuple[int, int]] | None = [] if no_context else None
            validator, window = recognizer.validator, recognizer.window
            for low, high in _scan(regex, data, folded):
                value = folded[low:high]
                if validator is not None and not validator(value):
                    continue
                if slot is not None:
                    if near is None:
                        near = _scan(context, data, folded)
                    for start, end in near:
                        if start < high + window and end > low - window:
                            break  # a context word is near
                    else:
                        standalone = recognizer.standalone
                        if standalone is None or not standalone(value):
                            continue
                findings.append(_new_finding(recognizer.name, recognizer.label, low, high, 1.0))
        return _result(findings, offsets) if findings else _NOTHING


def _result(findings: list[Finding], offsets: list[int] | None) -> Classification:
    """The classification of what was found (one finding or more), with spans in folded text
    moved to the original text's offsets (None: the same), in text order."""
    if offsets is not None:
        findings = [
            _new_finding(f.recognizer, f.label, offsets[f.start], offsets[f.end - 1] + 1, 1.0)
            for f in findings
        ]
    if len(findings) > 1:
        findings.sort(key=_FINDING_ORDER)
    return _new_classification(
        frozenset([f.label for f in findings]), tuple(findings), _EMPTY, None
    )


def _fold(text: str) -> tuple[str, bytes, list[int] | None]:
    """Normalise for matching, keeping line breaks (values do not run across lines) and
    squeezing runs of spaces and tabs to one space (``4111  1111``, ``078\t05\t1120`` read as
    written with one space): the folded text, its UTF-8 (what RE2 scans), and each
    character's offset into ``text``: None when the offsets are the identity (plain ASCII with
    no run of spaces, the common case)."""
    if text.isascii():
        # Bytes: one 256-entry table lower-cases and maps white space. A text with a control
        # character (NUL after the table) or a run of spaces takes the general path below.
        # (find, not "in": on bytes, "in" first tries the argument as an int and raises.)
        data = text.encode("ascii").translate(ASCII_LINE_FOLDS)
        if data.find(b"\0") < 0 and data.find(b"  ") < 0:
            return data.decode("ascii"), data, None
    folded, offsets = fold_keeping_lines(text)
    if offsets is None:
        if "  " not in folded:
            return folded, folded.encode(), None
        offsets = list(range(len(folded)))
    else:
        folded, offsets = _keep_digit_groups(text, folded, offsets)
    folded, offsets = _squeeze(folded, offsets)
    return folded, folded.encode(), offsets


def _keep_digit_groups(text: str, folded: str, offsets: list[int]) -> tuple[str, list[int]]:
    """Invisible format characters (zero-width spaces, joiners) dropped between two digits
    become a space: ``078\u200b05\u200b1120`` reads as the grouped ``078 05 1120`` it shows,
    not as one bare run of digits that needs a context word."""
    splits = [
        index
        for index in (match.end() for match in _DIGIT_PAIR.finditer(folded))
        if offsets[index] - offsets[index - 1] > 1
        and all(
            unicodedata.category(char) == "Cf"
            for char in text[offsets[index - 1] + 1 : offsets[index]]
        )
    ]
    if not splits:
        return folded, offsets
    chars, kept, position = [], [], 0
    for index in splits:
        chars.append(folded[position:index] + " ")
        kept.extend([*offsets[position:index], offsets[index - 1] + 1])
        position = index
    chars.append(folded[position:])
    kept.extend(offsets[position:])
    return "".join(chars), kept


def _squeeze(folded: str, offsets: list[int]) -> tuple[str, list[int]]:
    """Runs of spaces become their first space; the offsets follow."""
    if "  " not in folded:
        return folded, offsets
    parts: list[str] = []
    kept: list[int] = []
    position = 0
    for match in _SPACE_RUN.finditer(folded):
        keep = match.start() + 1
        parts.append(folded[position:keep])
        kept.extend(offsets[position:keep])
        position = match.end()
    parts.append(folded[position:])
    kept.extend(offsets[position:])
    return "".join(parts), kept


def _scan(regex: Any, data: bytes, folded: str) -> list[tuple[int, int]]:
    """Non-empty match spans of ``regex`` in ``data``, the UTF-8 of ``folded``, as offsets into
    ``folded``. RE2 scans bytes: the wrapper's offset translation on a str costs several
    times the match itself, so byte offsets are turned into character offsets here, and only
    when the text is not ASCII."""
    spans = find_spans(regex, data)
    if not spans or len(data) == len(folded):
        return spans
    return char_spans(spans, data)


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
