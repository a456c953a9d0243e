"""The recogniser records: a named RE2 pattern with its label, checksum and context words, and a
names recogniser (persons or organisations)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Literal

from rag_guard_integrations.core.errors import ArgumentError
from rag_guard_integrations.core.labels import clean_label
from rag_guard_integrations.core.normalize import fold_pattern, normalize
from rag_guard_integrations.core.patterns import compile_pattern

Validator = Callable[[str], bool]
DEFAULT_WINDOW = 40


@dataclass(frozen=True, slots=True)
class Recognizer:
    """One kind of sensitive value: where it is (``regex``), what it means (``label``), and
    when a match really counts (``validator`` accepts the matched text, and one of the
    ``context`` words occurs within ``window`` characters of the match, or ``standalone``
    accepts it as unambiguous without any context word). ``standalone_regex`` is where such
    a value can be at all (cheap to test: text without it is not scanned for one).

    Patterns run on normalised text (case-folded, zero-width characters removed, full-width
    digits folded), so write them in lower case. Context words are normalised the same way:
    ``"téléphone"`` matches the text's ``Téléphone`` (which the matcher reads as ``telephone``).

    Example:
        >>> badge = Recognizer("badge", "pii", r"\\bbdg-\\d{6}\\b", context=("badge",))
        >>> badge.context_regex
        '\\\\b(?:badge)(?:s|es|ed|ing)?\\\\b'
    """

    name: str
    label: str
    regex: str
    validator: Validator | None = None
    context: tuple[str, ...] = ()
    window: int = DEFAULT_WINDOW
    standalone: Validator | None = None
    standalone_regex: str | None = None

    def __post_init__(self) -> None:
        label = _checked_label(self.name, self.label)
        if self.window < 0:
            raise ArgumentError(f"recognizer {self.name!r}: window={self.window} must be >= 0")
        # Text is folded before matching (accents dropped, look-alikes read as letters): so
        # is a pattern's non-ASCII text, or it could never match.
        object.__setattr__(self, "regex", fold_pattern(self.regex))
        if self.standalone_regex is not None:
            object.__setattr__(self, "standalone_regex", fold_pattern(self.standalone_regex))
        compile_pattern(self.regex)  # fail at definition, not at the first chunk
        if (self.standalone is None) != (self.standalone_regex is None):
            raise ArgumentError(
                f"recognizer {self.name!r}: give standalone and standalone_regex together"
            )
        if self.standalone_regex is not None:
            compile_pattern(self.standalone_regex)
        # Frozen slots dataclass: normalise the fields in place once.
        object.__setattr__(self, "label", label)
        object.__setattr__(self, "context", _words(self.context))

    @property
    def context_regex(self) -> str | None:
        """One RE2 pattern for the context words (whole words, simple inflections), or None."""
        if not self.context:
            return None
        words = "|".join(r"\s+".join(_escape(part) for part in w.split()) for w in self.context)
        return rf"\b(?:{words})(?:s|es|ed|ing)?\b"

    def with_label(self, label: str) -> Recognizer:
        """A copy that gives ``label`` instead of the default one."""
        return dataclasses.replace(self, label=label)


def _checked_label(name: str, label: str) -> str:
    """A recogniser's label as it is kept, once its name and label are known not to be empty."""
    if not name:
        raise ArgumentError("a recognizer needs a non-empty name")
    cleaned = clean_label(label)
    if not cleaned:
        raise ArgumentError(f"recognizer {name!r} has an empty label; give one")
    return cleaned


def _words(words: Iterable[str]) -> tuple[str, ...]:
    if isinstance(words, str):
        words = [words]
    return tuple(dict.fromkeys(normalize(w) for w in words if w.strip()))


def _escape(word: str) -> str:
    """Escape regex metacharacters for RE2 (``re.escape`` also escapes what RE2 rejects)."""
    return "".join(f"\\{c}" if not c.isalnum() and c != "_" else c for c in word)


NameKind = Literal["persons", "organizations"]


@dataclass(frozen=True, slots=True)
class NameRecognizer:
    """Personal or organisation names (``kind``), found by the names scanner of
    :mod:`~rag_guard_integrations.classify.recognizers.proper_names` rather than by a regex: it
    reads capitalisation, so it runs on the original text, once for all such recognisers.

    Example:
        >>> NameRecognizer("staff", "employee_identity", "persons").with_label("pii").label
        'pii'
    """

    name: str
    label: str
    kind: NameKind

    def __post_init__(self) -> None:
        label = _checked_label(self.name, self.label)
        if self.kind not in ("persons", "organizations"):
            raise ArgumentError(
                f"recognizer {self.name!r}: kind={self.kind!r}; use 'persons' or 'organizations'"
            )
        object.__setattr__(self, "label", label)

    def with_label(self, label: str) -> NameRecognizer:
        """A copy that gives ``label`` instead of the default one."""
        return dataclasses.replace(self, label=label)
