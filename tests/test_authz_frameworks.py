"""Access from each real engine (Cedar, Casbin, an embedded SpiceDB) through the shipped
LangChain and LlamaIndex retrievers over real stores with and without pushdown: nothing leaks,
nothing authorised is lost, no request comes back short; a truncated or failed scope pushes no
ids and over-fetch plus the bulk check keep recall; a revoked permission is denied live although
the chunk's copied ACL still grants it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
from authz_frameworks import (
    QUERIES,
    RESOURCE_KEY,
    STORES,
    Truth,
    evaluate,
    indexed_chunks,
    langchain_store,
    llama_index,
    retriever,
)
from authz_support import ENGINES, engine

from rag_guard_integrations import AccessContext, Guard, parse_policy
from rag_guard_integrations.authz.sample import SampleOrg
from rag_guard_integrations.langchain.pushdown import plan_pushdown
from rag_guard_integrations.llama_index.fetch import sources

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from rag_guard_integrations.authz import AccessSource, Answers, Scope

pytestmark = pytest.mark.unit

ORG = SampleOrg.build()
NOTHING = parse_policy("version: 1\nname: nothing\n")
# The index's copy of each chunk's ACL, checked against the groups the app resolved at login.
COPIED = parse_policy(
    "version: 1\nname: copied\naccess: {attributes: [viewers], match: {viewers: any}}\n"
)
FRAMEWORKS = tuple(STORES)
CASES = 60
ALL = len(ORG.chunks())  # a fetch_k that reaches every chunk of the sample index


def pushed_keys(framework: str, store: Any, guard: Guard, principal: str) -> set[str]:
    """The metadata keys the framework's adapter puts into the store's filter for a request."""
    constraints = guard.prefilter(QUERIES[0], AccessContext(principal))
    if framework == "langchain":
        pushdown = plan_pushdown(store, constraints)
        return set() if pushdown is None else filter_keys(pushdown.filter)
    fetching, _ = sources(store.as_retriever(similarity_top_k=4), constraints or {}, None)
    filters = fetching._filters
    return set() if filters is None else {f.key for f in filters.filters}


def filter_keys(where: object) -> set[str]:
    """The metadata keys a Chroma ``where`` filter tests (its operators start with ``$``)."""
    if isinstance(where, list):
        return set().union(*(filter_keys(part) for part in where))
    if not isinstance(where, dict):
        return set()
    own = {key for key in where if not key.startswith("$")}
    return own.union(*(filter_keys(value) for value in where.values()))


@pytest.mark.parametrize("name", ENGINES)
def test_no_case_leaks_or_comes_back_short_in_either_framework_with_or_without_pushdown(
    name: str, tmp_path: Path
) -> None:
    """60 (query, principal) cases per framework and store, teams nested two levels, access
    given as the principal only: leak 0.000, authorised recall 1.000, never short; over the
    pushdown store the scope is the store's filter, over the other the guard withheld chunks."""
    with engine(name, ORG, tmp_path, resource_key=RESOURCE_KEY) as built:
        guard = Guard(NOTHING, access_source=built.source)
        for framework, stores in STORES.items():
            for store, pushes in stores.items():
                fetch_k = None if pushes else ALL
                measured = evaluate(framework, store, guard, ORG, CASES, fetch_k=fetch_k)
                where = f"{name}/{framework}/{store}"
                assert measured.leaks == 0, where
                assert measured.exposed > CASES, where  # there was something to withhold
                assert measured.authorised_recall == 1.0, where
                assert measured.short == 0, where
        for framework, stores in STORES.items():
            build = langchain_store if framework == "langchain" else llama_index
            chunks = indexed_chunks(ORG)
            for store, pushes in stores.items():
                keys = pushed_keys(framework, build(store, chunks), guard, "eli")
                assert (RESOURCE_KEY in keys) == pushes, f"{framework}/{store}"


class FailingScope:
    """A real engine whose scope call fails, as a networked authorizer's listing can (an
    embedded engine cannot be made to fail on demand); its bulk check is the engine's own."""

    def __init__(self, source: AccessSource) -> None:
        self.inner = source
        self.name = source.name
        self.resource_key = source.resource_key

    def check(self, principal: str, resources: Sequence[str]) -> Answers:
        return self.inner.check(principal, resources)

    def scope(self, principal: str) -> Scope:
        raise ConnectionError("the listing timed out")


@pytest.mark.parametrize("framework", FRAMEWORKS)
@pytest.mark.parametrize("failure", ["truncated", "failed"])
@pytest.mark.parametrize("name", ENGINES)
def test_a_truncated_or_failed_scope_pushes_no_ids_and_over_fetch_keeps_recall(
    name: str, failure: str, framework: str, tmp_path: Path
) -> None:
    """A scope cut at 5 resources, or one whose listing fails: the pushdown store gets no id
    filter at all (not a short list), and over-fetch plus the bulk check return exactly each
    principal's top k for every query."""
    chunks = indexed_chunks(ORG)
    truth = Truth(ORG, chunks)
    build = langchain_store if framework == "langchain" else llama_index
    store = build("chroma", chunks)
    options: dict[str, Any] = {"resource_key": RESOURCE_KEY}
    if failure == "truncated":
        options["max_scope"] = 5
    with engine(name, ORG, tmp_path, **options) as built:
        source = built.source if failure == "truncated" else FailingScope(built.source)
        guard = Guard(NOTHING, access_source=source)
        ask = retriever(framework, store, guard, fetch_k=ALL)
        many = [u for u in ORG.users if sum(ORG.can_view(u, d) for d in ORG.documents) > 5]
        assert many
        for user in many:
            if failure == "truncated":
                assert not source.scope(user).is_bounded
            assert pushed_keys(framework, store, guard, user) == set()
            for query in QUERIES:
                assert ask(query, user) == truth.expected(query, user, 4), (user, query)


@pytest.mark.parametrize("framework", FRAMEWORKS)
@pytest.mark.parametrize("name", ENGINES)
def test_a_permission_revoked_after_indexing_is_denied_through_the_retriever(
    name: str, framework: str, tmp_path: Path
) -> None:
    """Ana leaves backend after indexing: the chunks' copied ACL and her login groups still
    grant the backend documents (a guard on the copy alone returns them), the retriever with
    the live check returns none of them, only what she may still view."""
    chunks = indexed_chunks(ORG)
    store_name = "sklearn" if framework == "langchain" else "faiss"
    build = langchain_store if framework == "langchain" else llama_index
    store = build(store_name, chunks)
    stale = AccessContext("ana", viewers={"ana", "backend", "engineering", "staff"})
    query = "What does the backend folder hold?"
    with engine(name, ORG, tmp_path, resource_key=RESOURCE_KEY) as built:
        live = retriever(framework, store, Guard(COPIED, access_source=built.source), fetch_k=ALL)
        copied_only = retriever(framework, store, Guard(COPIED), fetch_k=ALL)
        before = live(query, stale)
        assert any(key.startswith("backend-") for key in before)
        built.revoke("ana")
        after = live(query, stale)
        assert {key.split("#")[0] for key in after} == {"payroll-1"}
        assert copied_only(query, stale) == before


@pytest.mark.parametrize("name", ENGINES)
def test_a_source_keyed_on_doc_id_is_not_pushed_into_a_llama_index_store(
    name: str, tmp_path: Path
) -> None:
    """LlamaIndex overwrites ``doc_id`` in what its stores filter on with the node's source
    document id: a scope on ``doc_id`` would filter on that and fetch nothing. It is left out
    of the store's filter, and over-fetch plus the bulk check return each principal's top k."""
    chunks = ORG.chunks()
    index = llama_index("chroma", chunks)
    listed = index.vector_store._collection.get(where={"doc_id": {"$in": ["backend-0"]}})
    assert listed["ids"] == []  # the store's doc_id is not the chunk's
    truth = Truth(ORG, chunks)
    with engine(name, ORG, tmp_path) as built:
        guard = Guard(NOTHING, access_source=built.source)
        assert pushed_keys("llama_index", index, guard, "ana") == set()
        ask = retriever("llama_index", index, guard, fetch_k=ALL)
        for user in ("ana", "eli", "ivy"):
            assert ask(QUERIES[1], user) == truth.expected(QUERIES[1], user, 4), user
