"""NERClassifier on real models built here: a spaCy NER trained on a few sentences and an
entity ruler, both saved and loaded back from disk, and a Hugging Face token-classification
pipeline assembled from a tiny config (nothing is downloaded)."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

import pytest

from rag_guard_integrations import Guard, parse_policy
from rag_guard_integrations.classify import NERClassifier
from rag_guard_integrations.core.errors import ArgumentError, PolicyError

if TYPE_CHECKING:
    from pathlib import Path

spacy = pytest.importorskip("spacy", reason="the ner extra (spaCy) is not installed")

TRAIN = [
    ("Maria Lopez signed the lease.", [(0, 11, "PERSON")]),
    ("The invoice went to Tarvo Ltd yesterday.", [(20, 29, "ORG")]),
    ("Maria Lopez called Tarvo Ltd about it.", [(0, 11, "PERSON"), (19, 28, "ORG")]),
    ("We met Maria Lopez at noon.", [(7, 18, "PERSON")]),
    ("Tarvo Ltd pays on time.", [(0, 9, "ORG")]),
    ("Nothing else happened today.", []),
]
POLICY = """
version: 1
name: ner_test
labels: {person_name: {}, entity_identifier: {}, financial: {}}
classifiers:
  builtin: {money: financial}
  ner: {PERSON: person_name, ORG: entity_identifier}
rules:
  - {name: money_client, trigger: {all_present: [financial, entity_identifier]}}
"""


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A spaCy NER trained on six sentences until it knows them, saved to disk."""
    from spacy.training import Example

    random.seed(0)
    spacy.util.fix_random_seed(0)
    nlp = spacy.blank("en")
    ner = nlp.add_pipe("ner")
    for label in ("PERSON", "ORG"):
        ner.add_label(label)
    examples = [Example.from_dict(nlp.make_doc(t), {"entities": e}) for t, e in TRAIN]
    optimizer = nlp.initialize(lambda: examples)
    for _ in range(60):
        random.shuffle(examples)
        nlp.update(examples, sgd=optimizer, drop=0.0)
    folder = tmp_path_factory.mktemp("spacy-ner")
    nlp.to_disk(folder)
    return folder


def ruler(tmp_path: Path) -> Any:
    """An entity ruler pipeline saved to and loaded from disk."""
    nlp = spacy.blank("en")
    nlp.add_pipe("entity_ruler").add_patterns(
        [
            {"label": "PERSON", "pattern": "Jane Roe"},
            {"label": "ORG", "pattern": [{"LOWER": "acme"}, {"LOWER": "corp"}]},
            {"label": "GPE", "pattern": "Oslo"},
        ]
    )
    nlp.to_disk(tmp_path / "ruler")
    return spacy.load(tmp_path / "ruler")


def test_a_trained_spacy_ner_loaded_from_disk_labels_its_entities(trained: Path) -> None:
    """Entities of the trained model become mapped labels with their spans in the text."""
    classifier = NERClassifier(spacy.load(trained), {"PERSON": "person_name", "ORG": "client"})
    text = "Maria Lopez called Tarvo Ltd about it."
    result = classifier.classify(text)
    assert result.error is None
    assert result.labels == {"person_name", "client"}
    assert {(f.label, text[f.start : f.end]) for f in result.findings} == {
        ("person_name", "Maria Lopez"),
        ("client", "Tarvo Ltd"),
    }
    assert all(f.recognizer == "ner" for f in result.findings)


def test_entity_types_the_mapping_does_not_name_are_ignored(tmp_path: Path) -> None:
    """A GPE entity gives no label when only PERSON is mapped."""
    result = NERClassifier(ruler(tmp_path), {"PERSON": "person_name"}).classify(
        "Jane Roe flew to Oslo."
    )
    assert result.labels == {"person_name"}
    assert [(f.start, f.end) for f in result.findings] == [(0, 8)]


def test_the_policy_maps_entities_and_the_guard_binds_the_vocabulary(tmp_path: Path) -> None:
    """from_policy takes classifiers.ner; in a guard, the NER label and a recogniser's fire
    a rule together, and a label outside the vocabulary is dropped and recorded."""
    policy = parse_policy(POLICY)
    classifier = NERClassifier.from_policy(policy, ruler(tmp_path))
    assert classifier.entities == {"PERSON": "person_name", "ORG": "entity_identifier"}
    guard = Guard(policy, classifier=classifier)
    result = guard.check("q", [{"text": "Acme Corp paid $4,000."}, {"text": "Fine weather."}])
    assert [v.rule for v in result.violations] == ["money_client"]
    narrow = NERClassifier(ruler(tmp_path), {"PERSON": "person_name"}, labels=["client"])
    dropped = narrow.classify("Jane Roe")
    assert dropped.labels == frozenset()
    assert dropped.dropped == {"person_name"}


def test_a_policy_without_a_ner_mapping_is_refused(tmp_path: Path) -> None:
    """from_policy names the missing section and its fix."""
    with pytest.raises(PolicyError, match=r"classifiers\.ner is empty"):
        NERClassifier.from_policy(parse_policy("version: 1\nname: x\n"), ruler(tmp_path))


def test_a_failing_model_labels_the_batch_unclassified() -> None:
    """An exception inside the model blocks every text of the batch (fail closed)."""

    def broken(texts: list[str]) -> list[Any]:
        raise RuntimeError("model crashed")

    results = NERClassifier(broken, {"PER": "person_name"}).classify_many(["a", "b"])
    assert [r.labels for r in results] == [{"unclassified"}, {"unclassified"}]
    assert "RuntimeError: model crashed" in (results[0].error or "")


def test_a_model_answering_the_wrong_number_of_results_fails_closed() -> None:
    """One result for two texts cannot be matched up: both are unclassified."""
    results = NERClassifier(lambda texts: [[]], {"PER": "person_name"}).classify_many(["a", "b"])
    assert all(r.error for r in results)


def test_bad_arguments_are_refused_with_the_fix() -> None:
    """A model that cannot be called and an empty mapping are one-line errors."""
    with pytest.raises(ArgumentError, match="neither a spaCy pipeline nor a callable"):
        NERClassifier(object(), {"PER": "person_name"})
    with pytest.raises(ArgumentError, match="maps no entity type"):
        NERClassifier(lambda texts: [], {})


async def test_the_async_path_gives_the_sync_results(tmp_path: Path) -> None:
    """aclassify_many runs the model in a thread and gives the same classifications."""
    classifier = NERClassifier(ruler(tmp_path), {"PERSON": "person_name"})
    texts = ["Jane Roe called.", "Nobody called."]
    assert await classifier.aclassify_many(texts) == classifier.classify_many(texts)


# The word-level tokenizer has no word offsets of its own; the pipeline says so and falls back.
@pytest.mark.filterwarnings("ignore:Tokenizer does not support real words")
def test_a_hugging_face_token_classification_pipeline(tmp_path: Path) -> None:
    """A real transformers pipeline built from a tiny BERT config and a word-level tokenizer;
    its classifier head is set to call every word B-PER, so the mapping, the B- prefix and the
    character spans of the entities are what is tested."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    tokenizers = pytest.importorskip("tokenizers")

    words = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "jane", "roe", "called"]
    vocab = {w: i for i, w in enumerate(words)}
    backend = tokenizers.Tokenizer(tokenizers.models.WordLevel(vocab, unk_token="[UNK]"))
    backend.normalizer = tokenizers.normalizers.Lowercase()
    backend.pre_tokenizer = tokenizers.pre_tokenizers.Whitespace()
    tokenizer = transformers.PreTrainedTokenizerFast(
        tokenizer_object=backend,
        unk_token="[UNK]",
        pad_token="[PAD]",
        cls_token="[CLS]",
        sep_token="[SEP]",
    )
    config = transformers.BertConfig(
        vocab_size=len(words),
        hidden_size=8,
        num_hidden_layers=1,
        num_attention_heads=1,
        intermediate_size=8,
        id2label={0: "O", 1: "B-PER"},
        label2id={"O": 0, "B-PER": 1},
    )
    model = transformers.BertForTokenClassification(config)
    with torch.no_grad():
        model.classifier.weight.zero_()
        model.classifier.bias.copy_(torch.tensor([0.0, 5.0]))
    model.save_pretrained(tmp_path / "hf")
    tokenizer.save_pretrained(tmp_path / "hf")
    pipe = transformers.pipeline(
        "token-classification",
        model=str(tmp_path / "hf"),
        aggregation_strategy="first",
        device="cpu",
    )
    classifier = NERClassifier(pipe, {"PER": "person_name"}, min_score=0.5)
    text = "Jane Roe called"
    result = classifier.classify(text)
    assert result.error is None
    assert result.labels == {"person_name"}
    # Every word is a B- tag, so every word starts an entity of its own.
    assert [text[f.start : f.end] for f in result.findings] == ["Jane", "Roe", "called"]
    assert all(f.score > 0.9 for f in result.findings)
