"""Tests that ``mode: shadow`` changes nothing in a LlamaIndex app: the guarded engines send the
LLM what an unguarded engine would, never answer with a refusal, and still record the decision
the policy would have enforced."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from llama_index.core import VectorStoreIndex
from llama_index_support import (
    MSA_CLAUSE,
    QUERY,
    REFUSAL,
    SOW_CLAUSE,
    DecisionRecorder,
    RecordingLLM,
    contracts_index,
    recording_events,
)

from rag_guard_integrations import Guard, load_policy
from rag_guard_integrations.llama_index import (
    MiniLMEmbedding,
    guard_access,
    guarded_chat_engine,
    guarded_query_engine,
    query_with_access,
)

if TYPE_CHECKING:
    from collections.abc import Iterator

    from rag_guard_integrations.embeddings import MiniLMEmbedder


@pytest.fixture(scope="module")
def index(embedder: MiniLMEmbedder) -> VectorStoreIndex:
    return contracts_index(embedder)


@pytest.fixture(scope="module")
def shadow() -> Guard:
    return Guard(load_policy("contracts").model_copy(update={"mode": "shadow"}))


@pytest.fixture
def decisions() -> Iterator[DecisionRecorder]:
    yield from recording_events()


def test_a_caller_with_no_access_gets_what_an_unguarded_engine_sends(
    index: VectorStoreIndex, shadow: Guard, decisions: DecisionRecorder
) -> None:
    """In shadow mode a caller with no access gets the same top k an unguarded engine sends,
    and the LLM answers; the event records the denials the policy would have made."""
    llm, plain_llm = RecordingLLM(), RecordingLLM()
    engine = guarded_query_engine(index, shadow, llm=llm, similarity_top_k=3)
    answer = query_with_access(engine, QUERY, {})
    index.as_query_engine(llm=plain_llm, similarity_top_k=3).query(QUERY)
    assert str(answer) != REFUSAL
    assert llm.prompts == plain_llm.prompts
    assert MSA_CLAUSE in llm.prompts[-1]
    assert SOW_CLAUSE in llm.prompts[-1]
    (event,) = decisions.events
    assert event.audit["mode"] == "shadow"
    sent = [row for row in event.audit["chunks"] if row["stage"] != "limit"]
    assert len(sent) == 3
    assert {row["decision"] for row in sent} == {"deny"}
    assert not any(row["enforced"] for row in sent)
    # The candidates beyond the top k were not sent: recorded so, whatever the policy says.
    beyond = [row for row in event.audit["chunks"] if row["stage"] == "limit"]
    assert all(row["decision"] == "deny" and row["enforced"] for row in beyond)


def test_a_query_naming_no_clause_is_answered_in_shadow_mode(
    index: VectorStoreIndex, shadow: Guard
) -> None:
    """A question the enforced policy refuses (it names no clause) reaches the LLM."""
    llm = RecordingLLM()
    engine = guarded_query_engine(index, shadow, llm=llm, similarity_top_k=2)
    assert str(query_with_access(engine, "Tell me something.", {})) != REFUSAL
    assert llm.prompts


def test_an_empty_retrieval_is_not_replaced_by_the_refusal(
    embedder: MiniLMEmbedder, shadow: Guard
) -> None:
    """With nothing retrieved, shadow mode answers as LlamaIndex would, not with the refusal;
    enforcing, the same engine refuses."""
    empty = VectorStoreIndex([], embed_model=MiniLMEmbedding(embedder))
    shadowed = guarded_query_engine(empty, shadow, llm=RecordingLLM())
    enforced = guarded_query_engine(empty, "contracts", llm=RecordingLLM())
    assert str(query_with_access(shadowed, QUERY, {"contract_type": ["MSA"]})) != REFUSAL
    assert str(query_with_access(enforced, QUERY, {"contract_type": ["MSA"]})) == REFUSAL


def test_a_shadow_chat_turn_is_answered_by_the_llm(index: VectorStoreIndex, shadow: Guard) -> None:
    """The chat engines do not swap in the refusal either."""
    llm = RecordingLLM()
    chat = guarded_chat_engine(index, shadow, "context", llm=llm)
    with guard_access({"principal": "eve"}):
        assert chat.chat(QUERY).response != REFUSAL
    assert llm.prompts
