"""Tests for GuardTagger: in an IngestionPipeline it writes what ``rag-guard tag`` writes, keeps
it out of the LLM and embedding text, and the guard reads those labels at query time."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest
from llama_index.core import Document
from llama_index.core.ingestion import IngestionPipeline
from llama_index.core.node_parser import SentenceSplitter
from llama_index.core.schema import MetadataMode, NodeWithScore, TextNode

from rag_guard_integrations import Guard
from rag_guard_integrations.cli import main
from rag_guard_integrations.llama_index import GuardPostprocessor, GuardTagger, MiniLMEmbedding
from rag_guard_integrations.llama_index.tagger import TAG_KEYS

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from rag_guard_integrations.classify.base import Classification
    from rag_guard_integrations.embeddings import MiniLMEmbedder

TEXTS = [
    "Contact jo@example.com about invoice 7731.",
    "Card 4111 1111 1111 1111 paid USD 5,000 to Acme Ltd.",
    "The weather was fine all week.",
]


def test_labels_equal_those_of_rag_guard_tag(tmp_path: Path) -> None:
    """Each node gets the classifications and findings the CLI writes for the same text."""
    source, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    source.write_text("".join(json.dumps({"id": i, "text": t}) + "\n" for i, t in enumerate(TEXTS)))
    assert main(["tag", str(source), "--out", str(out), "--policy", "default"]) == 0
    expected = [json.loads(line)["metadata"] for line in out.read_text().splitlines()]
    nodes = GuardTagger(policy="default")([TextNode(text=t) for t in TEXTS])
    assert [dict(n.metadata) for n in nodes] == expected


def test_pipeline_keeps_labels_out_of_llm_and_embedding_text(embedder: MiniLMEmbedder) -> None:
    """After splitting, tagging and embedding, the labels sit in metadata only."""
    pipeline = IngestionPipeline(
        transformations=[
            SentenceSplitter(),
            GuardTagger(policy="default"),
            MiniLMEmbedding(embedder),
        ]
    )
    nodes = pipeline.run(documents=[Document(text=TEXTS[1], metadata={"source": "ledger"})])
    node = nodes[0]
    assert node.metadata["classifications"] == ["entity_identifier", "financial", "payment_card"]
    assert node.embedding is not None
    for mode in (MetadataMode.LLM, MetadataMode.EMBED):
        content = node.get_content(metadata_mode=mode)
        assert "source: ledger" in content
        assert all(key not in content for key in TAG_KEYS)


async def test_async_pipeline_tags_the_same(embedder: MiniLMEmbedder) -> None:
    """``arun`` labels nodes exactly as ``run`` does."""

    def pipeline() -> IngestionPipeline:
        return IngestionPipeline(
            transformations=[SentenceSplitter(), GuardTagger(policy="default")]
        )

    documents = [Document(text=t, id_=f"d{i}") for i, t in enumerate(TEXTS)]
    synced = [n.metadata for n in pipeline().run(documents=documents)]
    awaited = [n.metadata for n in await pipeline().arun(documents=documents)]
    assert awaited == synced


def test_existing_labels_are_kept() -> None:
    """A node already labelled keeps its labels (the policy's ``classify: fill_missing``)."""
    node = TextNode(text=TEXTS[0], metadata={"classifications": ["public"]})
    GuardTagger(policy="default")([node])
    assert node.metadata == {"classifications": ["public"]}


def test_a_failing_classifier_labels_unclassified() -> None:
    """A classifier that raises leaves ``unclassified`` and the reason (fail closed)."""

    class Broken:
        def bind(self, vocabulary: object) -> Broken:
            return self

        def classify_many(self, texts: Sequence[str]) -> list[Classification]:
            raise RuntimeError("model offline")

    node = TextNode(text=TEXTS[0])
    GuardTagger(classifier=Broken(), policy="default")([node])  # type: ignore[arg-type]
    assert node.metadata["classifications"] == ["unclassified"]
    assert "model offline" in node.metadata["classification_error"]


def test_tagged_nodes_are_judged_at_query_time() -> None:
    """Tagged at ingestion, the node holding a credential and the one paying a named company
    (financial data beside an organisation) are withheld by the guard; the others pass."""
    texts = [*TEXTS, "Deploy with password=Hunter2Hunter2 tonight."]
    nodes = GuardTagger(policy="default")(
        [TextNode(id_=str(i), text=t) for i, t in enumerate(texts)]
    )
    assert nodes[3].metadata["classifications"] == ["credentials"]
    pp = GuardPostprocessor(guard=Guard.from_policy("default"))
    kept = pp.postprocess_nodes([NodeWithScore(node=n, score=0.5) for n in nodes], query_str="q")
    assert [n.node.node_id for n in kept] == ["0", "2"]


@pytest.mark.parametrize("batch_size", [1, 2, 64])
def test_batches_do_not_change_the_labels(batch_size: int) -> None:
    """Any batch size gives the same labels."""
    nodes = GuardTagger(policy="default", batch_size=batch_size)([TextNode(text=t) for t in TEXTS])
    assert [n.metadata.get("classifications") for n in nodes] == [
        ["contact_details"],
        ["entity_identifier", "financial", "payment_card"],
        [],
    ]
