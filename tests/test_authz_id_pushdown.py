"""A scope of 10, 100 or 1,000 resource ids from a real engine (Cedar, documents shared with
one person each) through both frameworks' retrievers: pushed down as one list where the store
takes it, and returning exactly the principal's top k; where the store takes no filter, nothing
is pushed and over-fetch plus the bulk check return only what the principal may view."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest
from authz_frameworks import ID_KEY, ID_QUERIES, id_corpus, memo, retriever
from pushdown_stores import Stores

from rag_guard_integrations import AccessContext, Guard, parse_policy
from rag_guard_integrations.authz.cedar import CedarAccess
from rag_guard_integrations.authz.sample import CEDAR_POLICIES
from rag_guard_integrations.langchain.pushdown import plan_pushdown
from rag_guard_integrations.llama_index.fetch import sources

pytestmark = pytest.mark.unit

SIZES = (10, 100, 1000)
K = 10
NOTHING = parse_policy("version: 1\nname: nothing\n")
DATA = id_corpus()
NAMES = [str(c.metadata[ID_KEY]) for c in DATA.chunks]
# Each user is shared that many documents, drawn at random.
GRANTS = {f"u{size}": set(random.Random(size).sample(NAMES, size)) for size in SIZES}


@pytest.fixture(scope="module")
def stores() -> Any:
    """The stores of both frameworks over the id corpus."""
    built = Stores(DATA, memo())
    yield built
    built.close()


@pytest.fixture(scope="module")
def guard() -> Guard:
    """Cedar over the id corpus: each document shared with the users granted it."""
    entities: list[dict[str, Any]] = [
        {"uid": {"type": "User", "id": user}, "attrs": {}, "parents": []} for user in GRANTS
    ]
    for name in NAMES:
        users = [u for u, granted in GRANTS.items() if name in granted]
        shared = [{"__entity": {"type": "User", "id": u}} for u in users]
        entities.append(
            {
                "uid": {"type": "Document", "id": name},
                "attrs": {"shared_with": shared},
                "parents": [],
            }
        )
    return Guard(NOTHING, access_source=CedarAccess(CEDAR_POLICIES, entities, resource_key=ID_KEY))


def top(query: str, user: str) -> list[str]:
    """The exact top k of the resources ``user`` was granted."""
    scores = DATA.vectors @ np.array(memo().embed_query(query))
    ranked = [NAMES[i] for i in np.argsort(-scores, kind="stable")]
    return [name for name in ranked if name in GRANTS[user]][:K]


def pushed_ids(framework: str, store: Any, guard: Guard, user: str) -> int:
    """How many ids the adapter puts into the store's filter for ``user``'s scope."""
    constraints = guard.prefilter(ID_QUERIES[0], AccessContext(user))
    if framework == "langchain":
        pushdown = plan_pushdown(store, constraints)
        return 0 if pushdown is None else str(pushdown.filter).count("res-")
    fetching, _ = sources(store.as_retriever(similarity_top_k=K), constraints or {}, None)
    filters = fetching._filters
    return 0 if filters is None else sum(len(f.value) for f in filters.filters)


@pytest.mark.parametrize(
    ("framework", "name"),
    [("langchain", "qdrant"), ("langchain", "chroma"), ("llama_index", "qdrant")],
)
@pytest.mark.parametrize("size", SIZES)
def test_a_scope_of_up_to_a_thousand_ids_is_pushed_whole_and_returns_the_top_k(
    stores: Stores, guard: Guard, framework: str, name: str, size: int
) -> None:
    """Every id of the scope reaches the store's filter (none dropped, LangChain's Qdrant
    filter one list, not an OR per id), and the retriever returns exactly the top k granted."""
    store = stores.get(framework, name)
    user = f"u{size}"
    assert pushed_ids(framework, store, guard, user) == size
    if framework == "langchain" and name == "qdrant":
        pushdown = plan_pushdown(store, guard.prefilter(ID_QUERIES[0], AccessContext(user)))
        assert pushdown is not None
        assert len(pushdown.filter.must) == 1
    ask = retriever(framework, store, guard, k=K)
    for query in ID_QUERIES[:2]:
        assert _resources(ask, query, user) == top(query, user), (query, user)


@pytest.mark.parametrize("size", SIZES)
def test_a_store_that_takes_no_filter_gets_no_ids_and_still_returns_only_granted(
    stores: Stores, guard: Guard, size: int
) -> None:
    """LlamaIndex FAISS takes no metadata filter: nothing is pushed, the over-fetched candidates
    are bulk-checked, and what comes back was granted (as many as the fetch held)."""
    index = stores.get("llama_index", "faiss")
    user = f"u{size}"
    assert pushed_ids("llama_index", index, guard, user) == 0
    ask = retriever("llama_index", index, guard, k=K, fetch_k=len(NAMES))
    for query in ID_QUERIES[:2]:
        assert _resources(ask, query, user) == top(query, user), (query, user)


def _resources(ask: Any, query: str, user: str) -> list[str]:
    """The resources of what ``ask`` returned, in order."""
    return [key.split("#")[0] for key in ask(query, user)]
