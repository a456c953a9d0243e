"""The semantic fingerprint's classifier: the shipped model is the one the examples give."""

from __future__ import annotations

import numpy as np
import pytest

from rag_guard_integrations.data.clause_examples import load_examples
from rag_guard_integrations.embeddings import default_embedder
from rag_guard_integrations.guards.clause_model import (
    SHIPPED_MODEL,
    clause_model,
    model_key,
    train,
)

EXAMPLES = load_examples("contracts")
PROBES = [
    "Either party may end this agreement on ninety days' notice.",
    "The laws of Ontario govern this contract.",
    "Supplier shall keep product liability insurance in force.",
    "Neither party shall hire the other's staff for a year.",
    "Licensee may not transfer this licence without consent.",
    "The Company may terminate if it is acquired by a competitor of the Partner.",
]


def test_the_shipped_model_was_trained_on_the_current_examples() -> None:
    """The shipped file's key is the examples', training's and model's: it is not stale."""
    stored = np.load(SHIPPED_MODEL, allow_pickle=False)
    assert str(stored["key"]) == model_key(EXAMPLES)
    assert clause_model("contracts").key == model_key(EXAMPLES)


def test_a_fresh_training_gives_the_shipped_model() -> None:
    """Training again on the examples (as the package does when the file is stale) scores new
    sentences as the shipped model does."""
    shipped, fresh = clause_model("contracts"), train(EXAMPLES)
    assert fresh.classes == shipped.classes
    vectors = default_embedder().embed_documents(PROBES)
    assert np.allclose(fresh.probabilities(vectors), shipped.probabilities(vectors), atol=0.02)


def test_probabilities_are_a_distribution_and_best_names_the_rival() -> None:
    """Each passage's class probabilities sum to 1; ``best`` gives the label's score and the
    most probable class that is not it."""
    model = clause_model("contracts")
    rows = model.probabilities(default_embedder().embed_documents(PROBES))
    assert np.allclose(rows.sum(axis=1), 1.0)
    score, rival, rival_score = model.best(rows[5:6], "CHANGE_OF_CONTROL")
    assert score > rival_score
    assert rival is not None
    assert "CHANGE_OF_CONTROL" not in rival.split("+")
    assert model.best(rows[:0], "CHANGE_OF_CONTROL") == (0.0, None, 0.0)


@pytest.mark.parametrize(
    ("probe", "label"),
    [(0, "TERMINATION_NOTICE"), (1, "GOVERNING_LAW"), (2, "INSURANCE"), (3, "NON_SOLICIT"),
     (4, "ASSIGNMENT"), (5, "CHANGE_OF_CONTROL")],
)  # fmt: skip
def test_each_probe_is_most_likely_its_clause(probe: int, label: str) -> None:
    """Sentences written for this test go to the clause they state."""
    model = clause_model("contracts")
    rows = model.probabilities(default_embedder().embed_documents([PROBES[probe]]))
    assert set(model.classes[int(rows[0].argmax())]) >= {label}
