"""NERClassifier: labels from a named-entity model you load (a spaCy pipeline or a Hugging Face
token-classification pipeline), its entity types mapped to labels by the policy."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from rag_guard_integrations.classify.base import Classification, Finding, describe_error
from rag_guard_integrations.classify.vocabulary import VocabularyBound, label_specs
from rag_guard_integrations.core.errors import ArgumentError, PolicyError
from rag_guard_integrations.core.labels import clean_label
from rag_guard_integrations.policy.loader import load_policy

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

    from rag_guard_integrations.classify.vocabulary import LabelsArg
    from rag_guard_integrations.policy.loader import PolicyRef
    from rag_guard_integrations.policy.schema import LabelSpec

RECOGNIZER = "ner"
Entity = tuple[str, int, int, float]  # entity type, start, end, score


class NERClassifier(VocabularyBound):
    """Labels text with the entities a named-entity model finds, each entity type mapped to a
    label (``PERSON`` -> ``person_name``). The model is yours, loaded however you load it; this
    class only reads its output:

    - a spaCy pipeline (``spacy.load(...)``): ``nlp.pipe(texts)`` and each ``doc.ents``'
      ``label_``, ``start_char``, ``end_char`` (score 1.0);
    - a Hugging Face ``pipeline("token-classification", aggregation_strategy="simple")``, or
      any callable taking a list of texts and giving, per text, dicts with ``entity_group``
      (or ``entity``, whose ``B-``/``I-`` prefix is dropped), ``start``, ``end``, ``score``.

    Findings carry the entity's span in the text and the model's score; entities of a type the
    mapping does not name are ignored, and mapped labels outside the vocabulary are dropped and
    recorded, as for every classifier. A model that raises labels the batch ``unclassified``.

    Setup:
        ``pip install 'rag-guard-integrations[ner]'`` (spaCy and transformers), then load or
        train a model; nothing is downloaded by this package.

    Key init args:
        model: the spaCy pipeline or token-classification callable.
        entities: ``{entity type: label}``; :meth:`from_policy` takes the policy's
            ``classifiers.ner``.
        labels: the vocabulary; by default the guard's policy's.
        min_score: entities scored below it are ignored.

    Example:
        >>> import spacy
        >>> nlp = spacy.blank("en")
        >>> ruler = nlp.add_pipe("entity_ruler")
        >>> _ = ruler.add_patterns([{"label": "PERSON", "pattern": "Jane Roe"}])
        >>> ner = NERClassifier(nlp, {"PERSON": "person_name"})
        >>> result = ner.classify("Card on file for Jane Roe.")
        >>> sorted(result.labels), [(f.start, f.end) for f in result.findings]
        (['person_name'], [(17, 25)])
    """

    def __init__(
        self,
        model: Any,
        entities: Mapping[str, str],
        labels: LabelsArg | None = None,
        *,
        min_score: float = 0.0,
    ) -> None:
        if not callable(model) and not hasattr(model, "pipe"):
            raise ArgumentError(
                f"model={type(model).__name__} is neither a spaCy pipeline nor a callable; "
                "pass spacy.load(...) or a transformers token-classification pipeline"
            )
        mapping = {str(kind): clean_label(label) for kind, label in dict(entities).items()}
        if not mapping or not all(mapping.values()):
            raise ArgumentError(
                "entities= maps no entity type to a label; give e.g. {'PERSON': 'person_name'}"
            )
        self.model = model
        self.entities = mapping
        self.min_score = float(min_score)
        self._spacy = hasattr(model, "pipe") and hasattr(model, "vocab")
        self._explicit = labels is not None
        specs = label_specs(labels)
        self._vocabulary: frozenset[str] | None = None if specs is None else frozenset(specs)

    @classmethod
    def from_policy(cls, policy: PolicyRef, model: Any, *, min_score: float = 0.0) -> NERClassifier:
        """A classifier mapping entity types as the policy's ``classifiers.ner`` says.

        Raises:
            PolicyError: the policy maps no entity type.
        """
        policy = load_policy(policy)
        if not policy.classifiers.ner:
            where = ", ".join(policy.sources) or "policy"
            raise PolicyError(
                f"{where}: classifiers.ner is empty; map entity types to labels, e.g. "
                "ner: {PERSON: person_name, ORG: entity_identifier}"
            )
        return cls(model, policy.classifiers.ner, min_score=min_score)

    @property
    def vocabulary(self) -> frozenset[str] | None:
        """The labels it may answer with, or None for any label the mapping gives."""
        return self._vocabulary

    def classify_many(self, texts: Sequence[str]) -> list[Classification]:
        """Label several texts in one call of the model; a failure labels them all
        ``unclassified`` (never raises)."""
        bad = next((t for t in texts if not isinstance(t, str)), None)
        if bad is not None:
            reason = f"expected text as a str, got {type(bad).__name__}"
            return [Classification.failed(reason) for _ in texts]
        if not texts:
            return []
        try:
            found = self._entities(list(texts))
        except Exception as error:  # the model is the user's: any failure blocks, never leaks
            reason = f"ner classifier: {describe_error(error)}"
            return [Classification.failed(reason) for _ in texts]
        return [self._classification(entities) for entities in found]

    async def aclassify_many(self, texts: Sequence[str]) -> list[Classification]:
        """Async twin of :meth:`classify_many`: the model runs in a worker thread."""
        return await asyncio.to_thread(self.classify_many, list(texts))

    def _entities(self, texts: list[str]) -> list[list[Entity]]:
        if self._spacy:
            return [
                [(e.label_, e.start_char, e.end_char, 1.0) for e in doc.ents]
                for doc in self.model.pipe(texts)
            ]
        output = self.model(texts)
        if len(texts) == 1 and output and isinstance(output[0], dict):
            output = [output]  # a pipeline given one text may answer with its list alone
        return [[_entity(item) for item in items] for items in _per_text(output, len(texts))]

    def _classification(self, entities: Iterable[Entity]) -> Classification:
        findings = []
        for kind, start, end, score in entities:
            label = self.entities.get(kind)
            if label is not None and score >= self.min_score:
                findings.append(Finding(RECOGNIZER, label, start, end, score))
        labels = frozenset(f.label for f in findings)
        if self._vocabulary is None or labels <= self._vocabulary:
            return Classification(labels, tuple(findings))
        kept = tuple(f for f in findings if f.label in self._vocabulary)
        return Classification(labels & self._vocabulary, kept, labels - self._vocabulary)

    def _use(self, labels: dict[str, LabelSpec] | None) -> None:
        self._vocabulary = frozenset(labels or ())

    def __repr__(self) -> str:
        return f"NERClassifier(model={type(self.model).__name__}, entities={self.entities!r})"


def _per_text(output: Any, count: int) -> list[Any]:
    items = list(output)
    if len(items) != count:
        raise ValueError(f"the model answered {len(items)} results for {count} texts")
    return items


def _entity(item: Mapping[str, Any]) -> Entity:
    kind = str(item.get("entity_group") or item.get("entity") or "")
    if kind[:2] in ("B-", "I-", "E-", "S-", "L-", "U-"):
        kind = kind[2:]
    return kind, int(item["start"]), int(item["end"]), float(item.get("score", 1.0))
