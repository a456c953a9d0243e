"""Tests for ``pin_access``: every LlamaIndex component can take its ``access`` as a ceiling that
a ``guard_access`` block only narrows, so no per-call value widens what the operator pinned."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
from llama_index_support import MSA_CLAUSE, QUERY, SOW_CLAUSE, contracts_index

from rag_guard_integrations import Guard
from rag_guard_integrations.core.errors import AdapterConfigError
from rag_guard_integrations.llama_index import (
    GuardedQueryEngine,
    GuardedRetriever,
    GuardPostprocessor,
    guard_access,
    guarded_chat_engine,
    guarded_query_engine,
)
from rag_guard_integrations.llama_index.testing import RecordingLLM

if TYPE_CHECKING:
    from collections.abc import Callable

    from llama_index.core import VectorStoreIndex

    from rag_guard_integrations.embeddings import MiniLMEmbedder

PINNED = {"contract_type": ["MSA"]}
WIDER = {"principal": "mallory", "contract_type": ["MSA", "SOW", "NDA", "DPA", "CHANNEL"]}
SOW_ONLY = {"principal": "sam", "contract_type": ["SOW"]}


@pytest.fixture(scope="module")
def index(embedder: MiniLMEmbedder) -> VectorStoreIndex:
    return contracts_index(embedder)


@pytest.fixture(scope="module")
def guard() -> Guard:
    return Guard.from_policy("contracts")


def pinned_components(index: VectorStoreIndex, guard: Guard, llm: RecordingLLM) -> dict[str, Any]:
    """Every LlamaIndex entry point built with ``access=PINNED, pin_access=True``; each value
    answers one question with the answer's text (the prompt itself: the LLM echoes)."""
    retriever = GuardedRetriever(index.as_retriever(), guard, PINNED, pin_access=True)
    postprocessor = GuardPostprocessor(guard=guard, access=PINNED, pin_access=True)
    from_postprocessor = GuardedQueryEngine.from_args(
        index.as_retriever(), llm=llm, node_postprocessors=[postprocessor]
    )
    engine = guarded_query_engine(index, guard, PINNED, pin_access=True, llm=llm)
    chat = guarded_chat_engine(index, guard, "context", llm=llm, access=PINNED, pin_access=True)
    nodes = index.as_retriever(similarity_top_k=20).retrieve(QUERY)
    return {
        "GuardedRetriever": lambda q: " ".join(n.node.text for n in retriever.retrieve(q)),
        "GuardPostprocessor": lambda q: " ".join(
            n.node.text for n in postprocessor.postprocess_nodes(nodes, query_str=q)
        ),
        "GuardedQueryEngine": lambda q: str(from_postprocessor.query(q)),
        "guarded_query_engine": lambda q: str(engine.query(q)),
        "guarded_chat_engine": lambda q: str(chat.chat(q)),
    }


COMPONENTS = [
    "GuardedRetriever",
    "GuardPostprocessor",
    "GuardedQueryEngine",
    "guarded_query_engine",
    "guarded_chat_engine",
]


@pytest.mark.parametrize("component", COMPONENTS)
def test_a_wider_block_cannot_widen_pinned_access(
    index: VectorStoreIndex, guard: Guard, component: str
) -> None:
    """A block asking for every contract type still sees only the pinned MSA clause."""
    llm = RecordingLLM(echo=True)
    ask = pinned_components(index, guard, llm)[component]
    with guard_access(WIDER):
        answer = ask(QUERY)
    assert MSA_CLAUSE in answer
    assert SOW_CLAUSE not in answer
    assert all(SOW_CLAUSE not in prompt for prompt in llm.prompts)


@pytest.mark.parametrize("component", COMPONENTS)
def test_a_block_outside_the_pin_gets_nothing(
    index: VectorStoreIndex, guard: Guard, component: str
) -> None:
    """A block for SOW only narrows the MSA pin to nothing: no clause, and no LLM call."""
    llm = RecordingLLM(echo=True)
    ask = pinned_components(index, guard, llm)[component]
    with guard_access(SOW_ONLY):
        answer = ask(QUERY)
    assert MSA_CLAUSE not in answer
    assert SOW_CLAUSE not in answer
    assert llm.prompts == []


@pytest.mark.parametrize("component", COMPONENTS)
@pytest.mark.parametrize("nobody", [None, {}], ids=["None", "empty"])
def test_no_access_blocks_refuse_under_a_pin(
    index: VectorStoreIndex, guard: Guard, component: str, nobody: object
) -> None:
    """``guard_access(None)`` and ``{}`` are no access under a pin too."""
    llm = RecordingLLM(echo=True)
    ask = pinned_components(index, guard, llm)[component]
    with guard_access(nobody):
        answer = ask(QUERY)
    assert MSA_CLAUSE not in answer
    assert llm.prompts == []


@pytest.mark.parametrize("component", COMPONENTS)
def test_with_no_block_the_pinned_access_applies(
    index: VectorStoreIndex, guard: Guard, component: str
) -> None:
    """A request with no block at all gets the pinned access itself."""
    llm = RecordingLLM(echo=True)
    answer = pinned_components(index, guard, llm)[component](QUERY)
    assert MSA_CLAUSE in answer
    assert SOW_CLAUSE not in answer


def test_an_unpinned_default_is_replaced_by_the_block(
    index: VectorStoreIndex, guard: Guard
) -> None:
    """Without ``pin_access`` the block's access replaces the default (SOW for an MSA default)."""
    retriever = GuardedRetriever(index.as_retriever(), guard, PINNED)
    with guard_access(SOW_ONLY):
        texts = [n.node.text for n in retriever.retrieve(QUERY)]
    assert any(SOW_CLAUSE in text for text in texts)
    assert all(MSA_CLAUSE not in text for text in texts)


def test_pinning_nothing_is_refused(index: VectorStoreIndex, guard: Guard) -> None:
    """``pin_access=True`` without an ``access`` is a one-line error at construction."""
    builds: list[Callable[[], object]] = [
        lambda: GuardedRetriever(index.as_retriever(), guard, pin_access=True),
        lambda: GuardPostprocessor(guard=guard, pin_access=True),
        lambda: guarded_query_engine(index, guard, pin_access=True, llm=RecordingLLM()),
        lambda: guarded_chat_engine(index, guard, llm=RecordingLLM(), pin_access=True),
    ]
    for build in builds:
        with pytest.raises(AdapterConfigError, match="pin_access=True but no access to pin"):
            build()


def test_the_pin_survives_serialisation(guard: Guard) -> None:
    """``to_dict``/``from_dict`` keep a postprocessor's pin."""
    postprocessor = GuardPostprocessor(guard=guard, access=PINNED, pin_access=True)
    restored = GuardPostprocessor.from_dict(postprocessor.to_dict())
    assert restored.pin_access is True
    assert restored.access == postprocessor.access


def test_a_chat_engine_cannot_pin_a_given_unpinned_retriever(
    index: VectorStoreIndex, guard: Guard
) -> None:
    """Asking a chat engine to pin a given GuardedRetriever's access that it does not pin is
    refused rather than ignored."""
    retriever = GuardedRetriever(index.as_retriever(), guard, PINNED)
    with pytest.raises(AdapterConfigError, match="does not pin its access"):
        guarded_chat_engine(retriever, guard, llm=RecordingLLM(), pin_access=True)


def test_pinned_chat_callers_keep_their_own_memory(index: VectorStoreIndex, guard: Guard) -> None:
    """Under a pin each caller's principal still keys their own conversation."""
    chat = guarded_chat_engine(
        index, guard, "context", llm=RecordingLLM(), access=PINNED, pin_access=True
    )
    with guard_access({"principal": "alice", **PINNED}):
        chat.chat(QUERY)
    with guard_access({"principal": "bob", **PINNED}):
        assert chat.chat_history == []
    with guard_access({"principal": "alice", **PINNED}):
        assert str(chat.chat_history[0].content) == QUERY
