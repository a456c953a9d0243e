"""Tests that a node the guard masks reads to the LLM exactly like the original except for the
masked spans: text spans in the text, metadata spans in the metadata values, sentence-window
spans in the window; a mask that cannot be written back withholds the node."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from llama_index.core import Document, VectorStoreIndex
from llama_index.core.node_parser import SentenceWindowNodeParser
from llama_index.core.schema import (
    MediaResource,
    MetadataMode,
    Node,
    NodeRelationship,
    NodeWithScore,
    RelatedNodeInfo,
    TextNode,
)
from llama_index_support import REDACT_POLICY, window_engine

from rag_guard_integrations import Guard, parse_policy
from rag_guard_integrations.llama_index import (
    GuardPostprocessor,
    MiniLMEmbedding,
    guarded_query_engine,
)
from rag_guard_integrations.llama_index.testing import InstrumentationRecorder, RecordingLLM

if TYPE_CHECKING:
    from llama_index.core.schema import BaseNode

    from rag_guard_integrations.embeddings import MiniLMEmbedder

EMAIL = "canary.leak@example.com"
MASK = "[CONTACT_DETAILS]"
QUERY = "Who should I write to?"


@pytest.fixture(scope="module")
def guard() -> Guard:
    return Guard(parse_policy(REDACT_POLICY))


def llm_view(node: BaseNode) -> str:
    return node.get_content(metadata_mode=MetadataMode.LLM)


def masked(guard: Guard, node: BaseNode) -> list[BaseNode]:
    kept = GuardPostprocessor(guard=guard).postprocess_nodes(
        [NodeWithScore(node=node, score=0.9)], query_str=QUERY
    )
    return [n.node for n in kept]


def test_an_email_in_a_metadata_value_is_masked_in_that_value(guard: Guard) -> None:
    """The LLM reads the metadata header once, with the value masked, and the unchanged text."""
    node = TextNode(text="Please write to the account manager.", metadata={"contact": EMAIL})
    (copy,) = masked(guard, node)
    assert llm_view(copy) == f"contact: {MASK}\n\nPlease write to the account manager."
    assert copy.metadata == {"contact": MASK}
    assert node.metadata == {"contact": EMAIL}


def test_a_masked_nodes_keys_ids_and_source_hold_no_masked_value(guard: Guard) -> None:
    """A metadata key (hidden from the LLM), the node's id and its source document's id that
    hold the masked address are masked in the copy; the key stays hidden under its new name."""
    node = TextNode(
        id_=f"node-{EMAIL}",
        text=f"Write to {EMAIL} today.",
        metadata={EMAIL: "last contacted in May"},
        excluded_llm_metadata_keys=[EMAIL],
    )
    node.relationships[NodeRelationship.SOURCE] = RelatedNodeInfo(node_id=f"mailbox/{EMAIL}")
    (copy,) = masked(guard, node)
    assert copy.metadata == {MASK: "last contacted in May"}
    assert copy.excluded_llm_metadata_keys == [MASK]
    assert (copy.node_id, copy.ref_doc_id) == (f"node-{MASK}", f"mailbox/{MASK}")
    assert EMAIL not in copy.model_dump_json()
    assert node.node_id == f"node-{EMAIL}"


def test_an_email_in_the_text_keeps_the_metadata_header_once(guard: Guard) -> None:
    """A text span is masked in the text; the metadata header is not written into it again."""
    node = TextNode(text=f"Please write to {EMAIL} today.", metadata={"dept": "sales"})
    (copy,) = masked(guard, node)
    assert llm_view(copy) == f"dept: sales\n\nPlease write to {MASK} today."
    assert copy.get_content() == f"Please write to {MASK} today."
    assert copy.metadata == {"dept": "sales"}


def test_a_text_resource_node_is_masked_in_text_and_metadata(guard: Guard) -> None:
    """A ``Node`` keeps its text in ``text_resource``: both its spans are masked in place."""
    node = Node(
        text_resource=MediaResource(text=f"Mail {EMAIL} now."),
        metadata={"owner": "bob.stone@example.com", "dept": "sales"},
    )
    (copy,) = masked(guard, node)
    assert llm_view(copy) == f"owner: {MASK}\ndept: sales\n\nMail {MASK} now."


def test_a_mask_that_cannot_be_written_back_withholds_the_node(guard: Guard) -> None:
    """An email in a metadata key, or under a template that shows the value twice, cannot be
    masked in the node: the node is withheld and reported, never sent unmasked."""
    in_key = TextNode(id_="in-key", text="Offices open at nine.", metadata={EMAIL: "yes"})
    twice = TextNode(
        id_="twice",
        text="Offices open at nine.",
        metadata={"contact": EMAIL},
        metadata_template="{key}: {value} ({value})",
    )
    pp = GuardPostprocessor(guard=guard)
    checked = pp.guard_nodes([NodeWithScore(node=in_key), NodeWithScore(node=twice)])
    assert checked.nodes == []
    assert checked.unmasked_ids == ("in-key", "twice")


def test_a_node_withheld_for_its_masks_reaches_the_audit_log_once(
    guard: Guard, caplog: pytest.LogCaptureFixture
) -> None:
    """The adapter's own denial is a decision of the one published record: the request is
    logged once, the node denied at the ``handoff`` stage, as in the result and the event."""
    in_key = TextNode(id_="in-key", text="Offices open at nine.", metadata={EMAIL: "yes"})
    with caplog.at_level("INFO", logger="rag_guard_integrations.audit"):
        checked = GuardPostprocessor(guard=guard).guard_nodes([NodeWithScore(node=in_key)])
    (line,) = [r for r in caplog.records if r.name == "rag_guard_integrations.audit"]
    (row,) = line.audit["chunks"]  # type: ignore[attr-defined]
    assert (row["id"], row["decision"], row["stage"]) == ("in-key", "deny", "handoff")
    assert checked.result.allowed_indices == ()
    assert checked.refusal == guard.policy.no_context_refusal


def test_the_engine_prompt_and_instrumentation_hold_no_unmasked_email(
    embedder: MiniLMEmbedder, guard: Guard
) -> None:
    """Through ``guarded_query_engine`` the prompt holds the masked header once and neither the
    prompt nor any instrumentation text holds the email."""
    node = TextNode(
        id_="n1", text="Please write to the account manager.", metadata={"contact": EMAIL}
    )
    index = VectorStoreIndex([node], embed_model=MiniLMEmbedding(embedder))
    llm = RecordingLLM()
    engine = guarded_query_engine(index, guard, llm=llm, similarity_top_k=1)
    with InstrumentationRecorder() as seen:
        engine.query(QUERY)
    (prompt,) = llm.prompts
    assert prompt.count(f"contact: {MASK}\n\nPlease write to the account manager.") == 1
    assert all(EMAIL not in text for text in [prompt, *seen.texts])


def test_an_email_in_a_sentence_window_is_masked_in_the_window(
    embedder: MiniLMEmbedder, guard: Guard
) -> None:
    """A neighbour's email in the window is masked in the window, so the window the
    ``MetadataReplacementPostProcessor`` swaps in reaches the LLM masked."""
    text = f"Invoices are paid monthly. Questions go to {EMAIL} by mail. Offices open at nine."
    nodes = SentenceWindowNodeParser.from_defaults(window_size=1).get_nodes_from_documents(
        [Document(text=text)]
    )
    index = VectorStoreIndex(nodes, embed_model=MiniLMEmbedding(embedder))
    llm = RecordingLLM()
    engine = window_engine(index.as_retriever(similarity_top_k=3), llm, guard)
    with InstrumentationRecorder() as seen:
        response = engine.query("When are invoices paid?")
    assert len(response.source_nodes) == 3
    assert any(f"Questions go to {MASK} by mail." in p for p in llm.prompts)
    assert all(EMAIL not in t for t in [*llm.prompts, *seen.texts])
