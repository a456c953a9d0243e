"""Chunk.from_any reads framework objects through documented protocols, importing no framework."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict

from rag_guard_integrations import Chunk, ChunkError
from rag_guard_integrations.core.chunk import DocumentLike, NodeLike, ScoredLike

pytestmark = pytest.mark.unit


@dataclass
class PlainDocument:
    """A document of no framework: page_content and metadata."""

    page_content: str
    metadata: dict[str, Any] = field(default_factory=dict)
    id: str | None = None


def test_langchain_document_fits_the_document_protocol() -> None:
    """A LangChain Document becomes a chunk with its text, metadata and id."""
    from langchain_core.documents import Document

    document = Document("notice", metadata={"clause_id": "RENEWAL"}, id="d1")
    assert isinstance(document, DocumentLike)
    chunk = Chunk.from_any(document)
    assert (chunk.text, dict(chunk.metadata), chunk.id, chunk.score) == (
        "notice", {"clause_id": "RENEWAL"}, "d1", None,
    )  # fmt: skip


def test_llama_index_nodes_fit_the_node_and_scored_protocols() -> None:
    """A TextNode and a NodeWithScore become chunks; the score comes from the hit."""
    from llama_index.core.schema import NodeWithScore, TextNode

    node = TextNode(text="notice", metadata={"contract_type": "MSA"}, id_="n1")
    hit = NodeWithScore(node=node, score=0.5)
    assert isinstance(node, NodeLike)
    assert isinstance(hit, ScoredLike)
    chunk = Chunk.from_any(hit)
    assert (chunk.text, dict(chunk.metadata), chunk.id, chunk.score) == (
        "notice", {"contract_type": "MSA"}, "n1", 0.5,
    )  # fmt: skip


def test_any_object_with_the_shape_is_read() -> None:
    """An object of no framework that has the document shape is read the same way."""
    chunk = Chunk.from_any(PlainDocument("text", {"a": 1}, "x"))
    assert (chunk.text, chunk.metadata["a"], chunk.id) == ("text", 1, "x")


def test_an_object_of_no_known_shape_names_the_shapes() -> None:
    """Anything else is a ChunkError that lists the shapes it could have had."""
    with pytest.raises(ChunkError, match=r"chunk 3 is an object; .*a document \(page_content"):
        Chunk.from_any(object(), position=3)


class _Loose:
    """A plain class: each instance carries the attributes it was given."""

    def __init__(self, **fields: object) -> None:
        self.__dict__.update(fields)


def test_instances_of_one_plain_class_are_each_read_by_their_own_shape() -> None:
    """The shape a type follows is kept only for types whose class declares the attributes,
    so two instances of a plain class with different attributes are each read as they are."""
    document = _Loose(page_content="a document", metadata={"k": 1})
    node = _Loose(node_id="n-1", text="a node", metadata={"k": 2})
    assert Chunk.from_any(document).text == "a document"
    read = Chunk.from_any(node)
    assert (read.text, read.id) == ("a node", "n-1")
    with pytest.raises(ChunkError, match="is a _Loose"):
        Chunk.from_any(_Loose(title="neither"))


def test_a_pydantic_model_with_extra_fields_is_read_instance_by_instance() -> None:
    """A model that allows extra fields can carry another shape's attributes in one instance
    only; a model without extras is read from its declared fields every time."""

    class Extra(BaseModel):
        model_config = ConfigDict(extra="allow")

    class Declared(BaseModel):
        page_content: str
        metadata: dict[str, object] = {}

    assert Chunk.from_any(Extra(page_content="first")).text == "first"
    second = Chunk.from_any(Extra(node_id="n-2", text="second", metadata={}))
    assert (second.text, second.id) == ("second", "n-2")
    assert [Chunk.from_any(Declared(page_content=t)).text for t in ("x", "y")] == ["x", "y"]
