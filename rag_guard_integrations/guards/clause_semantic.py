"""The semantic signal of clause fingerprints: how likely a chunk's most clause-like passage
is a given clause, judged for many chunks with one batch of embeddings."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rag_guard_integrations.data.clause_examples import load_examples
from rag_guard_integrations.guards.clause_model import clause_model, train
from rag_guard_integrations.guards.clause_passages import passages

if TYPE_CHECKING:
    from collections.abc import Sequence

    from rag_guard_integrations.embeddings import Embedder
    from rag_guard_integrations.guards.clause_model import ClauseModel


@dataclass(frozen=True, slots=True)
class SemanticVerdict:
    """The best passage's probability of being the clause, and the most probable other label
    there (what the passage looks like instead)."""

    score: float
    nearest: str | None
    nearest_score: float

    def explain(self, label: str) -> str:
        """One line for a decision's reason."""
        other = f", nearest {self.nearest} {self.nearest_score:.2f}" if self.nearest else ""
        return f"semantic {label} {self.score:.2f}{other}"


class SemanticSignal:
    """Scores texts against the clause labels of one example set.

    Every passage of every text of a batch is embedded in one call (the MiniLM embedder
    caches texts it has seen), then scored by the example set's classifier. The classifier and
    the embedder load on first use, so a guard whose regexes decide everything never loads
    them; when they cannot load, :meth:`judge` raises and the clause guard denies the chunks it
    could not judge (fail closed).

    Example:
        >>> signal = SemanticSignal("contracts")
        >>> verdict, = signal.judge([("Ohio law governs this Agreement.", "GOVERNING_LAW")])
        >>> verdict.score > 0.5
        True
    """

    def __init__(self, examples: str, embedder: Embedder | None = None) -> None:
        self.examples = examples
        self._embedder = embedder
        self._model: ClauseModel | None = None
        self._lock = threading.Lock()

    def labels(self) -> frozenset[str]:
        """The labels the example set can judge (reads the file, loads no model)."""
        return load_examples(self.examples).label_names

    def judge(self, items: Sequence[tuple[str, str]]) -> list[SemanticVerdict]:
        """One verdict per ``(text, label)``, in order."""
        tables = self.verdicts([text for text, _ in items], [[label] for _, label in items])
        return [table[0] for table in tables]

    def verdicts(
        self, texts: Sequence[str], labels: Sequence[Sequence[str]]
    ) -> list[list[SemanticVerdict]]:
        """For each text, one verdict per label of ``labels[i]`` (every passage of every text
        embedded in one call)."""
        if not texts:
            return []
        model, embedder = self._loaded()
        cuts = [passages(text) for text in texts]
        rows = model.probabilities(embedder.embed_documents([p for cut in cuts for p in cut]))
        found: list[list[SemanticVerdict]] = []
        start = 0
        for cut, wanted in zip(cuts, labels, strict=True):
            block = rows[start : start + len(cut)]
            start += len(cut)
            found.append([SemanticVerdict(*model.best(block, label)) for label in wanted])
        return found

    def _loaded(self) -> tuple[ClauseModel, Embedder]:
        with self._lock:
            if self._embedder is None:
                from rag_guard_integrations.embeddings import default_embedder  # noqa: PLC0415

                return clause_model(self.examples), default_embedder()
            if self._model is None:
                self._model = train(load_examples(self.examples), self._embedder)
            return self._model, self._embedder
