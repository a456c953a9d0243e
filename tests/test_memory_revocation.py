"""A grant taken away in the access source after a memory showed its chunks: a checkpointed
LangChain thread no longer loads for that caller (GuardedCheckpointer), nor runs
(GuardMiddleware alone), and a LlamaIndex conversation is forgotten, so the revoked chunks
never reach their model input again; a new thread shows what they may still see. Over each
real engine (Cedar, Casbin, an embedded SpiceDB)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import pytest
from authz_support import ENGINES, engine
from langchain.agents import create_agent
from langchain_core.documents import Document
from langchain_core.messages import RemoveMessage
from langchain_core.tools import BaseTool, tool
from langchain_support import ListRetriever
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command, Overwrite, interrupt

from rag_guard_integrations import Guard, parse_policy
from rag_guard_integrations.authz.sample import SampleOrg
from rag_guard_integrations.core.errors import AccessError
from rag_guard_integrations.langchain import (
    GuardedCheckpointer,
    GuardedRetriever,
    GuardMiddleware,
    create_guarded_retriever_tool,
)
from rag_guard_integrations.langchain.memory import SHOWN
from rag_guard_integrations.langchain.testing import ToolCallingChat, payload_text

if TYPE_CHECKING:
    from pathlib import Path

    from rag_guard_integrations import Chunk
    from rag_guard_integrations.embeddings import MiniLMEmbedder

ORG = SampleOrg.build()
ANYTHING = parse_policy("version: 1\nname: anything\n")  # the access source alone decides
ANA = {"access": {"principal": "ana"}}


def org_chunks() -> list[Chunk]:
    """Payroll-1 (shared with Ana) and the backend folder's documents."""
    return [c for c in ORG.chunks() if c.metadata["doc_id"] == "payroll-1"] + [
        c for c in ORG.chunks() if c.metadata["folder"] == "backend"
    ]


def org_documents() -> list[Document]:
    return [Document(c.text, metadata=dict(c.metadata), id=c.id) for c in org_chunks()]


def org_agent(
    guard: Guard, wrapped: bool, tool: BaseTool | None = None, middleware_guard: Guard | None = None
) -> tuple[Any, ToolCallingChat]:
    """An agent whose tool (by default a guarded one) retrieves :func:`org_chunks`."""
    if tool is None:
        tool = create_guarded_retriever_tool(
            ListRetriever(documents=org_documents()), guard, name="files", description="Files."
        )
    model, middleware = ToolCallingChat(), GuardMiddleware(middleware_guard or guard)
    saver = InMemorySaver()
    checkpointer = GuardedCheckpointer(saver, middleware) if wrapped else saver
    agent = create_agent(model, [tool], middleware=[middleware], checkpointer=checkpointer)
    return agent, model


def on(thread: str) -> dict[str, Any]:
    return {"configurable": {"thread_id": thread, **ANA}}


@pytest.mark.parametrize("wrapped", [True, False], ids=["guarded-checkpointer", "middleware"])
@pytest.mark.parametrize("name", ENGINES)
def test_a_thread_that_showed_a_revoked_grants_chunks_is_refused(
    name: str, wrapped: bool, tmp_path: Path
) -> None:
    """Ana reads the backend folder on a thread, then leaves the backend team: her next
    request on that thread is refused before her model reads it; a new thread answers from
    what she may still see."""
    question = {"messages": [("user", "What does the backend folder hold?")]}
    with engine(name, ORG, tmp_path, resource_key="doc_id") as built:
        agent, model = org_agent(Guard(ANYTHING, access_source=built.source), wrapped)
        first = agent.invoke(question, on("t"))
        backend = [c.text for c in ORG.chunks() if c.metadata["folder"] == "backend"]
        assert any(text in payload_text(first["messages"]) for text in backend)
        built.revoke("ana")
        calls_before = len(model.received)
        with pytest.raises(AccessError, match="no longer allows"):
            agent.invoke({"messages": [("user", "Remind me what it held")]}, on("t"))
        assert len(model.received) == calls_before
        fresh = payload_text(agent.invoke(question, on("new"))["messages"])
        assert not any(text in fresh for text in backend)
        assert "payroll-1" in fresh


def test_a_thread_whose_grants_still_hold_carries_on(tmp_path: Path) -> None:
    """Nothing revoked: Ana's second request on the thread runs, its earlier results judged
    again and still granted."""
    question = {"messages": [("user", "What does the backend folder hold?")]}
    with engine("cedar", ORG, tmp_path, resource_key="doc_id") as built:
        agent, _ = org_agent(Guard(ANYTHING, access_source=built.source), wrapped=True)
        agent.invoke(question, on("t"))
        again = agent.invoke({"messages": [("user", "And again?")]}, on("t"))
        assert "And again?" in payload_text(again["messages"])


@pytest.mark.parametrize("mode", ["condense_plus_context", "context"])
def test_a_llama_index_conversation_that_showed_a_revoked_grants_nodes_is_forgotten(
    mode: str, embedder: MiniLMEmbedder, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The same in a guarded LlamaIndex chat engine: once Ana leaves the backend team, her
    next turn starts a new conversation (a WARNING says so), so no earlier answer quoting a
    backend document reaches her prompt."""
    from llama_index.core import VectorStoreIndex
    from llama_index.core.schema import TextNode

    from rag_guard_integrations.llama_index import guard_access, guarded_chat_engine
    from rag_guard_integrations.llama_index.embedding import MiniLMEmbedding
    from rag_guard_integrations.llama_index.testing import RecordingLLM

    nodes = [TextNode(text=c.text, metadata=dict(c.metadata), id_=c.id) for c in org_chunks()]
    index = VectorStoreIndex(nodes, embed_model=MiniLMEmbedding(embedder))
    backend = [c.text for c in org_chunks() if c.metadata["folder"] == "backend"]
    with engine("cedar", ORG, tmp_path, resource_key="doc_id") as built:
        llm = RecordingLLM(echo=True)
        guard = Guard(ANYTHING, access_source=built.source)
        chat = guarded_chat_engine(index, guard, mode, llm=llm, similarity_top_k=4)  # type: ignore[arg-type]
        with guard_access(ANA["access"]):
            first = str(chat.chat("What does the backend folder hold?"))
            assert any(text in first for text in backend)
            built.revoke("ana")
            llm.prompts.clear()
            with caplog.at_level(logging.WARNING):
                chat.chat("Remind me what it held")
        assert llm.prompts
        assert not any(text in prompt for prompt in llm.prompts for text in backend)
        assert any("conversation was forgotten" in r.getMessage() for r in caplog.records)


QUESTION = {"messages": [("user", "What does the backend folder hold?")]}
BACKEND = [c.text for c in ORG.chunks() if c.metadata["folder"] == "backend"]


def test_the_thread_stays_refused_whatever_its_messages_still_show(tmp_path: Path) -> None:
    """Ana's input removes the tool result that showed the backend files (her earlier answer
    still quotes them): the thread's notes still name them, so her model is not called."""
    with engine("cedar", ORG, tmp_path, resource_key="doc_id") as built:
        agent, model = org_agent(Guard(ANYTHING, access_source=built.source), wrapped=False)
        first = agent.invoke(QUESTION, on("t"))
        [shown] = [m for m in first["messages"] if m.type == "tool"]
        built.revoke("ana")
        calls_before = len(model.received)
        removal = {"messages": [RemoveMessage(id=str(shown.id)), ("user", "Remind me")]}
        with pytest.raises(AccessError, match="no longer allows"):
            agent.invoke(removal, on("t"))
        assert len(model.received) == calls_before


def test_a_plain_tool_returning_a_guarded_retrievers_text_is_judged_again(
    tmp_path: Path,
) -> None:
    """A tool of your own that joins what a GuardedRetriever allowed into a string: the
    retriever's guard is heard, its chunks noted, and the thread refused once revoked."""
    with engine("cedar", ORG, tmp_path, resource_key="doc_id") as built:
        guard = Guard(ANYTHING, access_source=built.source)
        guarded = GuardedRetriever(retriever=ListRetriever(documents=org_documents()), guard=guard)

        @tool
        def files(query: str) -> str:
            """Files."""
            return "\n".join(d.page_content for d in guarded.invoke(query))

        agent, _ = org_agent(guard, wrapped=True, tool=files)
        assert any(text in str(agent.invoke(QUESTION, on("t"))) for text in BACKEND)
        built.revoke("ana")
        with pytest.raises(AccessError, match="no longer allows"):
            agent.invoke({"messages": [("user", "Remind me")]}, on("t"))


def test_a_tool_whose_guard_has_another_source_than_the_middlewares_is_withheld(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """GuardMiddleware built with a guard without the tool's access source could not judge
    the thread again: the tool's result is withheld, with a WARNING naming the fix."""
    with engine("cedar", ORG, tmp_path, resource_key="doc_id") as built:
        guard = Guard(ANYTHING, access_source=built.source)
        agent, model = org_agent(guard, wrapped=True, middleware_guard=Guard(ANYTHING))
        with caplog.at_level(logging.WARNING, logger="rag_guard_integrations"):
            out = agent.invoke(QUESTION, on("t"))
        assert not any(text in payload_text(out["messages"]) for text in BACKEND)
        assert not any(text in payload_text(model.received) for text in BACKEND)
        assert any("same access source" in r.getMessage() for r in caplog.records)


def test_a_source_that_fails_on_the_second_judgement_refuses_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The source down: the thread is refused (fail closed) with a reason that says it could
    not be judged, not that access was taken away; once it answers, the thread carries on."""
    with engine("cedar", ORG, tmp_path, resource_key="doc_id") as built:
        agent, _ = org_agent(Guard(ANYTHING, access_source=built.source), wrapped=True)
        agent.invoke(QUESTION, on("t"))

        def down(principal: str, resources: Any) -> Any:
            raise ConnectionError("policy store unreachable")

        monkeypatch.setattr(built.source, "check", down)
        with pytest.raises(AccessError, match="could not be judged again"):
            agent.invoke({"messages": [("user", "Remind me")]}, on("t"))
        monkeypatch.undo()
        again = agent.invoke({"messages": [("user", "Remind me")]}, on("t"))
        assert "Remind me" in str(again["messages"])


@pytest.mark.parametrize("via", ["input", "update_state"])
def test_a_caller_cannot_clear_the_threads_notes(via: str, tmp_path: Path) -> None:
    """Overwriting the notes before a revocation (so that the thread would load after it)
    is refused when the thread is written."""
    with engine("cedar", ORG, tmp_path, resource_key="doc_id") as built:
        agent, _ = org_agent(Guard(ANYTHING, access_source=built.source), wrapped=True)
        agent.invoke(QUESTION, on("t"))
        clear = {SHOWN: Overwrite([])}
        refused = pytest.raises(AccessError, match="cannot be removed")
        if via == "input":
            with refused:
                agent.invoke(Command(update=clear, goto="model"), on("t"))
        else:
            with refused:
                agent.update_state(on("t"), clear)
        built.revoke("ana")
        with pytest.raises(AccessError, match="no longer allows"):
            agent.invoke({"messages": [("user", "Remind me")]}, on("t"))


def test_a_run_that_jumps_to_the_model_is_judged_in_the_model_node(tmp_path: Path) -> None:
    """Without GuardedCheckpointer, ``Command(goto="model")`` skips the agent's start: the
    model node judges the binding and the notes itself, for the owner after a revocation and
    for another principal."""
    with engine("cedar", ORG, tmp_path, resource_key="doc_id") as built:
        agent, model = org_agent(Guard(ANYTHING, access_source=built.source), wrapped=False)
        agent.invoke(QUESTION, on("t"))
        calls_before = len(model.received)
        bob = {"configurable": {"thread_id": "t", "access": {"principal": "bob"}}}
        with pytest.raises(AccessError, match="another principal than 'bob'"):
            agent.invoke(Command(goto="model"), bob)
        built.revoke("ana")
        with pytest.raises(AccessError, match="no longer allows"):
            agent.invoke(Command(goto="model"), on("t"))
        assert len(model.received) == calls_before


def test_a_shadow_policy_notes_nothing_and_refuses_nothing(tmp_path: Path) -> None:
    """``mode: shadow`` withholds nothing: a revoked grant refuses no later turn."""
    shadow = parse_policy("version: 1\nname: watching\nmode: shadow\n")
    with engine("cedar", ORG, tmp_path, resource_key="doc_id") as built:
        agent, _ = org_agent(Guard(shadow, access_source=built.source), wrapped=True)
        agent.invoke(QUESTION, on("t"))
        built.revoke("ana")
        again = agent.invoke({"messages": [("user", "And again?")]}, on("t"))
        assert "And again?" in payload_text(again["messages"])


def test_notes_hold_ids_only_and_a_chunk_shown_again_once(tmp_path: Path) -> None:
    """The notes keep each chunk's id and resource id, no text or other metadata, and a
    chunk shown on a later turn is not noted again."""
    with engine("cedar", ORG, tmp_path, resource_key="doc_id") as built:
        agent, _ = org_agent(Guard(ANYTHING, access_source=built.source), wrapped=True)
        agent.invoke(QUESTION, on("t"))
        notes = agent.get_state(on("t")).values[SHOWN]
        assert notes
        assert all(set(note) == {"id", "resource"} for note in notes)
        agent.invoke(QUESTION, on("t"))
        assert agent.get_state(on("t")).values[SHOWN] == notes


@pytest.mark.parametrize("via", ["update_state", "input"])
def test_a_caller_cannot_unbind_or_narrow_the_threads_binding(via: str, tmp_path: Path) -> None:
    """Setting the thread's principal and held access to nothing (so that anyone could load
    it later) is refused when the thread is written."""
    with engine("cedar", ORG, tmp_path, resource_key="doc_id") as built:
        agent, _ = org_agent(Guard(ANYTHING, access_source=built.source), wrapped=True)
        agent.invoke(QUESTION, on("t"))
        unbind = {"rag_guard_principal": None, "rag_guard_access": None}
        refused = pytest.raises(AccessError, match="cannot be replaced or narrowed")
        if via == "input":
            with refused:
                agent.invoke(Command(update=unbind, goto="model"), on("t"))
        else:
            with refused:
                agent.update_state(on("t"), unbind)
        bob = {"configurable": {"thread_id": "t", "access": {"principal": "bob"}}}
        with pytest.raises(AccessError, match="another principal than 'bob'"):
            agent.get_state(bob)


def test_a_tool_that_interrupts_after_a_guarded_retrieval_is_noted_beside_the_interrupt(
    tmp_path: Path,
) -> None:
    """A tool of your own that asks a human to approve what a GuardedRetriever found ends in
    an interrupt, with no result to note: the notes are stored beside the interrupt, so once
    the grant is revoked the thread (and the interrupt's payload) no longer loads."""
    with engine("cedar", ORG, tmp_path, resource_key="doc_id") as built:
        guard = Guard(ANYTHING, access_source=built.source)
        guarded = GuardedRetriever(retriever=ListRetriever(documents=org_documents()), guard=guard)

        @tool
        def files(query: str) -> str:
            """Files, sent once a human approves them."""
            text = "\\n".join(d.page_content for d in guarded.invoke(query))
            return text if interrupt({"approve_sending": text}) else "not sent"

        agent, _ = org_agent(guard, wrapped=True, tool=files)
        paused = agent.invoke(QUESTION, on("t"))
        assert any(text in str(paused["__interrupt__"]) for text in BACKEND)
        built.revoke("ana")
        with pytest.raises(AccessError, match="no longer allows"):
            agent.get_state(on("t"))
        with pytest.raises(AccessError, match="no longer allows"):
            agent.invoke(Command(resume=True), on("t"))
