"""Tests that the guard judges what LlamaIndex sends the LLM: text plus LLM-visible metadata, a
Node's text resource, non-text nodes, and content changed by a postprocessor after the guard."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
from llama_index.core import Document, VectorStoreIndex
from llama_index.core.node_parser import SentenceWindowNodeParser
from llama_index.core.postprocessor import MetadataReplacementPostProcessor
from llama_index.core.schema import ImageNode, MediaResource, Node, NodeWithScore, TextNode
from llama_index_support import DecisionRecorder, recording_events, window_engine

from rag_guard_integrations import Guard
from rag_guard_integrations.llama_index import (
    GuardedQueryEngine,
    GuardedRetriever,
    GuardPostprocessor,
    MiniLMEmbedding,
    aquery_with_access,
    guarded_query_engine,
    query_with_access,
)
from rag_guard_integrations.llama_index.testing import InstrumentationRecorder, RecordingLLM
from rag_guard_integrations.policy.loader import load_policy

if TYPE_CHECKING:
    from collections.abc import Iterator

    from rag_guard_integrations.embeddings import MiniLMEmbedder

QUERY = "What is the termination notice period?"
CLAUSE = "Either party may terminate this Agreement on thirty (30) days' written notice."
SECRET = "password=Hunter2Hunter2"
META = {"contract_type": "MSA", "clause_id": "TERMINATION_NOTICE"}
MSA = {"contract_type": ["MSA"]}


@pytest.fixture(scope="module")
def guard() -> Guard:
    return Guard.from_policy("contracts", "default")


def scored(node: Any, score: float = 0.9) -> NodeWithScore:
    return NodeWithScore(node=node, score=score)


def kept(guard: Guard, nodes: list[NodeWithScore]) -> list[str]:
    pp = GuardPostprocessor(guard=guard, access=MSA)
    return [n.node.node_id for n in pp.postprocess_nodes(nodes, query_str=QUERY)]


def test_a_secret_in_llm_visible_metadata_is_withheld(guard: Guard) -> None:
    """A credential in a metadata value the LLM would read denies the node."""
    leaky = TextNode(id_="leaky", text=CLAUSE, metadata={**META, "note": SECRET})
    clean = TextNode(id_="clean", text=CLAUSE, metadata=dict(META))
    assert kept(guard, [scored(leaky), scored(clean)]) == ["clean"]


def test_string_metadata_excluded_from_the_llm_is_judged_too(guard: Guard) -> None:
    """The same credential under a key excluded from the LLM's view denies the node too: a
    postprocessor (``MetadataReplacementPostProcessor``) can swap that value in as the text."""
    node = TextNode(
        id_="hidden",
        text=CLAUSE,
        metadata={**META, "note": SECRET},
        excluded_llm_metadata_keys=["note"],
    )
    clean = TextNode(
        id_="clean",
        text=CLAUSE,
        metadata={**META, "note": "see annex"},
        excluded_llm_metadata_keys=["note"],
    )
    assert kept(guard, [scored(node), scored(clean)]) == ["clean"]


def test_a_new_style_node_is_judged_by_its_text_resource(guard: Guard) -> None:
    """A ``Node(text_resource=...)`` is judged by its text: a secret there denies it, and a
    clean one passes like a TextNode."""
    secret = Node(
        id_="secret", text_resource=MediaResource(text=f"{CLAUSE} {SECRET}"), metadata=META
    )
    clean = Node(id_="clean", text_resource=MediaResource(text=CLAUSE), metadata=dict(META))
    assert kept(guard, [scored(secret), scored(clean)]) == ["clean"]


@pytest.mark.parametrize(
    "node",
    [
        ImageNode(id_="image", image="aGVsbG8=", text="", metadata=META),
        Node(id_="audio", audio_resource=MediaResource(data=b"RIFF"), metadata=META),
        Node(
            id_="video",
            video_resource=MediaResource(url="https://example.com/v.mp4"),
            metadata=META,
        ),
        TextNode(id_="empty", text="   ", metadata=META),
    ],
    ids=["image", "audio", "video", "empty"],
)
def test_nodes_without_text_content_are_denied(guard: Guard, node: Any) -> None:
    """Image, audio, video and blank nodes are denied: no content check can judge them."""
    assert kept(guard, [scored(node)]) == []


def test_the_policy_can_allow_non_text_nodes() -> None:
    """With ``allow_non_text: true`` an image node goes on to the other checks and passes."""
    policy = load_policy("default").model_copy(update={"allow_non_text": True})
    image = ImageNode(id_="image", image="aGVsbG8=", text="", metadata={})
    assert kept(Guard(policy), [scored(image)]) == ["image"]


def test_denied_non_text_nodes_are_reported_in_the_decision(guard: Guard) -> None:
    """The withheld node has its own decision, stage and reason in the result and its audit
    record, so the audit says why it is missing."""
    pp = GuardPostprocessor(guard=guard, access=MSA)
    image = ImageNode(id_="image", image="aGVsbG8=", text="", metadata=META)
    checked = pp.guard_nodes([scored(image)])
    (decision,) = checked.result.decisions
    assert (decision.chunk.id, decision.allowed, decision.stage) == ("image", False, "non_text")
    assert "(image, empty text)" in decision.reason
    (row,) = checked.result.audit()["chunks"]
    assert (row["id"], row["decision"], row["stage"]) == ("image", "deny", "non_text")
    assert checked.nodes == []


@pytest.fixture
def decisions() -> Iterator[DecisionRecorder]:
    yield from recording_events()


def test_a_withheld_non_text_node_is_in_the_event_and_the_audit_log(
    guard: Guard, decisions: DecisionRecorder, caplog: pytest.LogCaptureFixture
) -> None:
    """The instrumentation event and the published audit line name the image node with its
    ``non_text`` stage, beside the text node that passed."""
    image = ImageNode(id_="image", image="aGVsbG8=", text="", metadata=META)
    clean = TextNode(id_="clean", text=CLAUSE, metadata=dict(META))
    with caplog.at_level("INFO", logger="rag_guard_integrations.audit"):
        assert kept(guard, [scored(image), scored(clean)]) == ["clean"]
    (event,) = decisions.events
    assert event.denied_node_ids == ["image"]
    assert {"id": "image", "allowed": False, "stage": "non_text", "rule": None} in event.decisions
    (line,) = [r for r in caplog.records if r.name == "rag_guard_integrations.audit"]
    rows = {row["id"]: row for row in line.audit["chunks"]}  # type: ignore[attr-defined]
    assert (rows["image"]["decision"], rows["image"]["stage"]) == ("deny", "non_text")
    assert rows["clean"]["decision"] == "allow"


def test_shadow_mode_keeps_non_text_nodes_and_records_the_would_be_denial() -> None:
    """Under ``mode: shadow`` an image node goes on to the LLM unchanged; the result and the
    audit record carry the denial it would have had, marked not enforced."""
    policy = load_policy("contracts").model_copy(update={"mode": "shadow"})
    pp = GuardPostprocessor(guard=Guard(policy), access=MSA)
    image = scored(ImageNode(id_="image", image="aGVsbG8=", text="", metadata=META))
    checked = pp.guard_nodes([image])
    assert checked.nodes == [image]
    assert checked.result.shadow is not None
    (would_be,) = checked.result.shadow.decisions
    assert (would_be.allowed, would_be.stage) == (False, "non_text")
    audit = checked.result.audit()
    assert audit["mode"] == "shadow"
    (row,) = audit["chunks"]
    assert (row["decision"], row["stage"], row["enforced"]) == ("deny", "non_text", False)


@pytest.fixture(scope="module")
def window_index(embedder: MiniLMEmbedder) -> VectorStoreIndex:
    """Sentence nodes whose windows carry a neighbouring sentence with a credential."""
    text = f"{CLAUSE} The portal login is {SECRET} for everyone. Fees remain due."
    document = Document(text=text, metadata=dict(META), id_="msa-1")
    nodes = SentenceWindowNodeParser.from_defaults(window_size=2).get_nodes_from_documents(
        [document]
    )
    return VectorStoreIndex(nodes, embed_model=MiniLMEmbedding(embedder))


def test_a_window_swapped_in_after_the_guard_is_judged_again(
    window_index: VectorStoreIndex, guard: Guard
) -> None:
    """GuardedQueryEngine re-checks the window MetadataReplacementPostProcessor puts in place of
    the sentence: the window carries the credential, so nothing reaches the LLM."""
    llm = RecordingLLM()
    engine = window_engine(window_index.as_retriever(similarity_top_k=2), llm, guard)
    response = query_with_access(engine, QUERY, MSA)
    assert str(response) == guard.policy.no_context_refusal
    assert all(SECRET not in p for p in llm.prompts)


async def test_async_window_recheck_withholds_the_credential(
    window_index: VectorStoreIndex, guard: Guard
) -> None:
    """The async engine re-checks the replaced content in the same way."""
    llm = RecordingLLM()
    engine = guarded_query_engine(
        window_index,
        guard,
        llm=llm,
        similarity_top_k=2,
        node_postprocessors=[MetadataReplacementPostProcessor(target_metadata_key="window")],
    )
    response = await aquery_with_access(engine, QUERY, MSA)
    assert str(response) == guard.policy.no_context_refusal
    assert all(SECRET not in p for p in llm.prompts)


def test_a_clean_window_reaches_the_llm_after_the_recheck(
    embedder: MiniLMEmbedder, guard: Guard
) -> None:
    """Without a secret the window passes the second check and the LLM reads the window."""
    document = Document(text=f"{CLAUSE} Fees remain due.", metadata=dict(META), id_="msa-2")
    nodes = SentenceWindowNodeParser.from_defaults().get_nodes_from_documents([document])
    index = VectorStoreIndex(nodes, embed_model=MiniLMEmbedding(embedder))
    llm = RecordingLLM()
    retriever = GuardedRetriever(index.as_retriever(similarity_top_k=1), guard)
    engine = GuardedQueryEngine.from_args(
        retriever,
        llm=llm,
        node_postprocessors=[MetadataReplacementPostProcessor(target_metadata_key="window")],
    )
    query_with_access(engine, QUERY, MSA)
    assert any("Fees remain due." in p and "written notice" in p for p in llm.prompts)


@pytest.fixture(scope="module")
def narrow_window_nodes() -> list[TextNode]:
    """Four sentence nodes with one-sentence windows: only the first window is clean."""
    text = (
        f"{CLAUSE} Fees remain due monthly. The portal login is {SECRET} for all. Invoices follow."
    )
    document = Document(text=text, metadata=dict(META), id_="msa-3")
    nodes = SentenceWindowNodeParser.from_defaults(window_size=1).get_nodes_from_documents(
        [document]
    )
    return [node for node in nodes if isinstance(node, TextNode)]


def test_a_neighbour_whose_window_holds_a_withheld_sentence_is_withheld(
    narrow_window_nodes: list[TextNode], embedder: MiniLMEmbedder, guard: Guard
) -> None:
    """The guard judges each node's window as well as its sentence: the neighbours of the
    sentence with the credential are withheld with it, and instrumentation never shows it
    (nor does the kept node's record of its neighbours)."""
    index = VectorStoreIndex(narrow_window_nodes, embed_model=MiniLMEmbedding(embedder))
    retriever = GuardedRetriever(index.as_retriever(similarity_top_k=4), guard, MSA)
    with InstrumentationRecorder() as seen:
        got = retriever.retrieve(QUERY)
    assert [n.node.node_id for n in got] == [narrow_window_nodes[0].node_id]
    assert all(SECRET not in text for text in [repr(got), *seen.texts])


def test_a_window_engine_shows_instrumentation_no_withheld_window(
    narrow_window_nodes: list[TextNode], embedder: MiniLMEmbedder, guard: Guard
) -> None:
    """The README's window engine sends and reports only the clean window: no span of
    ``MetadataReplacementPostProcessor`` or the synthesizer holds the credential."""
    index = VectorStoreIndex(narrow_window_nodes, embed_model=MiniLMEmbedding(embedder))
    llm = RecordingLLM()
    engine = window_engine(index.as_retriever(similarity_top_k=4), llm, guard)
    with InstrumentationRecorder() as seen:
        response = query_with_access(engine, QUERY, MSA)
    assert [n.node.node_id for n in response.source_nodes] == [narrow_window_nodes[0].node_id]
    assert any("Fees remain due monthly." in p for p in llm.prompts)
    assert all(SECRET not in text for text in [*llm.prompts, *seen.texts])
