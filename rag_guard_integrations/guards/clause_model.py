"""The semantic fingerprint's classifier: logistic regression over MiniLM embeddings of the
example sentences, trained once (the bundled set ships trained) and scored with numpy."""

from __future__ import annotations

import hashlib
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rag_guard_integrations.core.errors import EmbedderUnavailableError
from rag_guard_integrations.data.clause_examples import (
    BUNDLED_EXAMPLES,
    EXAMPLES_DIR,
    load_examples,
)
from rag_guard_integrations.guards.clause_passages import passages

if TYPE_CHECKING:
    from collections.abc import Sequence

    from rag_guard_integrations.data.clause_examples import ExampleSet
    from rag_guard_integrations.embeddings import Embedder

SHIPPED_MODEL = EXAMPLES_DIR / "model.npz"
# Inverse L2 strength of the regression (scikit-learn's C): the examples are few and clean, so
# the fit is allowed to follow them closely.
REGULARISATION_C = 10.0
TRAINING_VERSION = "1"  # change when the way of training changes: a shipped model is then stale


@dataclass(frozen=True, slots=True)
class ClauseModel:
    """Class probabilities for passages. A class is the label set of some examples (a shared
    sentence is its own class), so a label's probability is the sum over classes holding it.

    Example:
        >>> from rag_guard_integrations.embeddings import default_embedder
        >>> model = clause_model("contracts")
        >>> rows = model.probabilities(default_embedder().embed_documents(["Ohio law governs."]))
        >>> score, nearest, _ = model.best(rows, "GOVERNING_LAW")
        >>> score > 0.5
        True
    """

    classes: tuple[frozenset[str], ...]
    weights: Any  # numpy (dimensions, classes)
    bias: Any  # numpy (classes,)
    key: str

    def members(self, label: str) -> list[int]:
        """Indexes of the classes that hold ``label``."""
        return [i for i, labels in enumerate(self.classes) if label in labels]

    def probabilities(self, vectors: Sequence[Sequence[float]]) -> Any:
        """A (passages, classes) numpy array: each row sums to 1."""
        np = _numpy()
        logits = np.asarray(vectors, dtype=np.float32) @ self.weights + self.bias
        logits -= logits.max(axis=1, keepdims=True)
        exp = np.exp(logits)
        return exp / exp.sum(axis=1, keepdims=True)

    def best(self, rows: Any, label: str) -> tuple[float, str | None, float]:
        """From one text's passage probabilities (:meth:`probabilities`): the best passage's
        probability of ``label``, and the most probable other class there with its own."""
        np = _numpy()
        own = self.members(label)
        if not len(rows) or not own:
            return 0.0, None, 0.0
        scores = rows[:, own].sum(axis=1)
        best = int(scores.argmax())
        others = np.delete(rows[best], own)
        if not len(others):
            return float(scores[best]), None, 0.0
        rival = [i for i in range(len(self.classes)) if i not in own][int(others.argmax())]
        return float(scores[best]), "+".join(sorted(self.classes[rival])), float(rows[best, rival])


_lock = threading.Lock()
_models: dict[str, ClauseModel] = {}


def clause_model(ref: str) -> ClauseModel:
    """The classifier of example set ``ref`` for the default MiniLM embedder, built once per
    process: the bundled set's shipped model when it was trained on the current examples and
    model, else trained here (scikit-learn, which the ``embeddings`` extra brings).

    Raises:
        EmbedderUnavailableError: numpy, scikit-learn or the embedding model is missing.
    """
    examples = load_examples(ref)
    with _lock:
        model = _models.get(ref) or _shipped(examples) or train(examples)
        _models[ref] = model
        return model


def model_key(examples: ExampleSet) -> str:
    """What a model trained with the default embedder depends on: the example file, the way of
    training and the embedding model."""
    from rag_guard_integrations.embeddings import model_identity  # noqa: PLC0415 - optional extra

    parts = (examples.sha256, TRAINING_VERSION, str(REGULARISATION_C), model_identity())
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def train(examples: ExampleSet, embedder: Embedder | None = None) -> ClauseModel:
    """Fit the classifier on every passage of every example (deterministic: lbfgs), embedded
    by ``embedder`` (default: the MiniLM; a model trained with another embedder only scores
    that embedder's vectors)."""
    np = _numpy()
    try:
        from sklearn.linear_model import LogisticRegression  # noqa: PLC0415 - optional extra
    except ImportError:
        raise EmbedderUnavailableError(
            "training a clause model needs scikit-learn; run pip install "
            "'rag-guard-integrations[embeddings]'"
        ) from None
    key = model_key(examples) if embedder is None else "custom embedder"
    if embedder is None:
        from rag_guard_integrations.embeddings import default_embedder  # noqa: PLC0415

        embedder = default_embedder()
    classes = tuple(dict.fromkeys(examples.labels))
    rows: list[str] = []
    targets: list[int] = []
    for text, labels in zip(examples.texts, examples.labels, strict=True):
        parts = passages(text)
        rows += parts
        targets += [classes.index(labels)] * len(parts)
    vectors = np.asarray(embedder.embed_documents(rows), dtype=np.float32)
    fitted = LogisticRegression(C=REGULARISATION_C, max_iter=5000).fit(vectors, targets)
    return ClauseModel(
        classes,
        fitted.coef_.T.astype(np.float32),
        fitted.intercept_.astype(np.float32),
        key,
    )


def save(model: ClauseModel, path: str | Any = SHIPPED_MODEL) -> None:
    """Write ``model`` as the shipped one (``tools/train_clause_model.py`` calls this)."""
    np = _numpy()
    np.savez_compressed(
        path,
        weights=model.weights,
        bias=model.bias,
        classes=np.array(["+".join(sorted(c)) for c in model.classes]),
        key=np.array(model.key),
    )


def _shipped(examples: ExampleSet) -> ClauseModel | None:
    """The shipped model of the bundled set, or None when it is missing or stale."""
    if examples.name != BUNDLED_EXAMPLES or not SHIPPED_MODEL.is_file():
        return None
    np = _numpy()
    with np.load(SHIPPED_MODEL, allow_pickle=False) as stored:
        if str(stored["key"]) != model_key(examples):
            return None
        classes = tuple(frozenset(c.split("+")) for c in stored["classes"].tolist())
        return ClauseModel(classes, stored["weights"], stored["bias"], str(stored["key"]))


def _numpy() -> Any:
    try:
        import numpy  # noqa: PLC0415 - optional, comes with the embeddings extra
    except ImportError:
        raise EmbedderUnavailableError(
            "the semantic fingerprint needs numpy; run pip install "
            "'rag-guard-integrations[embeddings]'"
        ) from None
    return numpy
