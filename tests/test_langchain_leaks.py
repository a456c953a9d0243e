"""Nothing the guard withholds leaves a LangChain app by any channel, over a retriever without
pushdown: the decision that crosses a run boundary is text-free, tracers the environment turns
on never see the inner fetch, and a redacted rendering keeps no unmasked metadata value."""

from __future__ import annotations

import logging
import pickle
import threading
import uuid
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

import pytest
from langchain.agents import create_agent
from langchain_core.callbacks import CallbackManagerForRetrieverRun  # noqa: TC002 - pydantic
from langchain_core.documents import Document
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate, PromptTemplate
from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables import RunnableLambda, RunnablePassthrough
from langchain_core.tracers.context import _configure_hooks, register_configure_hook
from langchain_ollama import ChatOllama
from langchain_support import QUERY, ListRetriever, contract_documents
from langsmith._internal._serde import dumps_json
from ollama_server import OllamaServer, keyword_labeller

from rag_guard_integrations import Guard, parse_policy
from rag_guard_integrations.classify import LLMClassifier
from rag_guard_integrations.langchain import (
    GuardedRetriever,
    GuardMiddleware,
    create_guarded_retriever_tool,
    guard_results,
)
from rag_guard_integrations.langchain.testing import (
    RecordingHandler,
    RecordingTracer,
    ToolCallingChat,
    payload_text,
)

if TYPE_CHECKING:
    from collections.abc import Iterator

    from langchain_core.runnables import Runnable, RunnableConfig

MSA = {"contract_type": ["MSA"]}
PROMPT = ChatPromptTemplate.from_messages(
    [("system", "Context:\n{context}"), ("human", "{question}")]
)


@pytest.fixture(scope="module")
def guard() -> Guard:
    """The built-in contracts clause guard."""
    return Guard.from_policy("contracts")


def split_for_msa(guard: Guard) -> tuple[list[str], list[str]]:
    """Texts the guard allows an MSA caller asking QUERY, and texts it denies them."""
    docs = contract_documents()
    result = guard.check(QUERY, docs, MSA)
    allowed = {docs[i].page_content for i in result.allowed_indices}
    return sorted(allowed), sorted({d.page_content for d in docs} - allowed)


async def everything_seen(runnable: Runnable[Any, Any], inputs: Any, config: Any) -> str:
    """All an app could observe of one sync and one streamed call: handler and tracer payloads,
    every ``astream_events`` event walked to its leaves and as LangSmith serialises it, the
    outputs (``repr``, LangSmith JSON, pickle) and the traced runs as LangSmith would send them."""
    handler, tracer = RecordingHandler(), RecordingTracer()
    observed: RunnableConfig = {**config, "callbacks": [handler, tracer]}
    output = runnable.invoke(inputs, observed)
    events = [e async for e in runnable.astream_events(inputs, observed, version="v2")]
    runs = [(r.inputs, r.outputs, r.events) for r in tracer.runs]
    return "\n".join(
        [
            *handler.payloads,
            *tracer.texts(),
            payload_text(events),
            dumps_json(events).decode(),
            dumps_json(runs).decode(),
            payload_text(output),
            repr(output),
            dumps_json(output).decode(),
            repr(pickle.loads(pickle.dumps(output))),
        ]
    )


async def test_an_agents_guarded_tool_over_a_plain_retriever_shows_no_withheld_clause(
    guard: Guard,
) -> None:
    """``create_agent`` with the guarded tool over a retriever returning every clause: the
    tool run's decision, its artifact, events, handlers and traces carry only the MSA clause."""
    allowed, denied = split_for_msa(guard)
    tool = create_guarded_retriever_tool(
        ListRetriever(documents=contract_documents()), guard, name="c", description="Clauses."
    )
    model = ToolCallingChat()
    agent = create_agent(model, [tool], middleware=[GuardMiddleware(guard)])
    question = {"messages": [("user", QUERY)]}
    seen = await everything_seen(agent, question, {"configurable": {"access": MSA}})
    assert len(denied) > 10
    assert [text for text in denied if text in seen] == []
    assert all(text in seen for text in allowed)
    assert "guarded_retrieval" in seen


LABELLED_PAIR = (
    "labels: {financial: {}, entity_identifier: {}}\n"
    "rules: [{name: pair, trigger: {all_present: [financial, entity_identifier]}}]\n"
)


async def test_the_llm_classifiers_model_call_is_seen_by_no_observer_of_the_chain() -> None:
    """An LLM classifier (ChatOllama on an Ollama-API server on 127.0.0.1) labels untagged
    chunks inside a user's chain: its model calls see the chunk before the guard decides, so
    no handler, tracer or event of the chain may see them, sync or streamed."""
    withheld = "Acme's salary budget for the Globex account is $4.2m."
    kept = "The office is closed on public holidays."
    keywords = {"financial": ["salary"], "entity_identifier": ["acme"]}
    documents = [Document(kept), Document(withheld)]

    def chain(server: OllamaServer) -> Runnable[str, list[Document]]:
        """A fresh classifier each time: its model's async client serves the first loop that
        uses it, so a chain awaited first takes the model's async path."""
        model = ChatOllama(
            model=server.model, base_url=server.base_url, client_kwargs={"trust_env": False}
        )
        guard = Guard(parse_policy(LABELLED_PAIR), classifier=LLMClassifier(model, retries=0))
        retriever = GuardedRetriever(retriever=ListRetriever(documents=documents), guard=guard)
        return RunnableLambda(lambda question: question) | retriever

    with OllamaServer(responder=keyword_labeller(keywords)) as server:
        handler, tracer = RecordingHandler(), RecordingTracer()
        observed: RunnableConfig = {"callbacks": [handler, tracer]}
        awaited = await chain(server).ainvoke("office budget", observed)
        events = [e async for e in chain(server).astream_events("office budget", version="v2")]
        seen = "\n".join(
            [*handler.payloads, *tracer.texts(), payload_text(events), dumps_json(events).decode()]
        )
        seen += await everything_seen(chain(server), "office budget", {})
        assert server.chat_count >= 3  # the model was asked on every path
    assert [d.page_content for d in awaited] == [kept]
    assert kept in seen
    assert withheld not in seen
    assert "Globex" not in seen  # nor any part of it, as the prompt quotes it


async def test_with_result_in_a_users_chain_shows_no_withheld_clause(guard: Guard) -> None:
    """A user's LCEL chain built on ``with_result()``: its output, every event and trace carry
    the decision (counts, refusal, audit) and no clause the guard withheld."""
    allowed, denied = split_for_msa(guard)
    retriever = GuardedRetriever(
        retriever=ListRetriever(documents=contract_documents()), guard=guard
    )
    chain = {
        "retrieved": retriever.with_result(),
        "question": RunnablePassthrough(),
    } | RunnableLambda(lambda inputs: inputs)
    seen = await everything_seen(chain, QUERY, {"configurable": {"access": MSA}})
    assert [text for text in denied if text in seen] == []
    assert all(text in seen for text in allowed)
    out = chain.invoke(QUERY, config={"configurable": {"access": MSA}})
    record = out["retrieved"]["result"].to_dict()
    assert record["allowed"] == 1
    assert len(record["audit"]["chunks"]) == len(contract_documents())


def test_guard_results_hands_the_full_result_to_the_callers_code(guard: Guard) -> None:
    """The full GuardResult (withheld chunks included) comes through ``guard_results`` only."""
    retriever = GuardedRetriever(
        retriever=ListRetriever(documents=contract_documents()), guard=guard
    )
    handler = RecordingHandler()
    with guard_results() as results:
        retriever.with_result().invoke(
            QUERY, config={"configurable": {"access": MSA}, "callbacks": [handler]}
        )
    [result] = results
    assert len(result.denied) == len(contract_documents()) - 1
    _, denied = split_for_msa(guard)
    assert [text for text in denied if text in "\n".join(handler.payloads)] == []


class EnvTracer(RecordingTracer):
    """A tracer LangChain builds from an environment variable through a configure hook."""

    made: list[EnvTracer] = []  # noqa: RUF012 - every instance, for the test to read
    variable = ""

    def __init__(self) -> None:
        super().__init__()
        EnvTracer.made.append(self)


@pytest.fixture
def env_tracer(monkeypatch: pytest.MonkeyPatch) -> Iterator[type[EnvTracer]]:
    """``EnvTracer`` registered as W&B and Comet register theirs, its variable (a new name for
    each test) set."""
    EnvTracer.variable = f"RAG_GUARD_TEST_TRACING_{uuid.uuid4().hex[:8].upper()}"
    var: ContextVar[EnvTracer | None] = ContextVar("env_tracer", default=None)
    register_configure_hook(var, True, EnvTracer, EnvTracer.variable)
    entry = _configure_hooks[-1]
    monkeypatch.setenv(EnvTracer.variable, "true")
    EnvTracer.made.clear()
    try:
        yield EnvTracer
    finally:
        _configure_hooks.remove(entry)


@pytest.mark.parametrize("use_async", [False, True])
async def test_a_tracer_from_a_configure_hook_never_sees_the_inner_fetch(
    guard: Guard, env_tracer: type[EnvTracer], use_async: bool
) -> None:
    """The hook's tracer records the guarded retriever and the check, not the inner run."""
    _, denied = split_for_msa(guard)
    retriever = GuardedRetriever(
        retriever=ListRetriever(documents=contract_documents()), guard=guard
    )
    if use_async:
        await retriever.ainvoke(QUERY, access=MSA)
    else:
        retriever.invoke(QUERY, access=MSA)
    runs = [run for tracer in env_tracer.made for run in tracer.runs]
    assert [r.name for r in runs if r.run_type == "retriever"] == ["GuardedRetriever"]
    texts = "\n".join(text for tracer in env_tracer.made for text in tracer.texts())
    assert [text for text in denied if text in texts] == []


class ThreadedRetriever(BaseRetriever):
    """A retriever that fetches in a thread it starts itself, without copying the context."""

    inner: BaseRetriever

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun, **kwargs: Any
    ) -> list[Document]:
        found: list[Document] = []
        worker = threading.Thread(target=lambda: found.extend(self.inner.invoke(query)))
        worker.start()
        worker.join()
        return found


def test_a_fetch_in_a_thread_of_its_own_is_the_stated_limit_and_is_warned_about(
    guard: Guard, env_tracer: type[EnvTracer], caplog: pytest.LogCaptureFixture
) -> None:
    """A thread the inner retriever starts without the context is out of the guard's reach:
    environment tracers trace it, and the guard says so in a WARNING once."""
    inner = ThreadedRetriever(inner=ListRetriever(documents=contract_documents()))
    retriever = GuardedRetriever(retriever=inner, guard=guard)
    with caplog.at_level(logging.WARNING, logger="rag_guard_integrations"):
        retriever.invoke(QUERY, access=MSA)
        retriever.invoke(QUERY, access=MSA)
    warned = [r.getMessage() for r in caplog.records if env_tracer.variable in r.getMessage()]
    assert len(warned) == 1
    assert "copy_context" in warned[0]
    traced = [run.name for tracer in env_tracer.made for run in tracer.runs]
    assert "ListRetriever" in traced  # the limit: the worker thread's run is traced


REDACT = parse_policy(
    "classifiers: {builtin: {email: contact_details}}\n"
    "labels: {contact_details: {description: how to reach a person}}\n"
    "rules:\n"
    "  - name: no_contact_details\n"
    "    action: redact\n"
    "    trigger: {all_present: [contact_details]}\n"
)


def contact_documents() -> list[Document]:
    """Two notes whose ``owner`` metadata is an email address, and one without."""
    return [
        Document("Quarterly widget review.", metadata={"owner": "ana.kowal@example.org"}, id="a"),
        Document("Gadget supply notes.", metadata={"owner": "li.chen@example.net"}, id="b"),
        Document("Open questions.", metadata={"owner": "the operations team"}, id="c"),
    ]


@pytest.mark.parametrize("use_async", [False, True])
async def test_redaction_with_a_document_prompt_masks_every_rendered_metadata_value(
    use_async: bool,
) -> None:
    """The masked rendering comes back with the rendered values it hid masked in metadata too;
    values the mask left alone stay; no handler, trace or artifact carries an address."""
    prompt = PromptTemplate.from_template("{page_content} Owner: {owner}")
    retriever = GuardedRetriever(
        retriever=ListRetriever(documents=contact_documents()),
        guard=Guard(REDACT),
        document_prompt=prompt,
    )
    handler, tracer = RecordingHandler(), RecordingTracer()
    config: RunnableConfig = {"callbacks": [handler, tracer]}
    returned = (
        await retriever.ainvoke(QUERY, config) if use_async else retriever.invoke(QUERY, config)
    )
    assert [d.page_content for d in returned] == [
        "Quarterly widget review. Owner: [CONTACT_DETAILS]",
        "Gadget supply notes. Owner: [CONTACT_DETAILS]",
        "Open questions. Owner: the operations team",
    ]
    assert [d.metadata["owner"] for d in returned] == [
        "[CONTACT_DETAILS]",
        "[CONTACT_DETAILS]",
        "the operations team",
    ]
    seen = "\n".join([*handler.payloads, *tracer.texts()])
    assert "example." not in seen
    assert contact_documents()[0].metadata["owner"] == "ana.kowal@example.org"


def test_a_masked_documents_id_and_metadata_keys_hold_no_masked_value() -> None:
    """An id or a metadata key holding the masked address is masked in the copy handed on
    (callbacks and traces see the copy); the caller's Document keeps its own."""
    email = "ana.kowal@example.org"
    original = Document(f"Write to {email}.", metadata={email: "last contacted"}, id=f"c-{email}")
    handler = RecordingHandler()
    retriever = GuardedRetriever(retriever=ListRetriever(documents=[original]), guard=Guard(REDACT))
    (copy,) = retriever.invoke("notes", config={"callbacks": [handler]})
    assert (copy.id, copy.metadata) == (
        "c-[CONTACT_DETAILS]",
        {"[CONTACT_DETAILS]": "last contacted"},
    )
    assert "example." not in "\n".join(handler.payloads)
    assert original.id == f"c-{email}"


def test_the_tool_artifact_of_a_redacted_rendering_holds_no_address() -> None:
    """The guarded tool's artifact carries the masked copies, metadata included."""
    tool = create_guarded_retriever_tool(
        ListRetriever(documents=contact_documents()),
        Guard(REDACT),
        name="notes",
        description="Notes.",
        document_prompt=PromptTemplate.from_template("{page_content} Owner: {owner}"),
    )
    call = {"type": "tool_call", "id": "1", "name": "notes", "args": {"query": "notes"}}
    message = tool.invoke(call)
    assert "example." not in payload_text([message.content, list(message.artifact)])
    assert "example." not in payload_text(message.artifact.result)


def test_a_users_chain_answers_from_the_masked_text(guard: Guard) -> None:
    """Downstream of the retriever, a user's chain sees only the masked rendering."""
    model = ToolCallingChat()
    retriever = GuardedRetriever(
        retriever=ListRetriever(documents=contact_documents()),
        guard=Guard(REDACT),
        document_prompt=PromptTemplate.from_template("{page_content} Owner: {owner}"),
    )
    chain = (
        {
            "context": retriever | (lambda docs: "\n".join(str(d.metadata) for d in docs)),
            "question": RunnablePassthrough(),
        }
        | PROMPT
        | model
        | StrOutputParser()
    )
    chain.invoke("notes")
    assert "example." not in payload_text(model.received)


def test_langsmith_environment_tracing_is_named_in_the_warning(
    guard: Guard, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """With ``LANGSMITH_TRACING=true`` the worker-thread limit is stated too."""
    from langsmith import utils

    from rag_guard_integrations.langchain.quiet import environment_tracers

    monkeypatch.setenv("LANGSMITH_TRACING", "true")
    monkeypatch.setenv("LANGSMITH_API_KEY", "unused")
    utils.get_env_var.cache_clear()
    try:
        assert "LANGSMITH_TRACING" in environment_tracers()
    finally:
        monkeypatch.delenv("LANGSMITH_TRACING")
        utils.get_env_var.cache_clear()
    assert "LANGSMITH_TRACING" not in environment_tracers()


BLOCKING = parse_policy(
    "on_block: raise\n"
    "labels: {salary: {description: pay}, person: {description: a name}}\n"
    "rules:\n"
    "  - name: salary_with_name\n"
    "    trigger: {all_present: [salary, person]}\n"
)


@pytest.mark.parametrize("use_async", [False, True])
async def test_a_blocked_context_error_carries_no_chunk_text(use_async: bool) -> None:
    """``on_block: raise`` through the adapter: the ContextBlocked that reaches the caller,
    ``on_retriever_error`` and traces holds the decision without text; ``guard_results`` has
    the full one."""
    from rag_guard_integrations.core.errors import ContextBlocked

    documents = [
        Document("Pay band 7 is 91,000 a year.", metadata={"classification": "salary"}, id="s"),
        Document("Jordan Avery leads the team.", metadata={"classification": "person"}, id="p"),
    ]
    retriever = GuardedRetriever(
        retriever=ListRetriever(documents=documents), guard=Guard(BLOCKING)
    )
    handler, tracer = RecordingHandler(), RecordingTracer()
    config: RunnableConfig = {"callbacks": [handler, tracer]}
    call = retriever.ainvoke("pay", config) if use_async else None
    with guard_results() as results, pytest.raises(ContextBlocked) as raised:
        await call if call is not None else retriever.invoke("pay", config)
    error = raised.value
    seen = "\n".join([payload_text(error.result), *handler.payloads, *tracer.texts(), repr(error)])
    assert error.__context__ is None
    assert [d.chunk.id for d in error.result.decisions] == ["s", "p"]
    assert "91,000" not in seen
    assert "Jordan" not in seen
    assert "salary_with_name" in str(error)
    assert results[-1].decisions[0].chunk.text.startswith("Pay band")
