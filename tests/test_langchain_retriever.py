"""Tests for the LangChain GuardedRetriever, its chain helper and its audit event."""

from __future__ import annotations

import asyncio
import copy
import json
import logging
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

import pytest
from langchain_core.documents import Document
from langchain_support import (
    CONTRACT_TYPES,
    QUERY,
    FailingRetriever,
    ListRetriever,
    Recorder,
    contract_documents,
    contract_store,
)
from langchain_tests.integration_tests import RetrieversIntegrationTests

from rag_guard_integrations import AccessContext, Guard, QueryRejected, RetrievalError, parse_policy
from rag_guard_integrations.langchain import GuardedRetriever
from rag_guard_integrations.langchain.chain import build_rag_chain
from rag_guard_integrations.langchain.check import EVENT_NAME
from rag_guard_integrations.langchain.testing import EchoContextChat

if TYPE_CHECKING:
    from langchain_core.retrievers import BaseRetriever
    from langchain_core.runnables import RunnableConfig

REFUSAL = "No authorized matching clause found."
ACCESS_ONLY = "access: {attributes: [contract_type]}"


@pytest.fixture(scope="session")
def store():  # type: ignore[no-untyped-def]
    """The contract corpus in a real InMemoryVectorStore with MiniLM embeddings."""
    return contract_store()


@pytest.fixture(scope="session")
def contracts_guard() -> Guard:
    """The built-in contracts clause guard."""
    return Guard.from_policy("contracts")


def configured(types: list[str] | None) -> RunnableConfig:
    """A runnable config carrying the caller's contract types, or none."""
    if types is None:
        return {}
    return {"configurable": {"access": {"contract_type": types}}}


def guarded_contracts(k: int = 4, **params: Any) -> GuardedRetriever:
    """A GuardedRetriever with ``k`` on the wrapper, as the standard suite constructs it."""
    return GuardedRetriever(
        retriever=contract_store().as_retriever(),
        k=k,
        guard=Guard(parse_policy(ACCESS_ONLY)),
        access=AccessContext(principal="auditor", contract_type=set(CONTRACT_TYPES)),
        **params,
    )


class TestGuardedRetrieverStandard(RetrieversIntegrationTests):
    """The langchain-tests standard retriever suite, against GuardedRetriever."""

    @property
    def retriever_constructor(self) -> type[BaseRetriever]:
        return guarded_contracts  # type: ignore[return-value]

    @property
    def retriever_constructor_params(self) -> dict[str, Any]:
        return {"k": 4}

    @property
    def retriever_query_example(self) -> str:
        return QUERY


@pytest.mark.parametrize(
    ("types", "expected", "absent"),
    [
        (["MSA"], "thirty (30) days' written notice", "45 days"),
        (["SOW"], "45 days' written notice", "thirty (30)"),
        (None, REFUSAL, "written notice"),
    ],
)
async def test_rag_chain_answers_per_caller(
    store: Any, contracts_guard: Guard, types: list[str] | None, expected: str, absent: str
) -> None:
    """The RAG chain answers from the caller's own contract only, sync and async alike."""
    retriever = GuardedRetriever(retriever=store.as_retriever(), guard=contracts_guard)
    chain = build_rag_chain(retriever, EchoContextChat())
    answers = [
        chain.invoke(QUERY, config=configured(types)),
        await chain.ainvoke(QUERY, config=configured(types)),
    ]
    for answer in answers:
        assert expected in answer
        assert absent not in answer
    if types is None:
        assert answers == [REFUSAL, REFUSAL]


async def test_astream_events_carry_the_guard_result(store: Any, contracts_guard: Guard) -> None:
    """astream_events(v2) shows one rag_guard_result event with counts and no chunk text."""
    retriever = GuardedRetriever(retriever=store.as_retriever(), guard=contracts_guard)
    chain = build_rag_chain(retriever, EchoContextChat())
    events = [
        e
        async for e in chain.astream_events(QUERY, config=configured(["MSA"]), version="v2")
        if e["event"] == "on_custom_event"
    ]
    assert [e["name"] for e in events] == [EVENT_NAME]
    data: dict[str, Any] = dict(events[0]["data"])
    assert data["returned"] == 1
    assert data["fetched"] == data["dropped"] + data["allowed"]
    assert data["pushdown"] == "in_memory"
    assert "written notice" not in json.dumps(data)


def test_callback_handlers_see_event_and_no_inner_run(store: Any, contracts_guard: Guard) -> None:
    """Handlers get the custom event and the wrapper's run only: the inner fetch stays hidden."""
    recorder = Recorder()
    retriever = GuardedRetriever(retriever=store.as_retriever(), guard=contracts_guard)
    retriever.invoke(QUERY, access={"contract_type": ["SOW"]}, config={"callbacks": [recorder]})
    [(_, no_parent)] = recorder.retriever_starts
    assert no_parent is None
    assert recorder.inner_fetches() == []
    assert [name for name, _ in recorder.events] == [EVENT_NAME]
    assert recorder.events[0][1]["returned"] == 1


def test_debugging_opt_in_runs_the_inner_retriever_as_a_child(
    store: Any, contracts_guard: Guard
) -> None:
    """With expose_unchecked_documents_to_callbacks the inner run is a traced child again."""
    recorder = Recorder()
    retriever = GuardedRetriever(
        retriever=store.as_retriever(),
        guard=contracts_guard,
        expose_unchecked_documents_to_callbacks=True,
    )
    retriever.invoke(QUERY, access={"contract_type": ["SOW"]}, config={"callbacks": [recorder]})
    (outer, no_parent), (_, parent) = recorder.retriever_starts
    assert no_parent is None
    assert parent == outer


@pytest.mark.parametrize(
    ("default", "configured_types", "kwarg", "expected"),
    [
        ({"contract_type": ["MSA"]}, None, None, {"MSA"}),
        ({"contract_type": ["MSA"]}, ["SOW"], None, {"SOW"}),
        ({"contract_type": ["MSA"]}, ["SOW"], {"contract_type": ["NDA"]}, {"NDA"}),
        (None, ["DPA"], None, {"DPA"}),
        (None, None, AccessContext(contract_type={"CHANNEL"}), {"CHANNEL"}),
        (None, None, None, set()),
    ],
)
def test_access_precedence(
    store: Any, default: Any, configured_types: Any, kwarg: Any, expected: set[str]
) -> None:
    """access= beats configurable, which beats the default; with none at all, nothing passes."""
    retriever = GuardedRetriever(
        retriever=store.as_retriever(), guard=Guard.from_policy("contracts"), access=default
    )
    extra = {} if kwarg is None else {"access": kwarg}
    docs = retriever.invoke(QUERY, config=configured(configured_types), **extra)
    assert {d.metadata["contract_type"] for d in docs} == expected


def test_returns_the_inner_documents_unmodified() -> None:
    """Returned Documents are the inner retriever's own objects; inputs are not mutated."""
    docs = contract_documents()
    before = copy.deepcopy(docs)
    inner = ListRetriever(documents=docs)
    retriever = GuardedRetriever(
        retriever=inner, guard=Guard(parse_policy(ACCESS_ONLY)), access={"contract_type": ["NDA"]}
    )
    out = retriever.invoke(QUERY, k=100)
    assert docs == before
    assert [d.metadata for d in docs] == [d.metadata for d in before]
    assert out
    assert all(any(o is d for d in docs) for o in out)
    assert [o.id for o in out] == [d.id for d in docs if d.metadata["contract_type"] == "NDA"]


def test_empty_in_empty_out() -> None:
    """An inner retriever that returns nothing yields nothing, and the event says so."""
    recorder = Recorder()
    retriever = GuardedRetriever(
        retriever=ListRetriever(documents=[]),
        guard=Guard(parse_policy(ACCESS_ONLY)),
        access={"contract_type": ["MSA"]},
    )
    assert retriever.invoke(QUERY, config={"callbacks": [recorder]}) == []
    assert recorder.events[0][1]["fetched"] == 0


async def test_async_equals_sync(store: Any, contracts_guard: Guard) -> None:
    """ainvoke returns the same documents as invoke for every caller."""
    retriever = GuardedRetriever(retriever=store.as_retriever(), guard=contracts_guard)
    for types in (["MSA"], ["SOW", "NDA"], list(CONTRACT_TYPES), []):
        sync = retriever.invoke(QUERY, access={"contract_type": types})
        asynchronous = await retriever.ainvoke(QUERY, access={"contract_type": types})
        assert [d.id for d in sync] == [d.id for d in asynchronous]


@pytest.mark.parametrize(
    ("search_k", "invoke_k", "fetch_k", "returned", "fetched"),
    [
        (None, None, None, 4, 16),
        (2, None, None, 2, 8),
        (2, 3, None, 3, 12),
        (5, 1, 10, 1, 10),
        (5, 4, 2, 4, 4),
    ],
)
def test_k_and_fetch_k(
    search_k: int | None, invoke_k: int | None, fetch_k: int | None, returned: int, fetched: int
) -> None:
    """k comes from invoke, else the inner search_kwargs, else 4; fetch_k defaults to 4 x k."""
    recorder = Recorder()
    search = {} if search_k is None else {"k": search_k}
    retriever = GuardedRetriever(
        retriever=contract_store().as_retriever(search_kwargs=search),
        guard=Guard(parse_policy(ACCESS_ONLY)),
        access={"contract_type": list(CONTRACT_TYPES)},
        fetch_k=fetch_k,
    )
    extra = {} if invoke_k is None else {"k": invoke_k}
    docs = retriever.invoke(QUERY, config={"callbacks": [recorder]}, **extra)
    assert len(docs) == returned
    assert recorder.events[0][1]["fetched"] == fetched


def test_other_retrievers_get_no_k() -> None:
    """A retriever that is not a VectorStoreRetriever is called without an injected k."""
    inner = ListRetriever(documents=contract_documents())
    retriever = GuardedRetriever(
        retriever=inner, guard=Guard(parse_policy(ACCESS_ONLY)), access={"contract_type": ["MSA"]}
    )
    assert len(retriever.invoke(QUERY, k=2)) == 2
    assert inner.calls == [{}]


@pytest.mark.parametrize("k", [0, -1, "3", 2.5])
def test_bad_k_is_a_clear_error(k: Any) -> None:
    """A k that is not a positive int is refused with a message naming it."""
    retriever = guarded_contracts()
    with pytest.raises(ValueError, match="k must be a positive int"):
        retriever.invoke(QUERY, k=k)


def test_concurrent_threads_keep_their_own_access(store: Any, contracts_guard: Guard) -> None:
    """Threads with different principals never see each other's contracts."""
    retriever = GuardedRetriever(retriever=store.as_retriever(), guard=contracts_guard)
    callers = [CONTRACT_TYPES[i % len(CONTRACT_TYPES)] for i in range(30)]

    def ask(contract_type: str) -> set[str]:
        docs = retriever.invoke(QUERY, config=configured([contract_type]))
        return {d.metadata["contract_type"] for d in docs}

    with ThreadPoolExecutor(max_workers=6) as pool:
        seen = list(pool.map(ask, callers))
    assert seen == [{c} for c in callers]


async def test_concurrent_tasks_keep_their_own_access(store: Any, contracts_guard: Guard) -> None:
    """asyncio tasks with different principals never see each other's contracts."""
    retriever = GuardedRetriever(retriever=store.as_retriever(), guard=contracts_guard)
    callers = [CONTRACT_TYPES[i % len(CONTRACT_TYPES)] for i in range(30)]
    results = await asyncio.gather(
        *(retriever.ainvoke(QUERY, access={"contract_type": [c]}) for c in callers)
    )
    assert [{d.metadata["contract_type"] for d in docs} for docs in results] == [
        {c} for c in callers
    ]


async def test_inner_failure_surfaces_and_returns_nothing(contracts_guard: Guard) -> None:
    """When the inner retriever raises, the failure surfaces as a RetrievalError naming the
    error's type (sync and async), and nothing is returned."""
    retriever = GuardedRetriever(
        retriever=FailingRetriever(), guard=contracts_guard, access={"contract_type": ["MSA"]}
    )
    with pytest.raises(RetrievalError, match="raised ConnectionError;"):
        retriever.invoke(QUERY)
    with pytest.raises(RetrievalError, match="raised ConnectionError;"):
        await retriever.ainvoke(QUERY)


async def test_guard_failure_never_passes_unchecked(
    store: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """When the guard itself raises, the error surfaces instead of unchecked documents."""
    guard = Guard.from_policy("contracts")

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("guard broke")

    async def abroken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("guard broke")

    monkeypatch.setattr(guard, "check", broken)
    monkeypatch.setattr(guard, "acheck", abroken)
    retriever = GuardedRetriever(
        retriever=store.as_retriever(), guard=guard, access={"contract_type": ["MSA"]}
    )
    with pytest.raises(RuntimeError, match="guard broke"):
        retriever.invoke(QUERY)
    with pytest.raises(RuntimeError, match="guard broke"):
        await retriever.ainvoke(QUERY)


def bis_retriever(**params: Any) -> GuardedRetriever:
    """A guarded retriever over a few standards chunks with the BIS domain guard."""
    from rag_guard_integrations.data import load_corpus

    docs = [Document(c.text, metadata=dict(c.metadata), id=c.id) for c in load_corpus("bis")[:5]]
    return GuardedRetriever(
        retriever=ListRetriever(documents=docs), guard=Guard.from_policy("bis"), **params
    )


async def test_rejected_query_returns_nothing_and_reports_refusal() -> None:
    """An out-of-domain query yields no documents and an event that carries the refusal."""
    recorder = Recorder()
    retriever = bis_retriever()
    assert retriever.invoke("price of bitcoin today", config={"callbacks": [recorder]}) == []
    assert await retriever.ainvoke("price of bitcoin today", config={"callbacks": [recorder]}) == []
    for _, data in recorder.events:
        assert data["query_allowed"] is False
        assert data["refusal"]
        assert data["returned"] == 0


async def test_raise_on_reject() -> None:
    """With raise_on_reject the refusal is raised as QueryRejected, after the event is sent."""
    recorder = Recorder()
    retriever = bis_retriever(raise_on_reject=True)
    with pytest.raises(QueryRejected) as caught:
        retriever.invoke("price of bitcoin today", config={"callbacks": [recorder]})
    assert caught.value.decision.allowed is False
    with pytest.raises(QueryRejected):
        await retriever.ainvoke("price of bitcoin today")
    assert [name for name, _ in recorder.events] == [EVENT_NAME]


def test_audit_log_has_counts_and_no_text(
    store: Any, contracts_guard: Guard, caplog: pytest.LogCaptureFixture
) -> None:
    """The INFO log line carries the summary and counts but no chunk text."""
    retriever = GuardedRetriever(retriever=store.as_retriever(), guard=contracts_guard)
    with caplog.at_level(logging.INFO, logger="rag_guard_integrations"):
        retriever.invoke(QUERY, access=AccessContext("bob", contract_type={"MSA"}))
    (line,) = [r.getMessage() for r in caplog.records if r.name == "rag_guard_integrations"]
    record = json.loads(line.split(" ", 1)[1])
    assert record["principal"] == "bob"
    assert record["returned"] == 1
    assert "written notice" not in line


def test_access_field_takes_a_mapping() -> None:
    """The access field accepts a plain mapping and stores an AccessContext."""
    retriever = guarded_contracts()
    other = GuardedRetriever(
        retriever=retriever.retriever, guard=retriever.guard, access={"contract_type": ["MSA"]}
    )
    assert other.access == AccessContext(contract_type={"MSA"})


def test_chain_does_not_ask_the_model_without_context(store: Any, contracts_guard: Guard) -> None:
    """When nothing passes, the refusal is the answer and the model is never called."""

    class Unreachable(EchoContextChat):
        def _call(self, *args: Any, **kwargs: Any) -> str:
            raise AssertionError("the model was asked without context")

    retriever = GuardedRetriever(retriever=store.as_retriever(), guard=contracts_guard)
    chain = build_rag_chain(retriever, Unreachable())
    assert chain.invoke(QUERY) == REFUSAL
    custom = build_rag_chain(retriever, Unreachable(), refusal="Nothing you may see.")
    assert custom.invoke(QUERY, config=configured([])) == "Nothing you may see."
