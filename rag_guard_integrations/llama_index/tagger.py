"""GuardTagger: an ``IngestionPipeline`` step that labels nodes as ``rag-guard tag`` labels
records, so the guard reads the labels at query time instead of classifying again."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from llama_index.core.bridge.pydantic import ConfigDict, Field, PrivateAttr
from llama_index.core.schema import MetadataMode, TransformComponent

from rag_guard_integrations.classify.factory import build_classifier
from rag_guard_integrations.classify.pattern import PatternClassifier
from rag_guard_integrations.classify.tagging import DEFAULT_BATCH_SIZE, batches, tag_batch
from rag_guard_integrations.policy.loader import load_policy

if TYPE_CHECKING:
    from collections.abc import Sequence

    from llama_index.core.schema import BaseNode

    from rag_guard_integrations.classify.base import Classifier

# What tagging may write into metadata: kept out of the LLM's and the embedder's view.
TAG_KEYS = ("classifications", "findings", "classification_error", "dropped_labels")


class GuardTagger(TransformComponent):
    """Transform component that writes ``classifications`` and ``findings`` into node metadata.

    The labels and findings are exactly those ``rag-guard tag --policy P`` writes for a record
    with the node's text; the keys are added to ``excluded_llm_metadata_keys`` and
    ``excluded_embed_metadata_keys``, so neither the prompt nor the vectors change. Nodes that
    already carry labels keep them unless the policy says ``classify: always``. Findings'
    offsets index the node's text.

    Setup:
        ```bash
        pip install -U "rag-guard-integrations[llamaindex,embeddings]"
        ```

    Key init args:
        policy: str | list[str] | None
            Built-in policy names or paths: the recognisers and the label vocabulary. None:
            every built-in recogniser with its default label.
        classifier: Classifier | None
            A classifier to use instead (an ``EmbeddingClassifier``, an ``LLMClassifier``...);
            not serialised.
        batch_size: int
            Nodes per ``classify_many`` call.

    Instantiate:
        ```python
        from llama_index.core.ingestion import IngestionPipeline
        from llama_index.core.node_parser import SentenceSplitter
        from rag_guard_integrations.llama_index import GuardTagger, MiniLMEmbedding

        pipeline = IngestionPipeline(
            transformations=[SentenceSplitter(), GuardTagger(policy="default"), MiniLMEmbedding()]
        )
        nodes = pipeline.run(documents=documents)
        ```
    """

    model_config = ConfigDict(extra="forbid")

    policy: str | list[str] | None = Field(
        default=None, description="built-in policy names or paths for recognisers and labels"
    )
    batch_size: int = Field(default=DEFAULT_BATCH_SIZE, ge=1, description="nodes per batch")
    _classifier: Classifier = PrivateAttr()
    _overwrite: bool = PrivateAttr(default=False)

    def __init__(self, classifier: Classifier | None = None, **data: Any) -> None:
        super().__init__(**data)
        refs = [self.policy] if isinstance(self.policy, str) else list(self.policy or [])
        policy = load_policy(*refs) if refs else None
        if classifier is not None:
            self._classifier = classifier if policy is None else classifier.bind(policy.vocabulary)
        elif policy is None:
            self._classifier = PatternClassifier()
        else:
            self._classifier = build_classifier("pattern", None, policy)
        self._overwrite = policy is not None and policy.classify == "always"

    @classmethod
    def class_name(cls) -> str:
        """The fixed serialization id."""
        return "GuardTagger"

    def __call__(self, nodes: Sequence[BaseNode], **kwargs: Any) -> Sequence[BaseNode]:
        """Label ``nodes`` in place (their metadata and excluded keys) and return them."""
        for batch in batches(nodes, self.batch_size):
            records = [
                {"text": n.get_content(metadata_mode=MetadataMode.NONE), "metadata": n.metadata}
                for n in batch
            ]
            tagged = tag_batch(records, self._classifier, overwrite=self._overwrite)
            for node, result in zip(batch, tagged, strict=True):
                if result.classification is not None:
                    node.metadata = result.record["metadata"]
                    _exclude(node.excluded_llm_metadata_keys)
                    _exclude(node.excluded_embed_metadata_keys)
        return nodes

    async def acall(self, nodes: Sequence[BaseNode], **kwargs: Any) -> Sequence[BaseNode]:
        """Async twin of ``__call__`` (the classifier runs in a worker thread)."""
        return await asyncio.to_thread(self.__call__, nodes, **kwargs)


def _exclude(keys: list[str]) -> None:
    keys.extend(key for key in TAG_KEYS if key not in keys)
