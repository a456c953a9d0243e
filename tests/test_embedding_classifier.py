"""Tests for EmbeddingClassifier with the real all-MiniLM-L6-v2 embedder."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

import pytest

from rag_guard_integrations import parse_policy
from rag_guard_integrations.classify.embedding import EmbeddingClassifier
from rag_guard_integrations.core.labels import UNCLASSIFIED
from rag_guard_integrations.embeddings import cosine
from rag_guard_integrations.policy.schema import LabelSpec

if TYPE_CHECKING:
    from collections.abc import Callable

    from rag_guard_integrations.embeddings import MiniLMEmbedder

LABELS = {
    "medical": "a patient's diagnosis, symptoms, treatment or prescribed medication",
    "financial": "revenue, salaries, invoices, prices or bank account balances",
    "legal": "contract terms, termination notice, liability and governing law",
}


class CountingEmbedder:
    """The real embedder, counting what it is asked to embed."""

    def __init__(self, inner: MiniLMEmbedder) -> None:
        self.inner = inner
        self.calls: list[list[str]] = []

    def embed_query(self, text: str) -> list[float]:
        return self.embed_documents([text])[0]

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.calls.append(list(texts))
        return self.inner.embed_documents(texts)


class BrokenEmbedder:
    """An embedder whose model cannot run."""

    def embed_query(self, text: str) -> list[float]:
        raise RuntimeError("model weights are missing")

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        raise RuntimeError("model weights are missing")


@pytest.fixture
def counting(embedder: MiniLMEmbedder) -> CountingEmbedder:
    """The session's MiniLM behind a call counter."""
    return CountingEmbedder(embedder)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The patient was diagnosed with type 2 diabetes and prescribed metformin.", {"medical"}),
        ("Her blood pressure was high, so the doctor changed her medication.", {"medical"}),
        ("The invoice total of $1,250 is due to the bank account by Friday.", {"financial"}),
        ("Either party may terminate this agreement with thirty days written notice.", {"legal"}),
        ("The hiking trail climbs through pine forest to a mountain lake.", set()),
    ],
)
def test_descriptions_label_matching_texts(
    embedder: MiniLMEmbedder, text: str, expected: set[str]
) -> None:
    """A text gets the labels whose description it is about, and no others."""
    result = EmbeddingClassifier(embedder, labels=LABELS, threshold=0.3).classify(text)
    assert result.labels == expected
    assert result.error is None


def test_finding_scores_are_the_cosine_similarity(embedder: MiniLMEmbedder) -> None:
    """Each finding spans the whole text and scores the text-description similarity."""
    text = "Quarterly revenue rose and salaries were frozen."
    result = EmbeddingClassifier(embedder, labels=LABELS, threshold=-1.0).classify(text)
    assert result.labels == set(LABELS)
    expected = {
        label: cosine(embedder.embed_query(text), embedder.embed_query(description))
        for label, description in LABELS.items()
    }
    for finding in result.findings:
        assert (finding.recognizer, finding.start, finding.end) == ("embedding", 0, len(text))
        assert finding.score == pytest.approx(expected[finding.label], abs=1e-5)
    scores = [finding.score for finding in result.findings]
    assert scores == sorted(scores, reverse=True)


@pytest.mark.parametrize(
    ("labels", "threshold", "expected"),
    [
        ({"financial": LABELS["financial"]}, 0.99, set()),
        ({"financial": LABELS["financial"]}, 0.3, {"financial"}),
        ({"financial": LabelSpec(description=LABELS["financial"], threshold=0.99)}, 0.3, set()),
        (
            {"financial": LabelSpec(description=LABELS["financial"], threshold=0.3)},
            0.99,
            {"financial"},
        ),
        (
            {"legal": LABELS["legal"], "financial": LABELS["financial"]},
            -1.0,
            {"legal", "financial"},
        ),
    ],
)
def test_thresholds_are_respected(
    embedder: MiniLMEmbedder,
    labels: dict[str, str | LabelSpec],
    threshold: float,
    expected: set[str],
) -> None:
    """A label's own threshold wins over the default; a label below its threshold is absent."""
    text = "The invoice total of $1,250 is due to the bank account by Friday."
    classifier = EmbeddingClassifier(embedder, labels=labels, threshold=threshold)
    assert classifier.classify(text).labels == expected


def test_bind_takes_described_policy_labels(embedder: MiniLMEmbedder) -> None:
    """Bound to a policy it uses the labels that have a description, never unclassified."""
    policy = parse_policy(
        "version: 1\n"
        "labels:\n"
        f'  medical: {{description: "{LABELS["medical"]}", threshold: 0.3}}\n'
        "  secret: {}\n"
        "rules:\n"
        "  - {name: r, trigger: {all_present: [medical, entity_identifier]}}\n"
    )
    unbound = EmbeddingClassifier(embedder, threshold=-1.0)
    assert unbound.classify("anything").labels == {UNCLASSIFIED}
    assert "no labels" in (unbound.classify("anything").error or "")

    bound = unbound.bind(policy.vocabulary)
    assert set(bound.labels or {}) == {"medical"}
    assert bound.threshold_for("medical") == 0.3
    result = bound.classify("The patient was prescribed insulin for diabetes.")
    assert result.labels == {"medical"}

    explicit = EmbeddingClassifier(embedder, labels={"legal": LABELS["legal"]})
    assert explicit.bind(policy.vocabulary) is explicit


def test_descriptions_are_embedded_once_and_texts_cached(counting: CountingEmbedder) -> None:
    """Descriptions are embedded once, texts in one batch with duplicates once, then cached."""
    classifier = EmbeddingClassifier(counting, labels=LABELS)
    texts = ["Salary review for 2024.", "The patient has a fever.", "Salary review for 2024."]
    first = classifier.classify_many(texts)
    assert counting.calls == [
        [LABELS[name] for name in sorted(LABELS)],
        ["Salary review for 2024.", "The patient has a fever."],
    ]
    assert first[0] == first[2]

    assert classifier.classify_many(texts) == first
    assert classifier.classify("The patient has a fever.") == first[1]
    assert len(counting.calls) == 2


def test_bound_copies_share_the_cache_per_vocabulary(counting: CountingEmbedder) -> None:
    """A different vocabulary is a different cache entry, the same one is reused."""
    base = EmbeddingClassifier(counting)
    one = base.bind({"legal": LabelSpec(description=LABELS["legal"])})
    two = base.bind({"medical": LabelSpec(description=LABELS["medical"])})
    one.classify("Notice of termination.")
    two.classify("Notice of termination.")
    assert sum(call == ["Notice of termination."] for call in counting.calls) == 2
    base.bind({"legal": LabelSpec(description=LABELS["legal"])}).classify("Notice of termination.")
    assert sum(call == ["Notice of termination."] for call in counting.calls) == 2


def test_async_matches_sync(embedder: MiniLMEmbedder) -> None:
    """aclassify_many gives the same results as classify_many."""
    classifier = EmbeddingClassifier(embedder, labels=LABELS, threshold=0.3, cache_size=0)
    texts = ["Wire the balance to the account.", "A quiet lake."]
    assert asyncio.run(classifier.aclassify_many(texts)) == classifier.classify_many(texts)


def test_embedder_failure_fails_closed() -> None:
    """An embedder that raises leaves every text unclassified with the reason, uncached."""
    classifier = EmbeddingClassifier(BrokenEmbedder(), labels=LABELS)
    results = classifier.classify_many(["a", "b"])
    assert [result.labels for result in results] == [{UNCLASSIFIED}, {UNCLASSIFIED}]
    assert results[0].error == "embedding classifier: RuntimeError: model weights are missing"


def test_wrong_vector_count_fails_closed(embedder: MiniLMEmbedder) -> None:
    """An embedder that returns the wrong number of vectors is a failure, not a guess."""

    class Short(CountingEmbedder):
        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            return super().embed_documents(texts)[:1]

    classifier = EmbeddingClassifier(Short(embedder), labels={"legal": LABELS["legal"]})
    results = classifier.classify_many(["one text", "another text"])
    assert all(result.labels == {UNCLASSIFIED} for result in results)


@pytest.mark.parametrize(
    "broken",
    [
        lambda v: [float("nan")] * len(v),
        lambda v: [float("nan"), *v[1:]],
        lambda v: [float("inf")] * len(v),
        lambda v: [0.0] * len(v),
    ],
    ids=["all-nan", "one-nan", "inf", "zero"],
)
def test_a_vector_that_is_not_finite_or_is_zero_fails_closed(
    embedder: MiniLMEmbedder, broken: Callable[[list[float]], list[float]]
) -> None:
    """A NaN, infinite or zero vector is close to nothing: the text is unclassified (which the
    packs block), not a text without labels, and the failure is not cached."""

    class Broken(CountingEmbedder):
        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            vectors = super().embed_documents(texts)
            return [
                broken(v) if "diabetes" in t else v for t, v in zip(texts, vectors, strict=True)
            ]

    classifier = EmbeddingClassifier(Broken(embedder), labels=LABELS, threshold=0.3)
    text = "The patient was diagnosed with type 2 diabetes and prescribed metformin."
    result = classifier.classify(text)
    assert result.labels == {UNCLASSIFIED}
    assert result.error is not None
    assert "not finite or is zero" in result.error
    assert classifier.classify("The hiking trail climbs to a lake.").labels == set()


def test_a_label_descriptions_broken_vector_fails_every_text_closed(
    embedder: MiniLMEmbedder,
) -> None:
    """A description the embedder gives a NaN vector could match nothing: every text is
    unclassified rather than passed unlabelled."""

    class Broken(CountingEmbedder):
        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            vectors = super().embed_documents(texts)
            return [
                [float("nan")] * len(v) if t == LABELS["medical"] else v
                for t, v in zip(texts, vectors, strict=True)
            ]

    classifier = EmbeddingClassifier(Broken(embedder), labels=LABELS, threshold=0.3)
    assert classifier.classify("The hiking trail climbs to a lake.").labels == {UNCLASSIFIED}


def test_words_joined_by_invisible_characters_are_still_read_apart(
    embedder: MiniLMEmbedder,
) -> None:
    """Filler joined by zero-width spaces is as long as it looks: the diagnosis after it is
    read on its own."""
    filler = "\u200b".join(["The hiking trail climbs to a lake."] * 300)
    text = f"{filler} The patient was diagnosed with type 2 diabetes and prescribed metformin."
    result = EmbeddingClassifier(embedder, labels=LABELS, threshold=0.3).classify(text)
    assert "medical" in result.labels


def test_a_label_late_in_a_long_text_is_found(embedder: MiniLMEmbedder) -> None:
    """The model reads a text's first few hundred word pieces; a long text is read in windows
    too, so a diagnosis after pages of filler still labels it."""
    filler = " ".join(["The hiking trail climbs through pine forest to a mountain lake."] * 300)
    text = f"{filler} The patient was diagnosed with type 2 diabetes and prescribed metformin."
    result = EmbeddingClassifier(embedder, labels=LABELS, threshold=0.3).classify(text)
    assert "medical" in result.labels


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"threshold": 1.5}, ValueError, r"threshold=1\.5 is outside \[-1, 1\]"),
        ({"labels": {"x": 3}}, TypeError, r"labels\['x'\] is an int"),
        ({"cache_size": -1}, ValueError, "cache_size=-1 is negative"),
    ],
)
def test_bad_arguments_are_one_line_errors(
    kwargs: dict[str, object], error: type[Exception], message: str
) -> None:
    """Invalid settings fail at construction with the value and the fix."""
    with pytest.raises(error, match=message):
        EmbeddingClassifier(BrokenEmbedder(), **kwargs)  # type: ignore[arg-type]


def test_default_embedder_is_used_when_none_is_given(embedder: MiniLMEmbedder) -> None:
    """Without an embedder the classifier uses the process-wide MiniLM on first use."""
    classifier = EmbeddingClassifier(labels={"legal": LABELS["legal"]}, threshold=0.3)
    result = classifier.classify("This agreement is governed by the laws of New York.")
    assert result.labels == {"legal"}
