"""What callback handlers, ``astream_events``, tracers and LangSmith see of a guarded request:
the decision, and never the text of a clause the guard withheld."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
from langchain_core.callbacks import CallbackManager
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from langchain_core.tracers.context import tracing_v2_callback_var
from langchain_core.tracers.langchain import LangChainTracer
from langchain_support import QUERY, ListRetriever, contract_documents, contract_store

from rag_guard_integrations import Guard, RetrievalError
from rag_guard_integrations.langchain import GuardCompressor, GuardedRetriever, build_rag_chain
from rag_guard_integrations.langchain.check import CHECK_RUN
from rag_guard_integrations.langchain.quiet import unobserved
from rag_guard_integrations.langchain.testing import (
    EchoContextChat,
    RecordingHandler,
    RecordingTracer,
)

if TYPE_CHECKING:
    from langchain_core.runnables import RunnableConfig

MSA = {"contract_type": ["MSA"]}


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


def plain_retriever(guard: Guard, **params: Any) -> GuardedRetriever:
    """A GuardedRetriever over a retriever with no pushdown that returns the whole corpus."""
    return GuardedRetriever(
        retriever=ListRetriever(documents=contract_documents()), guard=guard, **params
    )


def seen(handler: RecordingHandler, tracer: RecordingTracer, events: list[str]) -> str:
    """Everything the app could observe, as one text."""
    return "\n".join([*handler.payloads, *tracer.texts(), *events])


async def test_msa_caller_over_a_retriever_without_pushdown_sees_no_denied_text(
    guard: Guard,
) -> None:
    """astream_events, a callback handler and a tracer carry the MSA clause and nothing denied."""
    allowed, denied = split_for_msa(guard)
    chain = build_rag_chain(plain_retriever(guard), EchoContextChat())
    handler, tracer = RecordingHandler(), RecordingTracer()
    config: RunnableConfig = {"configurable": {"access": MSA}, "callbacks": [handler, tracer]}
    events = [repr(e) async for e in chain.astream_events(QUERY, config, version="v2")]
    observed = seen(handler, tracer, events)
    assert len(denied) > 10
    assert [text for text in denied if text in observed] == []
    assert all(text in observed for text in allowed)


def test_sync_chain_handlers_see_no_denied_text(guard: Guard) -> None:
    """The same holds for invoke with a handler and a tracer."""
    allowed, denied = split_for_msa(guard)
    handler, tracer = RecordingHandler(), RecordingTracer()
    answer = build_rag_chain(plain_retriever(guard), EchoContextChat()).invoke(
        QUERY, config={"configurable": {"access": MSA}, "callbacks": [handler, tracer]}
    )
    assert answer == allowed[0]
    assert [text for text in denied if text in seen(handler, tracer, [])] == []


def test_tracer_sees_the_check_run_with_the_decision_summary(guard: Guard) -> None:
    """A BaseTracer records rag_guard.check under the retriever run: ids, stages, no text."""
    _, denied = split_for_msa(guard)
    tracer = RecordingTracer()
    plain_retriever(guard).invoke(QUERY, access=MSA, config={"callbacks": [tracer]})
    [check] = tracer.named(CHECK_RUN)
    [outer] = [r for r in tracer.runs if r.run_type == "retriever"]
    assert check.parent_run_id == outer.id
    assert check.inputs == {"query": QUERY, "candidates": len(contract_documents())}
    decisions = check.outputs["audit"]["chunks"] if check.outputs else []
    assert {d["id"] for d in decisions} == {d.id for d in contract_documents()}
    assert {d["stage"] for d in decisions if d["decision"] == "deny"} == {"access", "clause"}
    allowed = sum(d["decision"] == "allow" for d in decisions)
    assert allowed == check.outputs["allowed"] == 1  # type: ignore[index]
    assert [text for text in denied if text in repr(check.outputs)] == []


async def test_check_run_reports_failure_and_nothing_passes(
    guard: Guard, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A failing check ends its run with the error and returns nothing."""

    async def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("guard down")

    monkeypatch.setattr(guard, "acheck", broken)
    tracer = RecordingTracer()
    with pytest.raises(RuntimeError, match="guard down"):
        await plain_retriever(guard).ainvoke(QUERY, access=MSA, config={"callbacks": [tracer]})
    [check] = tracer.named(CHECK_RUN)
    assert "guard down" in str(check.error)


def test_a_tracer_from_tracing_v2_enabled_never_sees_the_inner_fetch(guard: Guard) -> None:
    """A tracer set as ``tracing_v2_enabled()`` sets it records the wrapper, not the inner run."""
    _, denied = split_for_msa(guard)
    tracer = RecordingTracer()
    token = tracing_v2_callback_var.set(tracer)
    try:
        plain_retriever(guard).invoke(QUERY, access=MSA)
    finally:
        tracing_v2_callback_var.reset(token)
    assert [r.name for r in tracer.runs if r.run_type == "retriever"] == ["GuardedRetriever"]
    assert [text for text in denied if text in "\n".join(tracer.texts())] == []


def test_langsmith_environment_tracing_is_off_inside_the_guard(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With LANGSMITH_TRACING=true, or inside ``tracing_context(enabled=True)``, a run gets a
    LangChainTracer, except inside the guard."""
    from langsmith import utils
    from langsmith.run_helpers import tracing_context

    monkeypatch.setenv("LANGSMITH_TRACING", "true")
    monkeypatch.setenv("LANGSMITH_API_KEY", "unused")
    utils.get_env_var.cache_clear()

    def tracers() -> list[Any]:
        return [h for h in CallbackManager.configure().handlers if isinstance(h, LangChainTracer)]

    try:
        assert tracers()
        with unobserved():
            assert tracers() == []
        monkeypatch.delenv("LANGSMITH_TRACING")
        utils.get_env_var.cache_clear()
        with tracing_context(enabled=True):
            assert tracers()
            with unobserved():
                assert tracers() == []
    finally:
        utils.get_env_var.cache_clear()


def test_debugging_opt_in_exposes_the_unchecked_documents(guard: Guard) -> None:
    """expose_unchecked_documents_to_callbacks does what its name says: the inner fetch is seen."""
    _, denied = split_for_msa(guard)
    handler = RecordingHandler()
    retriever = plain_retriever(guard, expose_unchecked_documents_to_callbacks=True)
    retriever.invoke(QUERY, access=MSA, config={"callbacks": [handler]})
    assert any(text in "\n".join(handler.payloads) for text in denied)


def test_compression_retriever_exposes_its_base_fetch_and_the_guarded_form_does_not(
    guard: Guard,
) -> None:
    """ContextualCompressionRetriever shows its base retriever's output to handlers (documented);
    a GuardedRetriever around the compression retriever keeps it inside."""
    from langchain_classic.retrievers import ContextualCompressionRetriever

    _, denied = split_for_msa(guard)
    base = ListRetriever(documents=contract_documents())
    exposed = ContextualCompressionRetriever(
        base_compressor=GuardCompressor(guard=guard, access=MSA), base_retriever=base
    )
    handler = RecordingHandler()
    assert len(exposed.invoke(QUERY, config={"callbacks": [handler]})) == 1
    assert any(text in "\n".join(handler.payloads) for text in denied)

    from rag_guard_integrations.evaluation.prompt.langchain_runner import SimilarityFilter
    from rag_guard_integrations.langchain import MiniLMEmbeddings

    compressed = ContextualCompressionRetriever(
        base_compressor=SimilarityFilter(embeddings=MiniLMEmbeddings(), threshold=0.0),
        base_retriever=contract_store().as_retriever(search_kwargs={"k": 40}),
    )
    handler = RecordingHandler()
    kept = GuardedRetriever(retriever=compressed, guard=guard).invoke(
        QUERY, access=MSA, config={"callbacks": [handler]}
    )
    assert [d.metadata["contract_type"] for d in kept] == ["MSA"]
    assert [text for text in denied if text in "\n".join(handler.payloads)] == []


@pytest.mark.parametrize("use_async", [False, True])
async def test_a_withheld_chunks_metadata_value_reaches_no_handler(
    guard: Guard, use_async: bool
) -> None:
    """A denied chunk's access value reaches no callback handler and no tracer."""
    secret = "Project Lantern acquisition, do not disclose"
    documents = [
        *contract_documents()[:2],
        Document("A clause.", metadata={"contract_type": secret}),
    ]
    retriever = GuardedRetriever(retriever=ListRetriever(documents=documents), guard=guard)
    handler, tracer = RecordingHandler(), RecordingTracer()
    config: RunnableConfig = {"callbacks": [handler, tracer], "configurable": {"access": MSA}}
    if use_async:
        await retriever.ainvoke(QUERY, config=config)
    else:
        retriever.invoke(QUERY, config=config)
    assert any(CHECK_RUN in p for p in handler.payloads)
    assert "Lantern" not in seen(handler, tracer, [])


class FailingRetriever(BaseRetriever):
    """A retriever whose error quotes the document it choked on, as some store errors do."""

    secret: str

    def _get_relevant_documents(self, query: str, **kwargs: Any) -> list[Document]:
        raise ValueError(f"cannot parse document: {self.secret}")


async def test_an_inner_retrievers_error_reaches_no_handler_with_its_text(guard: Guard) -> None:
    """The inner retriever's exception becomes a RetrievalError naming only its type, sync and
    async: ``on_retriever_error``, the tracer's error runs, the event stream and the caller
    never see the document text its message quoted."""
    secret = "CANARY-inner-error-7f3a"
    retriever = GuardedRetriever(retriever=FailingRetriever(secret=secret), guard=guard)
    handler, tracer = RecordingHandler(), RecordingTracer()
    config: RunnableConfig = {"configurable": {"access": MSA}, "callbacks": [handler, tracer]}
    with pytest.raises(RetrievalError) as raised:
        retriever.invoke(QUERY, config=config)
    with pytest.raises(RetrievalError) as araised:
        await retriever.ainvoke(QUERY, config=config)
    events: list[str] = []

    async def stream() -> None:
        events.extend(
            [repr(e) async for e in retriever.astream_events(QUERY, config, version="v2")]
        )

    with pytest.raises(RetrievalError):
        await stream()
    for error in (raised.value, araised.value):
        assert "raised ValueError" in str(error)
        assert error.__context__ is None
    observed = seen(handler, tracer, events)
    assert "RetrievalError" in observed
    assert secret not in observed
