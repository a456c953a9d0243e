"""GuardedRetriever: a LlamaIndex retriever that checks every node another retriever returns
before it can reach the LLM, over-fetching and pushing access filters into the store."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from llama_index.core.base.base_retriever import BaseRetriever
from llama_index.core.schema import QueryBundle

from rag_guard_integrations.adapters.access import require_pinnable
from rag_guard_integrations.adapters.drive import arun, run
from rag_guard_integrations.core.access import AccessContext
from rag_guard_integrations.core.arguments import positive_int
from rag_guard_integrations.core.errors import InputError
from rag_guard_integrations.engine.guard import as_guard
from rag_guard_integrations.guards.domain_collection import StoreLesson
from rag_guard_integrations.llama_index.access import access_for
from rag_guard_integrations.llama_index.check import checked_nodes
from rag_guard_integrations.llama_index.collection import index_metadata
from rag_guard_integrations.llama_index.fetch import fetched, sources
from rag_guard_integrations.llama_index.fields import require_retriever

if TYPE_CHECKING:
    from collections.abc import Sequence

    from llama_index.core.callbacks import CallbackManager
    from llama_index.core.schema import NodeWithScore, QueryType

    from rag_guard_integrations.adapters.drive import Flow
    from rag_guard_integrations.engine.guard import Guard
    from rag_guard_integrations.engine.plan import RequestPlan
    from rag_guard_integrations.llama_index.check import GuardedNodes


class GuardedRetriever(BaseRetriever):
    """Retriever that returns only the nodes a ``Guard`` allows for this caller.

    At most ``k`` nodes come back: by default the inner retriever's ``similarity_top_k``. Over a
    ``VectorIndexRetriever`` each request fetches ``fetch_k`` candidates (default ``4 * k``)
    through a fresh retriever over the same index, with the caller's allowlists pushed into its
    ``MetadataFilters`` in the operators the index's store honours (``IN``; ``ANY`` for a
    ``match: any`` attribute where the store has it; none for FAISS or an unknown store; see
    ``rag_guard_integrations.llama_index.stores``), ANDed with the inner retriever's filters,
    so the shared retriever is never changed. The guard re-checks whatever comes back and at
    most ``k`` allowed nodes are returned: the store's own ``NodeWithScore`` objects, in score
    order. Any other retriever is called as it is and its results are checked. A caller's OR or
    nested filters are kept: nested under the AND where the store supports it, else (the store
    refuses, like ``SimpleVectorStore``) the fetch runs with the caller's filters only.

    The inner retriever, and every retriever it calls (``QueryFusionRetriever``,
    ``RouterRetriever``, ``RecursiveRetriever``, ``AutoMergingRetriever``, ...), runs without
    instrumentation events, spans, callbacks and log records: a ``RetrievalEndEvent``, span
    result, ``RETRIEVE`` payload or DEBUG candidate list would carry every node found, denied
    ones included. This is silenced for this request's thread or task only (other requests keep
    their traces); this retriever's own events carry the allowed nodes only. An inner retriever
    that runs a query engine (a ``RecursiveRetriever`` with ``query_engine_dict``) would send
    unchecked nodes to an LLM and is refused with ``AdapterConfigError``.

    Access is the innermost ``guard_access(...)`` block's (None, ``{}`` or ``NO_ACCESS``: no
    access), else ``access``; with neither, access-controlled nodes are denied. With
    ``pin_access=True``, ``access`` is a ceiling a block can only narrow. A request that can
    see nothing fetches nothing. The store matches pushed-down strings against single
    metadata values, so nodes whose access metadata holds numbers or lists are not fetched,
    although the guard (comparing strings, element-wise) would allow them: pushdown can cost
    recall there, never safety.

    Setup:
        ```bash
        pip install -U "rag-guard-integrations[llamaindex,embeddings]"
        ```

    Key init args:
        retriever: BaseRetriever
            The retriever whose results are checked (``index.as_retriever()``).
        guard: Guard | str
            The guard to apply, e.g. ``Guard.from_policy("contracts")``, or policy references
            (``"contracts"``).
        access: AccessContext | Mapping | None
            Default access for requests that bring none.
        pin_access: bool
            Make ``access`` the most any request may see: a ``guard_access`` block only
            narrows it. Default False (a block replaces it).
        k: int | None
            At most this many nodes come back; default the inner retriever's
            ``similarity_top_k``. Give it over a composite retriever (which gets no over-fetch)
            whose sub-retrievers and own ``similarity_top_k`` fetch more, so that ``k`` allowed
            nodes can remain.
        fetch_k: int | None
            Candidates to fetch from a ``VectorIndexRetriever``; default ``4 * k``, never less
            than ``k``.

    Instantiate:
        ```python
        from rag_guard_integrations import Guard
        from rag_guard_integrations.llama_index import GuardedRetriever

        retriever = GuardedRetriever(
            retriever=index.as_retriever(similarity_top_k=3),
            guard=Guard.from_policy("contracts"),
            access={"contract_type": ["MSA"]},
        )
        ```

    Usage:
        ```python
        nodes = retriever.retrieve("What is the termination notice period?")
        with guard_access({"contract_type": ["SOW"]}):
            nodes = await retriever.aretrieve("What is the termination notice period?")
        ```
    """

    def __init__(
        self,
        retriever: BaseRetriever,
        guard: Guard | Any,
        access: AccessContext | Any = None,
        *,
        pin_access: bool = False,
        k: int | None = None,
        fetch_k: int | None = None,
        callback_manager: CallbackManager | None = None,
        verbose: bool = False,
    ) -> None:
        retriever = require_retriever(retriever, "GuardedRetriever")
        self.guard = as_guard(guard, "GuardedRetriever")
        if k is not None:
            positive_int("k", k, fix="or None for the inner retriever's similarity_top_k")
        if fetch_k is not None:
            positive_int("fetch_k", fetch_k, fix="or None for 4 x k")
        self.retriever = retriever
        self._k = k
        self.access = AccessContext.coerce(access)
        require_pinnable("GuardedRetriever", self.access, pin_access, self.guard)
        self.pin_access = bool(pin_access)
        self.fetch_k = fetch_k
        # The collection's identifiers, for the domain gate: the index's own at first use.
        self._lesson = StoreLesson(lambda: index_metadata(self.retriever))
        super().__init__(
            callback_manager=callback_manager or retriever.callback_manager, verbose=verbose
        )

    @property
    def k(self) -> int | None:
        """At most this many nodes come back: ``k`` as given, else the inner retriever's
        ``similarity_top_k``."""
        k = self._k if self._k is not None else getattr(self.retriever, "similarity_top_k", None)
        return k if isinstance(k, int) and not isinstance(k, bool) else None

    def request_access(self) -> AccessContext | None:
        """The access this request is checked with (the ``guard_access`` block's, else
        ``access``; with ``pin_access``, ``access`` narrowed by the block)."""
        return access_for(self.access, pinned=self.pin_access)

    def guarded_retrieve(self, query: QueryType) -> GuardedNodes:
        """Retrieve and check; the kept nodes together with the ``GuardResult`` and any refusal."""
        return run(self.retrieval(_bundle(query)))

    async def aguarded_retrieve(self, query: QueryType) -> GuardedNodes:
        """Async twin of :meth:`guarded_retrieve` (the inner ``aretrieve``, ``Guard.acheck``)."""
        return await arun(self.retrieval(_bundle(query)))

    def check(
        self, nodes: list[NodeWithScore], query: QueryType, source: str = "GuardedRetriever"
    ) -> GuardedNodes:
        """Judge ``nodes`` (for example after a postprocessor changed them) for this request."""
        return run(self.checking(nodes, _bundle(query), source))

    async def acheck(
        self, nodes: list[NodeWithScore], query: QueryType, source: str = "GuardedRetriever"
    ) -> GuardedNodes:
        """Async twin of :meth:`check`."""
        return await arun(self.checking(nodes, _bundle(query), source))

    def retrieval(self, bundle: QueryBundle) -> Flow[GuardedNodes]:
        """The flow of one guarded retrieval: planned once, fetched (pushed down and out of
        sight) only when a node could pass, checked, at most ``k`` kept."""

        def fetch(planned: RequestPlan) -> Flow[Sequence[NodeWithScore]]:
            assert planned.constraints is not None  # the kit fetches only when a node can pass
            primary, fallback = sources(self.retriever, planned.constraints, self.fetch_k, self.k)
            nodes = yield from fetched(primary, fallback, bundle)
            self._lesson.after(self.guard, (n.node.metadata for n in nodes))
            return nodes

        self._lesson.before(self.guard)
        return checked_nodes(
            self.guard,
            bundle.query_str,
            self.request_access(),
            "GuardedRetriever",
            fetch=fetch,
            limit=self.k,
        )

    def checking(
        self,
        nodes: Sequence[NodeWithScore],
        bundle: QueryBundle,
        source: str,
        planned: RequestPlan | None = None,
    ) -> Flow[GuardedNodes]:
        """The flow of one check of ``nodes`` for this request (under ``planned``, the plan the
        request made already, when given)."""
        access = self.request_access() if planned is None else planned.access
        return checked_nodes(
            self.guard, bundle.query_str, access, source, nodes=nodes, planned=planned
        )

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        return self.guarded_retrieve(query_bundle).nodes

    async def _aretrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        return (await self.aguarded_retrieve(query_bundle)).nodes


def _bundle(query: QueryType) -> QueryBundle:
    if isinstance(query, QueryBundle):
        return query
    if isinstance(query, str):
        return QueryBundle(query)
    raise InputError(f"query must be a str or a QueryBundle, got {type(query).__name__}")
