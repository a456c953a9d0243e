"""Binding a classifier to a label vocabulary: the shared base and ``labels=`` parsing."""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, TypeVar

from rag_guard_integrations.core.arguments import a_type
from rag_guard_integrations.core.errors import InputError
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
            raise InputError(
                f"labels[{name!r}] is {a_type(value)}; give a description string or a LabelSpec"
            )
        label = clean_label(name)
        if label and label != UNCLASSIFIED:
            specs[label] = LabelSpec(description=value) if isinstance(value, str) else value
    return specs
