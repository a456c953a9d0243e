"""Measure one store x framework x match-mode cell of the pushdown matrix through the real
guarded retrievers, with the store's filter honoured or ignored."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from langchain_core.vectorstores import VectorStoreRetriever
from langchain_support import Recorder
from llama_index.core.base.base_retriever import BaseRetriever as LlamaRetriever
from pushdown_support import FLAT_ONLY, Cell, K, guard_for, requests

from rag_guard_integrations.engine.guard import fetch_size
from rag_guard_integrations.langchain import GuardedRetriever
from rag_guard_integrations.langchain.pushdown import plan_pushdown
from rag_guard_integrations.llama_index import GuardedRetriever as LlamaGuardedRetriever
from rag_guard_integrations.llama_index.pushdown import constraint_filters

if TYPE_CHECKING:
    from langchain_core.callbacks import CallbackManagerForRetrieverRun
    from langchain_core.documents import Document
    from llama_index.core.schema import NodeWithScore, QueryBundle
    from pushdown_stores import Stores

# Every search argument through which a LangChain store is told to filter.
FILTER_ARGUMENTS = frozenset({"filter", "expr", "prefilter"})


class IgnoringFilter(VectorStoreRetriever):
    """A real store's retriever that drops every filter it is given, as a store that ignored
    the pushed-down filter would."""

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun, **kwargs: Any
    ) -> list[Document]:
        search = {**self.search_kwargs, **kwargs}
        kept = {k: v for k, v in search.items() if k not in FILTER_ARGUMENTS}
        return self.vectorstore.similarity_search(query, **kept)


class Unfiltered(LlamaRetriever):
    """The index's nearest ``fetch_k`` nodes with no filter, as a store that ignored it."""

    def __init__(self, index: Any) -> None:
        self.index = index
        self.similarity_top_k = K
        super().__init__()

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        inner = self.index.as_retriever(similarity_top_k=fetch_size(K))
        return list(inner.retrieve(query_bundle))


def langchain_cell(stores: Stores, name: str, mode: str, *, ignore_filter: bool = False) -> Cell:
    """Run every request of ``mode`` through a LangChain GuardedRetriever over store ``name``."""
    store = stores.get("langchain", name)
    guard = guard_for(mode)
    kind = IgnoringFilter if ignore_filter else VectorStoreRetriever
    # The store's own answer is what is measured here, so the test opts in to seeing it.
    retriever = GuardedRetriever(
        retriever=kind(vectorstore=store, search_kwargs={"k": K}),
        guard=guard,
        expose_unchecked_documents_to_callbacks=True,
    )
    cell = Cell("langchain", name, mode)
    for query, access in requests(mode):
        plan = plan_pushdown(store, guard.prefilter(query, access))
        cell.pushdown = cell.pushdown or (plan is not None and not ignore_filter)
        recorder = Recorder()
        out = retriever.invoke(query, config={"callbacks": [recorder]}, access=access)
        fetched = [d for docs in recorder.inner_fetches() for d in docs]
        cell.add(query, access, _refs(out), _refs(fetched))
    return cell


def llama_index_cell(stores: Stores, name: str, mode: str, *, ignore_filter: bool = False) -> Cell:
    """Run every request of ``mode`` through a LlamaIndex GuardedRetriever over index ``name``."""
    cell = Cell("llama_index", name, mode)
    if mode == "any" and ("llama_index", name) in FLAT_ONLY:
        cell.note = "store refuses list metadata"
        return cell
    index = stores.get("llama_index", name)
    guard = guard_for(mode)
    for query, access in requests(mode):
        filters = constraint_filters(guard.prefilter(query, access), index.vector_store)
        cell.pushdown = cell.pushdown or (filters is not None and not ignore_filter)
        inner = Unfiltered(index) if ignore_filter else index.as_retriever(similarity_top_k=K)
        checked = LlamaGuardedRetriever(inner, guard, access).guarded_retrieve(query)
        fetched = [d.chunk.metadata["ref"] for d in checked.result.decisions]
        cell.add(query, access, _node_refs(checked.nodes), fetched)
    return cell


def _refs(documents: list[Document]) -> list[str]:
    return [str(d.metadata["ref"]) for d in documents]


def _node_refs(nodes: list[NodeWithScore]) -> list[str]:
    return [str(n.node.metadata["ref"]) for n in nodes]
