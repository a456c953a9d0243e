"""EmbeddingClassifier: zero-shot labels from how close a text is to each label's description."""

from __future__ import annotations

import asyncio
import re
import threading
from typing import TYPE_CHECKING

from rag_guard_integrations.classify.base import Classification, Finding, describe_error
from rag_guard_integrations.classify.vocabulary import VocabularyBound, label_specs
from rag_guard_integrations.core.cache import BoundedCache, text_key
from rag_guard_integrations.core.errors import ArgumentError, DataError
from rag_guard_integrations.embeddings import cosine, default_embedder, unit, usable

if TYPE_CHECKING:
    from collections.abc import Hashable, Mapping, Sequence

    from rag_guard_integrations.embeddings import Embedder
    from rag_guard_integrations.policy.schema import LabelSpec

RECOGNIZER = "embedding"
# The default model reads about 256 word pieces of a text, and one sentence's meaning fades
# in a long one: a longer text is also read sentence by sentence (see windows), and a label's
# similarity is its best one.
WINDOW_WORDS = 40
# Words are apart by white space or an invisible character (a zero-width space joins none).
_WORD_BREAK = re.compile(r"[\s\u200b-\u200d\u2060\ufeff]+")
_SENTENCE_BREAK = re.compile(r"(?<=[.!?;])[\s\u200b-\u200d\u2060\ufeff]+|\n\s*\n")
_UNUSABLE = "embedding classifier: the embedder gave a vector that is not finite or is zero"
NO_VOCABULARY = "embedding classifier has no labels; pass labels= or attach it to a Guard"
CacheKey = tuple[str, tuple[tuple[str, str, float], ...]]


class EmbeddingClassifier(VocabularyBound):
    """Labels a text with every label whose description it is close to.

    A label applies when the cosine similarity between the text and the label's description
    reaches the label's threshold (``LabelSpec.threshold``, else ``threshold=``). The finding's
    score is that similarity and its span the whole text. Descriptions are embedded once,
    texts in batches, and each text's result is cached. Labels without a description are
    skipped: there is nothing to compare with.

    Args:
        embedder: anything with ``embed_documents`` (a LangChain ``Embeddings`` fits); the
            default is the offline all-MiniLM-L6-v2, loaded on first use.
        labels: ``{label: description or LabelSpec}``. Without it the classifier takes the
            vocabulary of the guard's policy.
        threshold: similarity a label needs when its spec gives none.
        cache_size: results remembered per text; 0 disables the cache.

    Example:
        >>> classifier = EmbeddingClassifier(labels={
        ...     "medical": "patient diagnosis, treatment and prescriptions",
        ...     "financial": "revenue, prices, salaries and account balances",
        ... })
        >>> classifier.classify("The patient was prescribed insulin.").labels
        frozenset({'medical'})
    """

    def __init__(
        self,
        embedder: Embedder | None = None,
        labels: Mapping[str, str | LabelSpec] | None = None,
        threshold: float = 0.35,
        cache_size: int = 10_000,
    ) -> None:
        if not -1.0 <= threshold <= 1.0:
            raise ArgumentError(
                f"threshold={threshold!r} is outside [-1, 1]; use a cosine similarity"
            )
        self.threshold = float(threshold)
        self._embedder = embedder
        self._explicit = labels is not None
        # shared with bound copies: the vocabulary is part of every key
        self._cache: BoundedCache[Hashable, Classification] = BoundedCache(cache_size)
        self._lock = threading.Lock()
        self._use(label_specs(labels))

    @property
    def labels(self) -> Mapping[str, LabelSpec] | None:
        """The labels that can be given (those with a description); None until given or bound."""
        return self._labels

    def threshold_for(self, label: str) -> float:
        """The similarity ``label`` needs."""
        return self._thresholds[label]

    def classify_many(self, texts: Sequence[str]) -> list[Classification]:
        """Label texts in input order, embedding the uncached ones in one batch."""
        if self._labels is None:
            return [Classification.failed(NO_VOCABULARY) for _ in texts]
        if not self._labels:
            return [Classification(frozenset()) for _ in texts]
        keys = [(text_key(text), self._vocabulary_key) for text in texts]
        results: dict[CacheKey, Classification] = {}
        missing: dict[CacheKey, str] = {}
        for key, text in zip(keys, texts, strict=True):
            if key not in results and key not in missing:
                cached = self._cache.get(key)
                if cached is None:
                    missing[key] = text
                else:
                    results[key] = cached
        if missing:
            results.update(self._classify_batch(missing))
        return [results[key] for key in keys]

    async def aclassify_many(self, texts: Sequence[str]) -> list[Classification]:
        """:meth:`classify_many` on a worker thread, so the event loop keeps running."""
        return await asyncio.to_thread(self.classify_many, list(texts))

    def __repr__(self) -> str:
        labels = None if self._labels is None else sorted(self._labels)
        return f"EmbeddingClassifier(labels={labels!r}, threshold={self.threshold!r})"

    def _use(self, labels: dict[str, LabelSpec] | None) -> None:
        self._labels = (
            None
            if labels is None
            else {name: spec for name, spec in labels.items() if spec.description.strip()}
        )
        self._thresholds = {
            name: self.threshold if spec.threshold is None else spec.threshold
            for name, spec in (self._labels or {}).items()
        }
        self._vocabulary_key = tuple(
            sorted(
                (name, spec.description, self._thresholds[name])
                for name, spec in (self._labels or {}).items()
            )
        )
        self._label_vectors: dict[str, list[float]] | None = None

    def _classify_batch(self, texts: dict[CacheKey, str]) -> dict[CacheKey, Classification]:
        try:
            label_vectors = self._descriptions_embedded()
            pieces = [(key, piece) for key, text in texts.items() for piece in windows(text)]
            vectors = self._model().embed_documents([piece for _, piece in pieces])
            read: dict[CacheKey, list[list[float]]] = {key: [] for key in texts}
            for (key, _), vector in zip(pieces, vectors, strict=True):
                read[key].append(unit(vector))
            scored = {key: self._score(texts[key], read[key], label_vectors) for key in texts}
        except Exception as error:  # any embedder failure fails closed
            failure = Classification.failed(f"embedding classifier: {describe_error(error)}")
            return dict.fromkeys(texts, failure)
        for key, result in scored.items():
            if result.error is None:
                self._cache.put(key, result)
        return scored

    def _score(
        self, text: str, vectors: list[list[float]], label_vectors: Mapping[str, list[float]]
    ) -> Classification:
        if not all(usable(vector) for vector in vectors):
            return Classification.failed(_UNUSABLE)
        similarities = {
            label: max(cosine(vector, other) for vector in vectors)
            for label, other in label_vectors.items()
        }
        hits = sorted(
            (score, label)
            for label, score in similarities.items()
            if score >= self._thresholds[label]
        )
        findings = tuple(
            Finding(RECOGNIZER, label, 0, len(text), score) for score, label in reversed(hits)
        )
        return Classification(frozenset(label for _, label in hits), findings)

    def _model(self) -> Embedder:
        with self._lock:
            if self._embedder is None:
                self._embedder = default_embedder()
            return self._embedder

    def _descriptions_embedded(self) -> dict[str, list[float]]:
        model = self._model()
        with self._lock:
            if self._label_vectors is None:
                names = sorted(self._labels or {})
                descriptions = [(self._labels or {})[name].description for name in names]
                vectors = [unit(v) for v in model.embed_documents(descriptions)]
                if not all(usable(vector) for vector in vectors):
                    raise DataError("a label description's vector is not finite or is zero")
                self._label_vectors = dict(zip(names, vectors, strict=True))
            return self._label_vectors


def windows(text: str) -> list[str]:
    """What is embedded of ``text``: the text itself, and past :data:`WINDOW_WORDS` words also
    each of its sentences (one sentence's meaning fades in a long text), a sentence longer
    than that in windows of that many words every half window; distinct, in order.

    Example:
        >>> windows("a short text")
        ['a short text']
        >>> long = " ".join(["Walk on."] * 30 + ["The patient has diabetes."])
        >>> windows(long)[1:]
        ['Walk on.', 'The patient has diabetes.']
    """
    words = _WORD_BREAK.split(text.strip())
    if len(words) <= WINDOW_WORDS:
        return [text]
    found = [text]
    step = WINDOW_WORDS // 2
    for sentence in _SENTENCE_BREAK.split(text):
        part = [word for word in _WORD_BREAK.split(sentence) if word]
        if len(part) <= WINDOW_WORDS:
            found.append(" ".join(part))
            continue
        found += [" ".join(part[i : i + WINDOW_WORDS]) for i in range(0, len(part) - step, step)]
    return list(dict.fromkeys(piece for piece in found if piece))
