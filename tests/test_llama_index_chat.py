"""Tests for guarded_chat_engine: per-caller memory (none without a principal), the refusal as
the answer, the clause intent of follow-ups, streaming and async, in both chat modes."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

import pytest
from llama_index.core.llms import ChatMessage, MessageRole
from llama_index_support import MSA_CLAUSE, QUERY, REFUSAL, SOW_CLAUSE, contracts_index

from rag_guard_integrations import Guard
from rag_guard_integrations.core.errors import AdapterConfigError
from rag_guard_integrations.llama_index import GuardedRetriever, guard_access, guarded_chat_engine
from rag_guard_integrations.llama_index.testing import RecordingLLM

if TYPE_CHECKING:
    from llama_index.core import VectorStoreIndex

    from rag_guard_integrations.embeddings import MiniLMEmbedder
    from rag_guard_integrations.llama_index.chat import GuardedChatEngine

MODES = ["condense_plus_context", "context"]
ALICE = {"principal": "alice", "contract_type": ["MSA", "SOW"]}
BOB = {"principal": "bob", "contract_type": ["SOW"]}
GOVERNING_LAW = "What is the governing law?"


@pytest.fixture(scope="module")
def index(embedder: MiniLMEmbedder) -> VectorStoreIndex:
    return contracts_index(embedder)


@pytest.fixture(scope="module")
def guard() -> Guard:
    return Guard.from_policy("contracts")


def chat_for(
    index: VectorStoreIndex, guard: Guard, mode: str
) -> tuple[GuardedChatEngine, RecordingLLM]:
    llm = RecordingLLM()
    return guarded_chat_engine(index, guard, mode, llm=llm), llm  # type: ignore[arg-type]


@pytest.mark.parametrize("mode", MODES)
def test_two_callers_on_one_engine_keep_their_own_memory(
    index: VectorStoreIndex, guard: Guard, mode: str
) -> None:
    """Bob's prompt never carries Alice's question or clause, though they share one engine."""
    chat, llm = chat_for(index, guard, mode)
    with guard_access(ALICE):
        chat.chat(QUERY)
    llm.prompts.clear()
    with guard_access(BOB):
        chat.chat(GOVERNING_LAW)
        assert next(str(m.content) for m in chat.chat_history) == GOVERNING_LAW
    assert llm.prompts
    assert all(QUERY not in p and MSA_CLAUSE not in p for p in llm.prompts)


@pytest.mark.parametrize("mode", MODES)
def test_the_refusal_is_the_answer_when_nothing_passes(
    index: VectorStoreIndex, guard: Guard, mode: str
) -> None:
    """A caller with no access gets the policy's refusal, not "Empty Response", and no LLM call
    answers for them."""
    chat, llm = chat_for(index, guard, mode)
    with guard_access({}):
        response = chat.chat(QUERY)
    assert response.response == REFUSAL
    assert response.source_nodes == []
    assert llm.prompts == []


@pytest.mark.parametrize("mode", MODES)
def test_a_follow_up_naming_no_clause_keeps_the_clause_intent(
    index: VectorStoreIndex, guard: Guard, mode: str
) -> None:
    """ "And for the SOW?" after a termination question retrieves the termination clauses
    (condensed question, or the recent turns in context mode)."""
    chat, llm = chat_for(index, guard, mode)
    with guard_access(ALICE):
        chat.chat(QUERY)
        response = chat.chat("And for the SOW?")
    assert response.response != REFUSAL
    assert {n.node.metadata["clause_id"] for n in response.source_nodes} == {"TERMINATION_NOTICE"}
    assert SOW_CLAUSE in llm.prompts[-1]


@pytest.mark.parametrize("mode", MODES)
def test_streaming_answers_and_refuses(index: VectorStoreIndex, guard: Guard, mode: str) -> None:
    """stream_chat streams an answer for an authorised caller and the refusal otherwise."""
    chat, llm = chat_for(index, guard, mode)
    with guard_access(BOB):
        answer = "".join(chat.stream_chat(QUERY).response_gen)
    with guard_access({"principal": "eve"}):
        refusal = "".join(chat.stream_chat(QUERY).response_gen)
    assert answer == llm.answer
    assert refusal == REFUSAL
    assert all(MSA_CLAUSE not in p for p in llm.prompts)


@pytest.mark.parametrize("mode", MODES)
async def test_async_chat_and_stream_keep_callers_apart(
    index: VectorStoreIndex, guard: Guard, mode: str
) -> None:
    """achat and astream_chat guard each caller with their own access and memory."""
    chat, llm = chat_for(index, guard, mode)
    async with guard_access(BOB):
        response = await chat.achat(QUERY)
    async with guard_access({"principal": "eve"}):
        streamed = await chat.astream_chat(QUERY)
        refusal = "".join([token async for token in streamed.async_response_gen()])
    assert [n.node.metadata["contract_type"] for n in response.source_nodes] == ["SOW"]
    assert refusal == REFUSAL
    assert all(MSA_CLAUSE not in p for p in llm.prompts)


def test_reset_forgets_only_the_current_callers_conversation(
    index: VectorStoreIndex, guard: Guard
) -> None:
    """reset() clears the caller's own history; the other caller's stays."""
    chat, _ = chat_for(index, guard, "context")
    with guard_access(ALICE):
        chat.chat(QUERY)
    with guard_access(BOB):
        chat.chat(QUERY)
        chat.reset()
        assert chat.chat_history == []
    with guard_access(ALICE):
        assert len(chat.chat_history) == 2


def test_a_guarded_retriever_can_be_given(index: VectorStoreIndex, guard: Guard) -> None:
    """Over a GuardedRetriever the engine uses that retriever's guard and default access."""
    llm = RecordingLLM()
    retriever = GuardedRetriever(index.as_retriever(), guard, access={"contract_type": ["MSA"]})
    chat = guarded_chat_engine(retriever, guard, "context", llm=llm)
    response = chat.chat(QUERY)
    assert [n.node.metadata["contract_type"] for n in response.source_nodes] == ["MSA"]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"access": {"contract_type": ["SOW"]}}, "access=.*differs"),
        ({"access": {"contract_type": ["MSA", "SOW"]}}, "access=.*differs"),
        ({"fetch_k": 40}, r"fetch_k=40 differs .*\(None\)"),
    ],
)
def test_settings_a_given_guarded_retriever_would_ignore_are_refused(
    index: VectorStoreIndex, guard: Guard, kwargs: dict[str, object], message: str
) -> None:
    """An ``access`` or ``fetch_k`` other than the given GuardedRetriever's own is an error
    naming it, not silently dropped (a wider access would otherwise reach the prompt)."""
    retriever = GuardedRetriever(index.as_retriever(), guard, access={"contract_type": ["MSA"]})
    with pytest.raises(AdapterConfigError, match=message):
        guarded_chat_engine(retriever, guard, "context", llm=RecordingLLM(), **kwargs)  # type: ignore[arg-type]


def test_a_guard_other_than_the_given_retrievers_is_refused(
    index: VectorStoreIndex, guard: Guard
) -> None:
    """A GuardedRetriever built with another guard cannot be chatted over with this one."""
    lax = GuardedRetriever(index.as_retriever(), Guard.from_policy("base"))
    with pytest.raises(AdapterConfigError, match="guard differs"):
        guarded_chat_engine(lax, guard, "context", llm=RecordingLLM())


def test_the_given_retrievers_own_settings_may_be_repeated(
    index: VectorStoreIndex, guard: Guard
) -> None:
    """Repeating the retriever's own access and fetch_k is accepted and changes nothing."""
    msa = {"contract_type": ["MSA"]}
    retriever = GuardedRetriever(index.as_retriever(), guard, access=msa, fetch_k=12)
    chat = guarded_chat_engine(
        retriever, guard, "context", llm=RecordingLLM(), access=msa, fetch_k=12
    )
    response = chat.chat(QUERY)
    assert {n.node.metadata["contract_type"] for n in response.source_nodes} == {"MSA"}


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"chat_mode": "react"}, "chat_mode 'react'"),
        ({"memory": object()}, "memory="),
        ({"sytem_prompt": "x"}, "did you mean 'system_prompt'"),
    ],
)
def test_bad_arguments_are_refused(
    index: VectorStoreIndex, guard: Guard, kwargs: dict[str, object], message: str
) -> None:
    """A wrong mode, a shared memory and a misspelt argument are one-line errors."""
    with pytest.raises(AdapterConfigError, match=message):
        guarded_chat_engine(index, guard, llm=RecordingLLM(), **kwargs)  # type: ignore[arg-type]


ANONYMOUS = {"contract_type": ["MSA", "SOW"]}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("principal", [None, "", "  "], ids=["none", "empty", "blank"])
def test_two_anonymous_callers_with_equal_access_share_no_memory(
    index: VectorStoreIndex, guard: Guard, mode: str, principal: str | None
) -> None:
    """Two callers with the same allowlists and no principal (or a blank one) cannot be told
    apart, so neither keeps a memory: B's prompt never holds A's question or clause."""
    chat, llm = chat_for(index, guard, mode)
    caller = {**ANONYMOUS, "principal": principal}
    with guard_access(caller):
        chat.chat(QUERY)
    llm.prompts.clear()
    with guard_access(caller):
        chat.chat(GOVERNING_LAW)
        assert chat.chat_history == []
    assert llm.prompts
    assert all(QUERY not in p and MSA_CLAUSE not in p for p in llm.prompts)


def test_anonymous_callers_share_no_memory_through_the_default_access(
    index: VectorStoreIndex, guard: Guard
) -> None:
    """Callers with no block get the engine's default access, which has no principal: they
    share no memory either."""
    llm = RecordingLLM()
    chat = guarded_chat_engine(index, guard, "context", llm=llm, access=ANONYMOUS)
    chat.chat(QUERY)
    llm.prompts.clear()
    chat.chat(GOVERNING_LAW)
    assert all(QUERY not in p and MSA_CLAUSE not in p for p in llm.prompts)


def test_chatting_without_a_principal_warns_once(
    index: VectorStoreIndex, guard: Guard, caplog: pytest.LogCaptureFixture
) -> None:
    """The first turn without a principal logs one warning naming the fix; later ones and
    callers with a principal log nothing more."""
    chat, _ = chat_for(index, guard, "context")
    with caplog.at_level("WARNING", logger="rag_guard_integrations.llama_index.chat"):
        for access in (ANONYMOUS, ANONYMOUS, ALICE):
            with guard_access(access):
                chat.chat(QUERY)
    warnings = [r for r in caplog.records if r.name == "rag_guard_integrations.llama_index.chat"]
    assert len(warnings) == 1
    assert "without a principal" in warnings[0].getMessage()
    assert "guard_access({'principal'" in warnings[0].getMessage()


def test_an_anonymous_caller_brings_their_own_history(
    index: VectorStoreIndex, guard: Guard
) -> None:
    """History passed with the turn is used for that turn, so an anonymous caller can still
    hold a conversation of their own."""
    chat, llm = chat_for(index, guard, "context")
    history = [ChatMessage(role=MessageRole.USER, content="Remember the word pelican.")]
    with guard_access(ANONYMOUS):
        chat.chat(QUERY, chat_history=history)
    assert any("pelican" in p for p in llm.prompts)


def test_a_sync_chat_leaves_no_connection_thread_behind(
    index: VectorStoreIndex, guard: Guard
) -> None:
    """Each conversation's memory lives in the process: no SQLite connection thread outlives
    a sync turn's event loop (which prints tracebacks when the process exits)."""
    chat, _ = chat_for(index, guard, "context")
    with guard_access(ALICE):
        chat.chat(QUERY)
        chat.chat("And what exactly does it say?")
    assert not [t for t in threading.enumerate() if "connection_worker" in t.name]
