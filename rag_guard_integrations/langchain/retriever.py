"""GuardedRetriever: a LangChain retriever that checks every Document another retriever returns
before it can reach the LLM."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables import ensure_config
from langchain_core.vectorstores import VectorStoreRetriever
from pydantic import Field
from typing_extensions import override

# Runtime imports: pydantic resolves these field annotations when the class is built.
from rag_guard_integrations.core.access import AccessContext, AccessField
from rag_guard_integrations.engine.guard import Guard, fetch_size
from rag_guard_integrations.langchain.audit import aemit, conclude, emit, reject_if_asked
from rag_guard_integrations.langchain.pushdown import plan_pushdown

if TYPE_CHECKING:
    from langchain_core.callbacks import (
        AsyncCallbackManagerForRetrieverRun,
        CallbackManagerForRetrieverRun,
    )
    from langchain_core.documents import Document
    from langchain_core.runnables import RunnableConfig

DEFAULT_K = 4


@dataclass(frozen=True, slots=True)
class _Request:
    """One call's settings, built fresh per call so concurrent requests share nothing."""

    access: AccessContext | None
    k: int
    inner_kwargs: dict[str, Any]
    skip_fetch: bool
    audit: dict[str, Any]


class GuardedRetriever(BaseRetriever):
    """Retriever that lets through only the Documents a ``Guard`` allows for this caller.

    The inner retriever is asked for ``fetch_k`` candidates (where it takes a ``k``), the guard
    checks them, and at most ``k`` allowed ones come back: the inner retriever's own Document
    objects, unmodified, in retrieval order. Over a store with pushdown (in-memory, FAISS,
    Chroma, Qdrant, PGVector, Milvus, LanceDB) the caller's access allowlists are also pushed
    into the store's filter.

    Setup:
        ```bash
        pip install -U "rag-guard-integrations[langchain,embeddings]"
        ```

    Key init args:
        retriever: BaseRetriever
            The retriever whose results are checked.
        guard: Guard
            The guard to apply, e.g. ``Guard.from_policy("contracts")``.
        access: AccessContext | Mapping | None
            Default access for calls that bring none; None denies access-controlled chunks.
        fetch_k: int | None
            Candidates to fetch from a ``VectorStoreRetriever`` (never fewer than ``k``);
            default ``4 * k``. Other retrievers are called without a ``k``.
        raise_on_reject: bool
            Raise ``QueryRejected`` when the domain guard refuses the query (default: return
            no documents).

    ``k`` is not a field: it is the invoke-time ``k``, else the inner retriever's
    ``search_kwargs["k"]``, else 4. Access is, in order: the ``access=`` invoke argument,
    ``config["configurable"]["access"]``, then the ``access`` field. A rejected query (domain
    guard) returns no documents; the event carries the refusal. Errors of the inner retriever
    or the guard propagate: nothing is returned unchecked.

    Instantiate:
        ```python
        from langchain_core.documents import Document
        from langchain_core.vectorstores import InMemoryVectorStore
        from rag_guard_integrations import Guard
        from rag_guard_integrations.data import load_corpus
        from rag_guard_integrations.langchain import GuardedRetriever, MiniLMEmbeddings

        docs = [Document(c.text, metadata=dict(c.metadata), id=c.id)
                for c in load_corpus("contracts")]
        store = InMemoryVectorStore.from_documents(docs, MiniLMEmbeddings())
        retriever = GuardedRetriever(
            retriever=store.as_retriever(search_kwargs={"k": 2}),
            guard=Guard.from_policy("contracts"),
        )
        ```

    Usage:
        ```python
        query = "What is the termination notice period?"
        retriever.invoke(query, access={"contract_type": ["MSA"]})
        retriever.invoke(query, config={"configurable": {"access": {"contract_type": ["SOW"]}}})
        await retriever.ainvoke(query, access={"contract_type": ["MSA"]}, k=1)
        ```

        Every call emits a ``rag_guard_result`` custom event (the guard's summary plus
        ``fetched``, ``dropped`` and ``returned`` counts, no chunk text) to callback handlers
        and ``astream_events(version="v2")``, and logs it on the ``rag_guard_integrations``
        logger at INFO.

    Use within a chain:
        ```python
        from rag_guard_integrations.langchain.chain import build_rag_chain

        chain = build_rag_chain(retriever, llm)
        chain.invoke(query, config={"configurable": {"access": {"contract_type": ["MSA"]}}})
        ```
    """

    retriever: BaseRetriever
    guard: Guard
    access: AccessField = None
    fetch_k: int | None = Field(default=None, ge=1)
    raise_on_reject: bool = False

    @override
    def invoke(
        self, input: str, config: RunnableConfig | None = None, **kwargs: Any
    ) -> list[Document]:
        config = ensure_config(config)
        return super().invoke(input, config, **_with_configured_access(config, kwargs))

    @override
    async def ainvoke(
        self, input: str, config: RunnableConfig | None = None, **kwargs: Any
    ) -> list[Document]:
        config = ensure_config(config)
        return await super().ainvoke(input, config, **_with_configured_access(config, kwargs))

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun, **kwargs: Any
    ) -> list[Document]:
        request = self._request(query, kwargs)
        child = run_manager.get_child()
        documents: list[Document] = []
        if not request.skip_fetch:
            documents = self.retriever.invoke(
                query, config={"callbacks": child}, **request.inner_kwargs
            )
        result = self.guard.check(query, documents, request.access)
        kept, record = conclude(result, documents, request.access, limit=request.k, **request.audit)
        emit(record, child)
        reject_if_asked(result, self.raise_on_reject)
        return kept

    async def _aget_relevant_documents(
        self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun, **kwargs: Any
    ) -> list[Document]:
        request = self._request(query, kwargs)
        child = run_manager.get_child()
        documents: list[Document] = []
        if not request.skip_fetch:
            documents = await self.retriever.ainvoke(
                query, config={"callbacks": child}, **request.inner_kwargs
            )
        result = await self.guard.acheck(query, documents, request.access)
        kept, record = conclude(result, documents, request.access, limit=request.k, **request.audit)
        await aemit(record, child)
        reject_if_asked(result, self.raise_on_reject)
        return kept

    def _request(self, query: str, kwargs: dict[str, Any]) -> _Request:
        options = dict(kwargs)
        given = options.pop("access", None)
        access = self.access if given is None else AccessContext.coerce(given)
        asked = options.pop("k", None)
        k = _positive("k", self._inner_k() if asked is None else asked)
        audit: dict[str, Any] = {"k": k, "fetch_k": None, "pushdown": None}
        inner = self.retriever
        if not isinstance(inner, VectorStoreRetriever):
            return _Request(access, k, options, False, audit)
        # Never fewer candidates than k, or an honest k could not be met.
        options["k"] = audit["fetch_k"] = fetch_size(k, self.fetch_k)
        search = {**inner.search_kwargs, **options}
        constraints = self.guard.prefilter(query, access)
        plan = plan_pushdown(inner.vectorstore, constraints, search_kwargs=search)
        if plan is None:
            return _Request(access, k, options, False, audit)
        audit["pushdown"] = plan.store
        if not plan.admits_nothing:
            options.update(plan.search_kwargs)
        return _Request(access, k, options, plan.admits_nothing, audit)

    def _inner_k(self) -> int:
        if isinstance(self.retriever, VectorStoreRetriever):
            k: int = self.retriever.search_kwargs.get("k", DEFAULT_K)
            return k
        return DEFAULT_K


def _with_configured_access(config: RunnableConfig, kwargs: dict[str, Any]) -> dict[str, Any]:
    """Move ``configurable["access"]`` into the call's kwargs unless ``access=`` was given.

    ``BaseRetriever`` does not hand ``config`` to ``_get_relevant_documents``, so the access a
    chain was configured with travels as an argument, never as shared state.
    """
    if kwargs.get("access") is not None:
        return kwargs
    configured = (config.get("configurable") or {}).get("access")
    return kwargs if configured is None else {**kwargs, "access": configured}


def _positive(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a positive int, got {value!r}; pass e.g. {name}=4")
    return value
