"""Tests for access pushdown into InMemoryVectorStore and Chroma filters, and defence in depth."""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING, Any

import pytest
from langchain_core.vectorstores import InMemoryVectorStore, VectorStore
from langchain_support import (
    CONTRACT_TYPES,
    QUERY,
    ListRetriever,
    Recorder,
    contract_documents,
    contract_store,
)

from rag_guard_integrations import AccessContext, Chunk, Guard, parse_policy
from rag_guard_integrations.core.stage import Request
from rag_guard_integrations.guards.access import AccessGuard
from rag_guard_integrations.langchain import GuardedRetriever, MiniLMEmbeddings
from rag_guard_integrations.langchain.pushdown import plan_pushdown

if TYPE_CHECKING:
    from langchain_core.documents import Document

ACCESS_ONLY = "access: {attributes: [contract_type]}"
TWO_ATTRIBUTES = "access: {attributes: [contract_type, clause_id]}"


def access_guard(attributes: list[str]) -> Guard:
    """A guard whose policy controls access to ``attributes`` and nothing else."""
    return Guard(parse_policy(f"access: {{attributes: [{', '.join(attributes)}]}}"))


@pytest.fixture(scope="session")
def store() -> InMemoryVectorStore:
    """The contract corpus in a real InMemoryVectorStore with MiniLM embeddings."""
    return contract_store()


@pytest.fixture(scope="session")
def chroma() -> Any:
    """The contract corpus in an in-process Chroma collection with MiniLM embeddings."""
    import chromadb
    from langchain_chroma import Chroma

    client = chromadb.EphemeralClient(settings=chromadb.config.Settings(anonymized_telemetry=False))
    db = Chroma(
        collection_name=f"contracts-{uuid.uuid4().hex[:8]}",
        embedding_function=MiniLMEmbeddings(),
        client=client,
    )
    docs = contract_documents()
    db.add_documents(docs, ids=[d.id for d in docs])
    return db


def fetched_and_returned(
    retriever: GuardedRetriever, access: Any, **kwargs: Any
) -> tuple[list[Document], list[Document], dict[str, Any]]:
    """What the inner retriever run returned, what the wrapper returned, and the event."""
    recorder = Recorder()
    # The debugging opt-in shows the inner fetch to handlers; by default it stays hidden.
    retriever = retriever.model_copy(update={"expose_unchecked_documents_to_callbacks": True})
    out = retriever.invoke(QUERY, config={"callbacks": [recorder]}, access=access, **kwargs)
    fetches = recorder.inner_fetches()
    return (fetches[0] if fetches else []), out, recorder.events[0][1]


def _types(docs: list[Document]) -> set[str]:
    return {d.metadata["contract_type"] for d in docs}


@pytest.mark.parametrize(
    ("attributes", "access", "user_filter", "expected"),
    [
        (
            ["contract_type"],
            {"contract_type": ["SOW", "MSA"]},
            None,
            {"contract_type": {"$in": ["MSA", "SOW"]}},
        ),
        (
            ["contract_type", "clause_id"],
            {"contract_type": ["MSA"], "clause_id": ["RENEWAL"]},
            None,
            {"$and": [{"contract_type": {"$in": ["MSA"]}}, {"clause_id": {"$in": ["RENEWAL"]}}]},
        ),
        (
            ["contract_type"],
            {"contract_type": ["NDA"]},
            {"contract_id": "NDA-1"},
            {"$and": [{"contract_type": {"$in": ["NDA"]}}, {"contract_id": "NDA-1"}]},
        ),
    ],
)
def test_chroma_filter_shapes(
    chroma: Any, attributes: list[str], access: Any, user_filter: Any, expected: Any
) -> None:
    """Allowlists become $in clauses, several under $and, together with the caller's filter."""
    plan = plan_pushdown(chroma, access_guard(attributes).prefilter("q", access), user_filter)
    assert plan is not None
    assert (plan.store, plan.filter, plan.admits_nothing) == ("chroma", expected, False)


@pytest.mark.parametrize(
    "access",
    [None, {}, {"contract_type": []}, {"region": ["EU"]}],
)
def test_no_grant_admits_nothing(store: InMemoryVectorStore, access: Any) -> None:
    """Without a non-empty allowlist for each controlled attribute nothing can be fetched."""
    plan = plan_pushdown(store, access_guard(["contract_type"]).prefilter("q", access))
    assert plan is not None
    assert plan.admits_nothing


class PlainStore(VectorStore):
    """A store of a kind pushdown does not know: similarity search only, no filter."""

    def __init__(self, inner: InMemoryVectorStore) -> None:
        self.inner = inner

    def similarity_search(self, query: str, k: int = 4, **kwargs: Any) -> list[Document]:
        return self.inner.similarity_search(query, k=k)

    @classmethod
    def from_texts(cls, *args: Any, **kwargs: Any) -> PlainStore:
        raise NotImplementedError


def test_no_pushdown_without_access_attributes(store: InMemoryVectorStore) -> None:
    """A policy that controls no attribute pushes nothing down."""
    assert plan_pushdown(store, access_guard([]).prefilter("q", {"contract_type": ["MSA"]})) is None


def test_other_stores_get_no_pushdown_and_still_cannot_leak(store: InMemoryVectorStore) -> None:
    """An unknown store gets k but no filter; the guard still removes what it must."""
    assert plan_pushdown(PlainStore(store), {"contract_type": frozenset({"MSA"})}) is None
    retriever = GuardedRetriever(
        retriever=PlainStore(store).as_retriever(), guard=Guard(parse_policy(ACCESS_ONLY))
    )
    fetched, out, event = fetched_and_returned(retriever, {"contract_type": ["MSA"]})
    assert len(fetched) == 16
    assert _types(fetched) > {"MSA"}
    assert _types(out) == {"MSA"}
    assert event["pushdown"] is None
    assert event["dropped"] == len([d for d in fetched if d.metadata["contract_type"] != "MSA"])


@pytest.mark.parametrize("allowed", [["MSA"], ["SOW", "NDA"], ["CHANNEL", "DPA", "MSA"]])
def test_in_memory_store_fetches_only_authorised(
    store: InMemoryVectorStore, allowed: list[str]
) -> None:
    """The in-memory store receives the filter: every fetched chunk is authorised."""
    retriever = GuardedRetriever(
        retriever=store.as_retriever(search_kwargs={"k": 3}), guard=Guard(parse_policy(ACCESS_ONLY))
    )
    fetched, out, event = fetched_and_returned(retriever, {"contract_type": allowed})
    assert len(fetched) == 12
    assert _types(fetched) <= set(allowed)
    assert _types(out) <= set(allowed)
    assert event["pushdown"] == "in_memory"
    assert event["dropped"] == 0


def test_in_memory_keeps_the_callers_filter(store: InMemoryVectorStore) -> None:
    """A filter set on the retriever still holds alongside the access filter."""
    inner = store.as_retriever(
        search_kwargs={"filter": lambda d: d.metadata["clause_id"] == "TERMINATION_NOTICE"}
    )
    retriever = GuardedRetriever(retriever=inner, guard=Guard(parse_policy(ACCESS_ONLY)))
    fetched, out, _ = fetched_and_returned(retriever, {"contract_type": ["MSA", "SOW"]})
    assert sorted(str(d.id) for d in fetched) == [
        "msa-termination-notice",
        "sow-termination-notice",
    ]
    assert sorted(str(d.id) for d in out) == sorted(str(d.id) for d in fetched)


@pytest.mark.parametrize("allowed", [["MSA"], ["SOW", "NDA"]])
def test_chroma_fetches_only_authorised(chroma: Any, allowed: list[str]) -> None:
    """Chroma receives the $in filters for the allowlist and the asked clause: every fetched
    chunk is an authorised termination-notice clause, so nothing fetched is dropped."""
    retriever = GuardedRetriever(
        retriever=chroma.as_retriever(search_kwargs={"k": 2}),
        guard=Guard.from_policy("contracts"),
    )
    fetched, out, event = fetched_and_returned(retriever, {"contract_type": allowed})
    assert len(fetched) == len(allowed)
    assert _types(fetched) <= set(allowed)
    assert {d.metadata["clause_id"] for d in fetched} == {"TERMINATION_NOTICE"}
    assert sorted(str(d.id) for d in out) == sorted(
        f"{t.lower()}-termination-notice" for t in allowed
    )
    assert event["pushdown"] == "chroma"


def test_chroma_two_attributes_and_caller_filter(chroma: Any) -> None:
    """Two controlled attributes and the caller's own filter must all hold in Chroma."""
    retriever = GuardedRetriever(
        retriever=chroma.as_retriever(search_kwargs={"filter": {"contract_id": "MSA-2024-017"}}),
        guard=Guard(parse_policy(TWO_ATTRIBUTES)),
    )
    access = {"contract_type": ["MSA", "SOW"], "clause_id": ["TERMINATION_NOTICE", "RENEWAL"]}
    fetched, out, _ = fetched_and_returned(retriever, access)
    assert sorted(str(d.id) for d in fetched) == ["msa-renewal", "msa-termination-notice"]
    assert sorted(str(d.id) for d in out) == ["msa-renewal", "msa-termination-notice"]


@pytest.mark.parametrize("make", ["in_memory", "chroma"])
def test_nothing_granted_fetches_nothing(store: Any, chroma: Any, make: str) -> None:
    """When the caller may see nothing, the store is not even asked."""
    inner = (store if make == "in_memory" else chroma).as_retriever()
    retriever = GuardedRetriever(retriever=inner, guard=Guard.from_policy("contracts"))
    recorder = Recorder()
    assert retriever.invoke(QUERY, config={"callbacks": [recorder]}) == []
    assert recorder.inner_fetches() == []
    assert recorder.events[0][1]["fetched"] == 0


@pytest.mark.parametrize("allowed", [["MSA"], ["DPA", "NDA"], []])
async def test_a_store_that_ignores_the_filter_still_cannot_leak(allowed: list[str]) -> None:
    """A retriever that returns everything is still cut down to the caller's contracts."""
    retriever = GuardedRetriever(
        retriever=ListRetriever(documents=contract_documents()),
        guard=Guard(parse_policy(ACCESS_ONLY)),
    )
    for out in (
        retriever.invoke(QUERY, access={"contract_type": allowed}, k=100),
        await retriever.ainvoke(QUERY, access={"contract_type": allowed}, k=100),
    ):
        assert _types(out) == set(allowed)
        assert len(out) == 15 * len(allowed)


def test_memory_filter_must_be_callable(store: InMemoryVectorStore) -> None:
    """A dict filter on an in-memory store is refused with a message naming the fix."""
    retriever = GuardedRetriever(
        retriever=store.as_retriever(search_kwargs={"filter": {"contract_type": "MSA"}}),
        guard=Guard(parse_policy(ACCESS_ONLY)),
    )
    with pytest.raises(TypeError, match="must be a callable"):
        retriever.invoke(QUERY, access={"contract_type": list(CONTRACT_TYPES)})


@pytest.mark.parametrize(
    "metadata",
    [
        {"contract_type": "MSA"},
        {"contract_type": "SOW"},
        {},
        {"contract_type": None},
        {"contract_type": 5},
        {"contract_type": ["MSA"]},
        {"contract_type": ["MSA", "SOW"]},
        {"contract_type": []},
        {"contract_type": "MSA", "region": "EU"},
        {"contract_type": "MSA", "region": "US"},
    ],
)
@pytest.mark.parametrize(
    "access",
    [
        AccessContext(contract_type={"MSA", "5"}, region={"EU"}),
        AccessContext(contract_type={"MSA"}),
        AccessContext(region={"EU"}),
    ],
)
def test_store_filter_agrees_with_the_guard(metadata: dict[str, Any], access: Any) -> None:
    """The in-memory filter admits exactly the chunks the guard's access stage admits."""
    attributes = ("contract_type", "region")
    verdict = AccessGuard(attributes)(Chunk("text", metadata), Request("q", "q", (), access))
    constraints = access_guard(list(attributes)).prefilter("q", access)
    admitted = constraints is not None and constraints.admits(metadata)
    assert admitted is (verdict is None)
