"""What the model-backed classifiers share: binding to a vocabulary, label specs, text keys."""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, TypeVar

from rag_guard_integrations.core.labels import UNCLASSIFIED, clean_label
from rag_guard_integrations.policy.schema import LabelSpec

if TYPE_CHECKING:
    from rag_guard_integrations.classify.base import Classification

LabelsArg = Mapping[str, str | LabelSpec] | Iterable[str]
_Bound = TypeVar("_Bound", bound="VocabularyBound")


class VocabularyBound:
    """Base of the classifiers that take their labels from a policy unless given ``labels=``."""

    _explicit: bool

    def _use(self, labels: dict[str, LabelSpec] | None) -> None:
        raise NotImplementedError

    def classify_many(self, texts: Sequence[str]) -> list[Classification]:
        raise NotImplementedError

    def bind(self: _Bound, vocabulary: Mapping[str, LabelSpec]) -> _Bound:
        """A copy that uses ``vocabulary``, or this classifier if it was given ``labels=``."""
        if self._explicit:
            return self
        bound = copy.copy(self)
        bound._use(label_specs(vocabulary))
        return bound

    def classify(self, text: str) -> Classification:
        """Label one text (never raises: failures come back as ``unclassified``)."""
        return self.classify_many([text])[0]


def label_specs(labels: LabelsArg | None) -> dict[str, LabelSpec] | None:
    """Turn ``labels=`` into ``{clean label: LabelSpec}``, without ``unclassified``.

    A mapping value may be a description or a :class:`LabelSpec`; a plain list of names gives
    labels without descriptions. ``None`` stays ``None`` (no vocabulary yet).

    Raises:
        TypeError: a mapping value is neither a string nor a LabelSpec.
    """
    if labels is None:
        return None
    if isinstance(labels, str):
        labels = [labels]
    items = labels.items() if isinstance(labels, Mapping) else ((name, "") for name in labels)
    specs: dict[str, LabelSpec] = {}
    for name, value in items:
        if not isinstance(value, str | LabelSpec):
            raise TypeError(
                f"labels[{name!r}] is a {type(value).__name__}; give a description string "
                "or a LabelSpec"
            )
        label = clean_label(name)
        if label and label != UNCLASSIFIED:
            specs[label] = LabelSpec(description=value) if isinstance(value, str) else value
    return specs


def text_key(text: str) -> str:
    """A fixed-size cache key for a text (its sha256), so long chunks are not kept twice."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def check_threshold(name: str, value: float) -> float:
    """A cosine threshold must lie in [-1, 1].

    Raises:
        ValueError: naming the argument, the value and the allowed range.
    """
    if not -1.0 <= value <= 1.0:
        raise ValueError(f"{name}={value!r} is outside [-1, 1]; use a cosine similarity")
    return float(value)


def describe_error(error: BaseException) -> str:
    """``"ConnectError: [Errno 111] Connection refused"``: type and first line of the message."""
    lines = str(error).splitlines()
    return f"{type(error).__name__}: {lines[0]}" if lines else type(error).__name__
