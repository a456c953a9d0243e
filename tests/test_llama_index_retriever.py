"""Tests for the LlamaIndex GuardedRetriever: over-fetch, access pushdown into MetadataFilters,
at most k authorised nodes, a shared retriever left untouched, and per-request isolation."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

import pytest
from llama_index.core.base.base_retriever import BaseRetriever
from llama_index.core.indices.vector_store.retrievers import VectorIndexRetriever
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode
from llama_index.core.vector_stores import SimpleVectorStore
from llama_index.core.vector_stores.types import (
    FilterCondition,
    FilterOperator,
    MetadataFilter,
    MetadataFilters,
    VectorStoreQuery,
    VectorStoreQueryResult,
)
from llama_index_support import MSA, QUERY, SOW, DecisionRecorder, contracts_index, recording_events

from rag_guard_integrations import AccessContext, Guard
from rag_guard_integrations.llama_index import GuardedRetriever, guard_access
from rag_guard_integrations.llama_index.pushdown import constraint_filters, merge_filters

if TYPE_CHECKING:
    from collections.abc import Iterator

    from llama_index.core import VectorStoreIndex

    from rag_guard_integrations.embeddings import MiniLMEmbedder


@pytest.fixture(scope="session")
def index(embedder: MiniLMEmbedder) -> VectorStoreIndex:
    return contracts_index(embedder)


@pytest.fixture(scope="session")
def guard() -> Guard:
    return Guard.from_policy("contracts")


class StoreSpy:
    """Records every query the SimpleVectorStore receives and the node ids it returns."""

    def __init__(self) -> None:
        self.queries: list[VectorStoreQuery] = []
        self.returned: list[list[str]] = []


@pytest.fixture
def spy(monkeypatch: pytest.MonkeyPatch) -> StoreSpy:
    record = StoreSpy()
    original = SimpleVectorStore.query

    def query(self: SimpleVectorStore, query: VectorStoreQuery, **kwargs: Any) -> Any:
        result: VectorStoreQueryResult = original(self, query, **kwargs)
        record.queries.append(query)
        record.returned.append(list(result.ids or []))
        return result

    monkeypatch.setattr(SimpleVectorStore, "query", query)
    return record


@pytest.fixture
def recorder() -> Iterator[DecisionRecorder]:
    yield from recording_events()


def ids(nodes: list[NodeWithScore]) -> list[str]:
    return [n.node.node_id for n in nodes]


def flat(filters: MetadataFilters) -> list[MetadataFilter]:
    """The filters of a flat (un-nested) MetadataFilters."""
    assert all(isinstance(f, MetadataFilter) for f in filters.filters)
    return [f for f in filters.filters if isinstance(f, MetadataFilter)]


def contract_type(index: VectorStoreIndex, node_id: str) -> str:
    return str(index.docstore.get_node(node_id).metadata["contract_type"])


@pytest.mark.parametrize(
    ("access", "expected"),
    [
        (MSA, "msa-termination-notice"),
        (SOW, "sow-termination-notice"),
        ({"contract_type": ["NDA"]}, "nda-termination-notice"),
    ],
)
def test_returns_the_authorised_clause_even_when_it_ranks_low(
    index: VectorStoreIndex, guard: Guard, access: Any, expected: str
) -> None:
    """With k=1 the caller's clause comes back although other contracts' rank above it."""
    retriever = GuardedRetriever(retriever=index.as_retriever(similarity_top_k=1), guard=guard)
    with guard_access(access):
        nodes = retriever.retrieve(QUERY)
    assert ids(nodes) == [expected]


def test_pushdown_sends_in_filters_and_fetches_only_authorised_nodes(
    index: VectorStoreIndex, guard: Guard, spy: StoreSpy
) -> None:
    """The store receives ``contract_type IN allowlist`` and ``clause_id IN asked clauses`` with
    fetch_k = 4 x k; all it returns is authorised, and at most k allowed nodes come back."""
    inner = index.as_retriever(similarity_top_k=2)
    retriever = GuardedRetriever(retriever=inner, guard=guard, access=SOW)
    nodes = retriever.retrieve(QUERY)
    assert len(spy.queries) == 1
    query = spy.queries[0]
    assert query.similarity_top_k == 8
    assert query.filters is not None
    assert [(f.key, f.operator, f.value) for f in flat(query.filters)] == [
        ("contract_type", FilterOperator.IN, ["SOW"]),
        ("clause_id", FilterOperator.IN, ["TERMINATION_NOTICE"]),
    ]
    assert spy.returned[0]
    assert {contract_type(index, i) for i in spy.returned[0]} == {"SOW"}
    assert ids(nodes) == ["sow-termination-notice"]
    assert len(nodes) <= 2


def test_inner_filters_are_combined_with_and(
    index: VectorStoreIndex, guard: Guard, spy: StoreSpy
) -> None:
    """The inner retriever's own filters still apply, ANDed with the guard's filters."""
    own = MetadataFilters(filters=[MetadataFilter(key="clause_id", value="GOVERNING_LAW")])
    inner = index.as_retriever(similarity_top_k=3, filters=own)
    retriever = GuardedRetriever(retriever=inner, guard=guard)
    with guard_access({"contract_type": ["MSA", "SOW"]}):
        retriever.retrieve("Which law governs the agreement?")
    sent = spy.queries[0].filters
    assert sent is not None
    assert sent.condition == FilterCondition.AND
    assert [(f.key, f.operator) for f in flat(sent)] == [
        ("clause_id", FilterOperator.EQ),
        ("contract_type", FilterOperator.IN),
        ("clause_id", FilterOperator.IN),
    ]
    returned = spy.returned[0]
    assert sorted(returned) == ["msa-governing-law", "sow-governing-law"]


def test_shared_retriever_is_not_changed(index: VectorStoreIndex, guard: Guard) -> None:
    """Over-fetching uses a per-request copy: the inner retriever keeps its k and filters."""
    inner = index.as_retriever(similarity_top_k=2)
    assert isinstance(inner, VectorIndexRetriever)
    GuardedRetriever(retriever=inner, guard=guard, access=MSA, fetch_k=20).retrieve(QUERY)
    assert inner.similarity_top_k == 2
    assert inner._filters is None


def test_the_per_request_copy_keeps_the_retrievers_settings(
    index: VectorStoreIndex, guard: Guard, spy: StoreSpy
) -> None:
    """The query the store receives carries the inner retriever's own settings (node ids,
    query mode, alpha) with the guard's k and filters on top."""
    allowed = [node_id for node_id in index.docstore.docs if contract_type(index, node_id) == "MSA"]
    inner = VectorIndexRetriever(index, similarity_top_k=2, node_ids=allowed[:3], alpha=0.25)
    GuardedRetriever(retriever=inner, guard=guard, access=MSA, fetch_k=7).retrieve(QUERY)
    [query] = spy.queries
    assert (query.similarity_top_k, query.node_ids, query.alpha) == (7, allowed[:3], 0.25)
    assert query.mode == inner._vector_store_query_mode
    assert query.filters is not None
    assert inner.similarity_top_k == 2


def test_no_access_fetches_nothing(index: VectorStoreIndex, guard: Guard, spy: StoreSpy) -> None:
    """Without an allowlist nothing may be seen, so the store is not even queried."""
    retriever = GuardedRetriever(retriever=index.as_retriever(), guard=guard)
    assert retriever.retrieve(QUERY) == []
    with guard_access(AccessContext(contract_type=set())):
        assert retriever.retrieve(QUERY) == []
    assert spy.queries == []


def test_access_precedence(index: VectorStoreIndex, guard: Guard) -> None:
    """guard_access(...) wins over the constructor default; without it the default applies."""
    retriever = GuardedRetriever(
        retriever=index.as_retriever(similarity_top_k=1), guard=guard, access=MSA
    )
    with guard_access(SOW):
        assert ids(retriever.retrieve(QUERY)) == ["sow-termination-notice"]
    assert ids(retriever.retrieve(QUERY)) == ["msa-termination-notice"]


@pytest.mark.parametrize(("fetch_k", "sent"), [(None, 12), (5, 5), (1, 3)])
def test_fetch_k(
    index: VectorStoreIndex, guard: Guard, spy: StoreSpy, fetch_k: int | None, sent: int
) -> None:
    """fetch_k defaults to 4 x k and is never below k."""
    inner = index.as_retriever(similarity_top_k=3)
    GuardedRetriever(retriever=inner, guard=guard, access=MSA, fetch_k=fetch_k).retrieve(QUERY)
    assert spy.queries[0].similarity_top_k == sent


@pytest.mark.parametrize("fetch_k", [0, -3, 2.5, True, "8"])
def test_bad_fetch_k_is_refused(index: VectorStoreIndex, guard: Guard, fetch_k: Any) -> None:
    """A fetch_k that is not a positive int fails at construction, naming the value."""
    with pytest.raises(ValueError, match="fetch_k must be a positive int"):
        GuardedRetriever(retriever=index.as_retriever(), guard=guard, fetch_k=fetch_k)


def test_wrong_components_are_refused(index: VectorStoreIndex, guard: Guard) -> None:
    """A retriever or guard of the wrong type fails at construction with the fix."""
    with pytest.raises(
        TypeError, match=r"got the index VectorStoreIndex; pass index\.as_retriever"
    ):
        GuardedRetriever(retriever=index, guard=guard)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"guard must be a Guard or policy references, got int"):
        GuardedRetriever(retriever=index.as_retriever(), guard=42)


@pytest.mark.parametrize("access", [MSA, SOW, {"contract_type": ["MSA", "NDA"]}, None])
async def test_async_equals_sync(index: VectorStoreIndex, guard: Guard, access: Any) -> None:
    """``aretrieve`` returns the same nodes as ``retrieve``."""
    retriever = GuardedRetriever(
        retriever=index.as_retriever(similarity_top_k=2), guard=guard, access=access
    )
    sync = retriever.retrieve(QUERY)
    asynchronous = await retriever.aretrieve(QUERY)
    assert ids(asynchronous) == ids(sync)
    assert [n.score for n in asynchronous] == pytest.approx([n.score for n in sync])


class FixedRetriever(BaseRetriever):
    """A retriever that is not a VectorIndexRetriever: returns the same nodes every time."""

    def __init__(self, nodes: list[NodeWithScore]) -> None:
        super().__init__()
        self.nodes = nodes
        self.calls = 0

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        self.calls += 1
        return self.nodes


def test_other_retrievers_are_called_as_they_are(guard: Guard) -> None:
    """A retriever without pushdown support is called once and its own objects are filtered."""
    nodes = [
        NodeWithScore(
            node=TextNode(
                id_=f"{kind.lower()}-notice",
                text=f"Either party may terminate this {kind} on 30 days' written notice.",
                metadata={"contract_type": kind, "clause_id": "TERMINATION_NOTICE"},
            ),
            score=score,
        )
        for kind, score in [("SOW", 0.9), ("MSA", 0.8)]
    ]
    inner = FixedRetriever(nodes)
    kept = GuardedRetriever(retriever=inner, guard=guard, access=MSA).retrieve(QUERY)
    assert inner.calls == 1
    assert len(kept) == 1
    assert kept[0] is nodes[1]
    assert kept[0].score == 0.8


def test_threads_keep_their_own_access(index: VectorStoreIndex, guard: Guard) -> None:
    """One shared retriever serves concurrent threads with different access blocks."""
    retriever = GuardedRetriever(retriever=index.as_retriever(similarity_top_k=1), guard=guard)
    accesses = [MSA, SOW, None] * 3

    def run(access: Any) -> list[str]:
        with guard_access(access):
            return ids(retriever.retrieve(QUERY))

    with ThreadPoolExecutor(max_workers=3) as pool:
        results = list(pool.map(run, accesses))
    assert results == [["msa-termination-notice"], ["sow-termination-notice"], []] * 3


async def test_tasks_keep_their_own_access(index: VectorStoreIndex, guard: Guard) -> None:
    """Concurrent asyncio tasks with different access blocks each get their own nodes."""
    retriever = GuardedRetriever(retriever=index.as_retriever(similarity_top_k=1), guard=guard)

    async def run(access: Any) -> list[str]:
        async with guard_access(access):
            return ids(await retriever.aretrieve(QUERY))

    results = await asyncio.gather(*(run(a) for a in [MSA, SOW, None] * 3))
    assert results == [["msa-termination-notice"], ["sow-termination-notice"], []] * 3


@pytest.mark.parametrize("method", ["check", "acheck"])
async def test_guard_errors_surface(
    index: VectorStoreIndex, guard: Guard, monkeypatch: pytest.MonkeyPatch, method: str
) -> None:
    """When the guard raises, the error surfaces instead of unchecked nodes."""

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("guard exploded")

    async def abroken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("guard exploded")

    monkeypatch.setattr(guard, method, broken if method == "check" else abroken)
    retriever = GuardedRetriever(retriever=index.as_retriever(), guard=guard, access=MSA)

    async def run() -> list[NodeWithScore]:
        if method == "check":
            return retriever.retrieve(QUERY)
        return await retriever.aretrieve(QUERY)

    with pytest.raises(RuntimeError, match="guard exploded"):
        await run()


def test_decision_event_names_the_retriever(
    index: VectorStoreIndex, guard: Guard, recorder: DecisionRecorder
) -> None:
    """The retriever's checks are dispatched as GuardDecisionEvents too."""
    GuardedRetriever(retriever=index.as_retriever(), guard=guard, access=MSA).retrieve(QUERY)
    assert [e.source for e in recorder.events] == ["GuardedRetriever"]
    assert "msa-termination-notice" in recorder.events[0].allowed_node_ids


def test_constraint_filters_and_merge() -> None:
    """Constraints become sorted IN filters, none without constraints; OR filters of the caller
    are nested under AND rather than flattened."""
    made = constraint_filters({"contract_type": frozenset({"SOW", "MSA"})})
    assert made is not None
    assert made.filters[0] == MetadataFilter(
        key="contract_type", value=["MSA", "SOW"], operator=FilterOperator.IN
    )
    assert constraint_filters({}) is None
    either = MetadataFilters(
        filters=[MetadataFilter(key="a", value="1"), MetadataFilter(key="b", value="2")],
        condition=FilterCondition.OR,
    )
    merged = merge_filters(either, made)
    assert merged is not None
    assert merged.condition == FilterCondition.AND
    assert merged.filters == [either, made.filters[0]]
    assert merge_filters(None, made) is made
    assert merge_filters(either, None) is either
