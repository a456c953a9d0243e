"""Tests for GuardCompressor: the guard as a LangChain document compressor."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from langchain_core.documents import Document
from langchain_core.runnables import RunnableConfig, RunnableLambda
from langchain_support import CONTRACT_TYPES, QUERY, Recorder, contract_documents, contract_store

from rag_guard_integrations import AccessContext, Guard, QueryRejected
from rag_guard_integrations.langchain import GuardCompressor
from rag_guard_integrations.langchain.check import EVENT_NAME


@pytest.fixture(scope="session")
def store():  # type: ignore[no-untyped-def]
    """The contract corpus in a real InMemoryVectorStore with MiniLM embeddings."""
    return contract_store()


@pytest.fixture(scope="session")
def guard() -> Guard:
    """The built-in contracts clause guard."""
    return Guard.from_policy("contracts")


@pytest.mark.parametrize(
    ("types", "expected"),
    [
        ({"MSA"}, ["msa-termination-notice"]),
        ({"SOW"}, ["sow-termination-notice"]),
        ({"MSA", "DPA"}, ["msa-termination-notice", "dpa-termination-notice"]),
        (set(), []),
        (None, []),
    ],
)
async def test_keeps_only_the_callers_clause(
    guard: Guard, types: set[str] | None, expected: list[str]
) -> None:
    """Only the termination clauses of the caller's contract types survive, sync and async."""
    access = None if types is None else AccessContext(contract_type=types)
    compressor = GuardCompressor(guard=guard, access=access)
    docs = contract_documents()
    assert [d.id for d in compressor.compress_documents(docs, QUERY)] == expected
    assert [d.id for d in await compressor.acompress_documents(docs, QUERY)] == expected


async def test_returns_the_callers_objects_unmodified(guard: Guard) -> None:
    """The compressor returns the very Document objects it was given and mutates none."""
    docs = contract_documents()
    before = copy.deepcopy(docs)
    compressor = GuardCompressor(guard=guard, access={"contract_type": list(CONTRACT_TYPES)})
    for kept in (
        compressor.compress_documents(docs, QUERY),
        await compressor.acompress_documents(docs, QUERY),
    ):
        assert len(kept) == len(CONTRACT_TYPES)
        assert all(any(k is d for d in docs) for k in kept)
    assert docs == before
    assert [d.metadata for d in docs] == [d.metadata for d in before]


async def test_empty_in_empty_out(guard: Guard) -> None:
    """No documents in, no documents out."""
    compressor = GuardCompressor(guard=guard, access={"contract_type": ["MSA"]})
    assert list(compressor.compress_documents([], QUERY)) == []
    assert list(await compressor.acompress_documents([], QUERY)) == []


async def test_event_inside_a_run_reaches_handlers(store: Any, guard: Guard) -> None:
    """Called with a run's callbacks, the compressor emits rag_guard_result to the handlers."""
    compressor = GuardCompressor(guard=guard, access={"contract_type": ["SOW"]})
    retriever = store.as_retriever(search_kwargs={"k": 20})

    def retrieve_and_compress(query: str, config: RunnableConfig) -> list[Any]:
        docs = retriever.invoke(query, config=config)
        return list(compressor.compress_documents(docs, query, callbacks=config["callbacks"]))

    async def aretrieve_and_compress(query: str, config: RunnableConfig) -> list[Any]:
        docs = await retriever.ainvoke(query, config=config)
        kept = await compressor.acompress_documents(docs, query, callbacks=config["callbacks"])
        return list(kept)

    recorder = Recorder()
    step = RunnableLambda(retrieve_and_compress, afunc=aretrieve_and_compress)
    sync = step.invoke(QUERY, config={"callbacks": [recorder]})
    asynchronous = await step.ainvoke(QUERY, config={"callbacks": [recorder]})
    assert [d.id for d in sync] == [d.id for d in asynchronous] == ["sow-termination-notice"]
    assert [name for name, _ in recorder.events] == [EVENT_NAME, EVENT_NAME]
    for _, data in recorder.events:
        assert data["fetched"] == 20
        assert data["dropped"] == 19
        assert data["returned"] == 1


def test_called_by_hand_logs_without_an_event(
    guard: Guard, caplog: pytest.LogCaptureFixture
) -> None:
    """Outside any run there is no event to attach, so the record goes to the log only."""
    compressor = GuardCompressor(guard=guard, access={"contract_type": ["NDA"]})
    with caplog.at_level("INFO", logger="rag_guard_integrations"):
        kept = compressor.compress_documents(contract_documents(), QUERY)
    assert [d.id for d in kept] == ["nda-termination-notice"]
    (line,) = [r.getMessage() for r in caplog.records if r.name == "rag_guard_integrations"]
    assert '"returned": 1' in line
    assert "written notice" not in line


async def test_rejected_query() -> None:
    """An out-of-domain query drops every document, or raises QueryRejected when asked to."""
    from rag_guard_integrations.data import load_corpus

    docs = [Document(c.text, metadata=dict(c.metadata)) for c in load_corpus("bis")[:4]]
    guard = Guard.from_policy("bis")
    assert list(GuardCompressor(guard=guard).compress_documents(docs, "bitcoin price")) == []
    strict = GuardCompressor(guard=guard, raise_on_reject=True)
    with pytest.raises(QueryRejected):
        strict.compress_documents(docs, "bitcoin price")
    with pytest.raises(QueryRejected):
        await strict.acompress_documents(docs, "bitcoin price")


async def test_guard_failure_surfaces(monkeypatch: pytest.MonkeyPatch) -> None:
    """A guard that raises makes the compressor raise; nothing passes unchecked."""
    guard = Guard.from_policy("contracts")

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("guard broke")

    async def abroken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("guard broke")

    monkeypatch.setattr(guard, "check", broken)
    monkeypatch.setattr(guard, "acheck", abroken)
    compressor = GuardCompressor(guard=guard, access={"contract_type": ["MSA"]})
    with pytest.raises(RuntimeError, match="guard broke"):
        compressor.compress_documents(contract_documents(), QUERY)
    with pytest.raises(RuntimeError, match="guard broke"):
        await compressor.acompress_documents(contract_documents(), QUERY)


def test_works_inside_contextual_compression_retriever(store: Any, guard: Guard) -> None:
    """In LangChain's ContextualCompressionRetriever the compressor keeps only the caller's
    clause, and a DocumentCompressorPipeline with it does the same."""
    from langchain_classic.retrievers import ContextualCompressionRetriever
    from langchain_classic.retrievers.document_compressors import DocumentCompressorPipeline

    compressor = GuardCompressor(guard=guard, access=AccessContext(contract_type={"SOW"}))
    base = store.as_retriever(search_kwargs={"k": 10})
    for wrapped in (compressor, DocumentCompressorPipeline(transformers=[compressor])):
        retriever = ContextualCompressionRetriever(base_compressor=wrapped, base_retriever=base)
        assert [d.id for d in retriever.invoke(QUERY)] == ["sow-termination-notice"]


def test_inside_a_compression_retriever_the_check_is_a_traced_run(store: Any, guard: Guard) -> None:
    """Under ContextualCompressionRetriever the compressor's check is the rag_guard.check run."""
    from langchain_classic.retrievers import ContextualCompressionRetriever

    from rag_guard_integrations.langchain.check import CHECK_RUN
    from rag_guard_integrations.langchain.testing import RecordingTracer

    retriever = ContextualCompressionRetriever(
        base_compressor=GuardCompressor(guard=guard, access={"contract_type": ["SOW"]}),
        base_retriever=store.as_retriever(search_kwargs={"k": 10}),
    )
    tracer = RecordingTracer()
    kept = retriever.invoke(
        "What is the termination notice period?", config={"callbacks": [tracer]}
    )
    [check] = tracer.named(CHECK_RUN)
    assert check.outputs is not None
    assert check.outputs["allowed"] == len(kept) == 1
    assert len(check.outputs["audit"]["chunks"]) == 10
