"""What every classifier returns and the small interface the guard calls."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from rag_guard_integrations.core.labels import UNCLASSIFIED

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from rag_guard_integrations.policy.schema import LabelSpec


@dataclass(frozen=True, slots=True)
class Finding:
    """Why a label was given: recogniser name, label and the span in the original text."""

    recognizer: str
    label: str
    start: int
    end: int
    score: float = 1.0


@dataclass(frozen=True, slots=True)
class Classification:
    """Labels for one text. ``dropped`` holds labels outside the vocabulary; ``error`` says
    why the text could not be classified (then ``labels`` is ``{"unclassified"}``)."""

    labels: frozenset[str]
    findings: tuple[Finding, ...] = ()
    dropped: frozenset[str] = frozenset()
    error: str | None = None

    @classmethod
    def failed(cls, reason: str) -> Classification:
        """The fail-closed result: the text carries ``unclassified``, which packs block."""
        return cls(frozenset({UNCLASSIFIED}), error=reason)


@runtime_checkable
class Classifier(Protocol):
    """Labels texts. ``bind`` returns a copy restricted to a policy's vocabulary, unless the
    classifier was given ``labels=`` itself. Classifiers never raise for one bad text: they
    return :meth:`Classification.failed`."""

    def classify(self, text: str) -> Classification: ...

    def classify_many(self, texts: Sequence[str]) -> list[Classification]: ...

    async def aclassify_many(self, texts: Sequence[str]) -> list[Classification]: ...

    def bind(self, vocabulary: Mapping[str, LabelSpec]) -> Classifier: ...


def describe_error(error: BaseException) -> str:
    """``"ConnectError: [Errno 111] Connection refused"``: type and first line of the message."""
    lines = str(error).splitlines()
    return f"{type(error).__name__}: {lines[0]}" if lines else type(error).__name__
