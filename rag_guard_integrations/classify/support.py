"""What the model-backed classifiers share: binding to a vocabulary, label specs, a result cache."""

from __future__ import annotations

import copy
import hashlib
import threading
from collections import OrderedDict
from collections.abc import Hashable, Iterable, Mapping, Sequence
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


class ResultCache:
    """A thread-safe LRU map from a key to a :class:`Classification`; size 0 disables it."""

    def __init__(self, size: int) -> None:
        if size < 0:
            raise ValueError(f"cache_size={size!r} is negative; use 0 to disable the cache")
        self._size = size
        self._items: OrderedDict[Hashable, Classification] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Hashable) -> Classification | None:
        """The cached result for ``key`` (marking it recently used), or None."""
        with self._lock:
            result = self._items.get(key)
            if result is not None:
                self._items.move_to_end(key)
            return result

    def put(self, key: Hashable, result: Classification) -> None:
        """Remember ``result``; the least recently used entry goes when the cache is full."""
        if self._size == 0:
            return
        with self._lock:
            self._items[key] = result
            self._items.move_to_end(key)
            while len(self._items) > self._size:
                self._items.popitem(last=False)

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)
