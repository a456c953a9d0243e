"""GuardedRetriever: a LangChain retriever that checks every Document another retriever returns
before it can reach the LLM, and keeps what it has not checked out of every callback and trace."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

from langchain_core.prompts import BasePromptTemplate, aformat_document, format_document
from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables import ensure_config
from langchain_core.vectorstores import VectorStoreRetriever
from pydantic import ConfigDict, Field, PrivateAttr
from typing_extensions import override

from rag_guard_integrations.adapters.access import request_access
from rag_guard_integrations.adapters.drive import Call, arun, once, run
from rag_guard_integrations.adapters.fetch import shielded
from rag_guard_integrations.adapters.plan import fetches, plan
from rag_guard_integrations.core.access import NOT_GIVEN, AccessContext
from rag_guard_integrations.core.arguments import positive_int

# Runtime imports: pydantic resolves these field annotations when the class is built.
from rag_guard_integrations.engine.guard import Guard, fetch_size
from rag_guard_integrations.guards.domain_collection import StoreLesson
from rag_guard_integrations.langchain.check import (
    CheckCall,
    checking,
    reject_if_asked,
    with_text,
)
from rag_guard_integrations.langchain.collection import store_metadata
from rag_guard_integrations.langchain.fields import (
    ACCESS_SPEC,
    AccessInput,
    KnownFieldsOnly,
    given_access,
    refuse_unknown,
    search_arguments,
)
from rag_guard_integrations.langchain.pushdown import plan_pushdown
from rag_guard_integrations.langchain.quiet import fetching, warn_if_environment_traces
from rag_guard_integrations.langchain.result import with_result

if TYPE_CHECKING:
    from langchain_core.callbacks import (
        AsyncCallbackManagerForRetrieverRun,
        CallbackManagerForRetrieverRun,
    )
    from langchain_core.documents import Document
    from langchain_core.runnables import Runnable, RunnableConfig
    from langchain_core.runnables.utils import ConfigurableFieldSpec

    from rag_guard_integrations.adapters.drive import Flow
    from rag_guard_integrations.engine.plan import RequestPlan

DEFAULT_K = 4


@dataclass(frozen=True, slots=True)
class _Request:
    """One call's settings, built fresh per call so concurrent requests share nothing."""

    access: AccessContext | None
    k: int
    inner: BaseRetriever
    inner_kwargs: dict[str, Any]
    skip_fetch: bool
    audit: dict[str, Any]
    plan: RequestPlan


class GuardedRetriever(KnownFieldsOnly, BaseRetriever):
    """Retriever that lets through only the Documents a ``Guard`` allows for this caller.

    The inner retriever is asked for ``fetch_k`` candidates, the guard checks them, and at most
    ``k`` allowed ones come back: the inner retriever's own Document objects, unmodified, in
    retrieval order (with a ``document_prompt``, copies holding its rendering). Over a store
    with pushdown (in-memory, FAISS, Chroma, Qdrant, PGVector, Milvus, LanceDB) the caller's
    access allowlists are also pushed into the store's filter.

    The inner retriever runs out of sight: no callback handler, ``astream_events`` consumer,
    tracer or LangSmith run sees the candidates it returns, since those are what the guard has
    not checked yet. The check itself is the ``rag_guard.check`` child run, whose outputs are
    the counts and ``result.audit()`` (chunk ids, stage, rule, reason; never chunk text or a
    metadata value).

    Setup:
        ```bash
        pip install -U "rag-guard-integrations[langchain,embeddings]"
        ```

    Key init args:
        retriever: BaseRetriever
            The retriever whose results are checked (for a vector store,
            ``store.as_retriever()``).
        guard: Guard | str
            The guard to apply, e.g. ``Guard.from_policy("contracts")``, or policy references
            (``"contracts"``, a path, a list).
        access: AccessContext | Mapping | None
            Default access for calls that bring none; None denies access-controlled chunks.
        k: int | None
            Documents to return; default the inner retriever's own ``k``
            (``search_kwargs["k"]``, or a ``k`` field), else 4. An invoke-time ``k`` wins.
        fetch_k: int | None
            Candidates to ask the inner retriever for (never fewer than ``k``); default ``4 * k``.
            A ``VectorStoreRetriever`` gets it as ``k``, a retriever with a ``k`` field as a copy
            with that ``k``; any other retriever returns what it returns.
        document_prompt: BasePromptTemplate | None
            Judge each candidate as this prompt renders it (``{page_content} [{source}]``): the
            guard reads the rendering, and what comes back holds it as ``page_content``, so
            metadata the prompt shows is checked like text. Default: the text as it is.
            A redact rule masks that rendering; a rendered metadata value the mask changed is
            ``"[REDACTED]"`` in the returned copy's metadata.
        pin_access: bool
            The operator's ceiling: ``access`` is also the most any call may see, and a
            per-call access only narrows it (per attribute, the values both allow). Default
            False: a per-call access replaces ``access``.
        raise_on_reject: bool
            Raise ``QueryRejected`` when the domain guard refuses the query (default: return
            no documents).
        expose_unchecked_documents_to_callbacks: bool
            Debugging only, for a trusted environment: run the inner retriever as a traced child
            run, so every handler and trace receives the unchecked candidates (what the guard
            withheld included). Default False.

    Access per call is the ``access=`` invoke argument, else ``config["configurable"]
    ["access"]`` (declared in ``config_specs``; also one set by ``with_config``); a call that
    brings neither gets the ``access`` field. An explicit None in either place is no access,
    never the default. Invoke takes ``access``, ``k`` and, over a ``VectorStoreRetriever``,
    the store's search arguments ``filter``, ``score_threshold`` and ``lambda_mult`` (over
    another retriever, the keyword arguments its ``_get_relevant_documents`` names, or
    ``filter`` where it takes ``**kwargs``); anything else is an ``ArgumentError``, as are
    unknown constructor arguments. A rejected query (domain guard) returns no documents; the
    run outputs carry the refusal. Errors of the inner retriever or the guard propagate:
    nothing is returned unchecked.

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
            retriever=store.as_retriever(), guard=Guard.from_policy("contracts"), k=2
        )
        ```

    Usage:
        ```python
        query = "What is the termination notice period?"
        retriever.invoke(query, access={"contract_type": ["MSA"]})
        retriever.invoke(query, config={"configurable": {"access": {"contract_type": ["SOW"]}}})
        await retriever.ainvoke(query, access={"contract_type": ["MSA"]}, k=1)

        tenant = GuardedRetriever(
            retriever=store.as_retriever(), guard="contracts",
            access={"contract_type": ["MSA", "SOW"]}, pin_access=True,
        )
        tenant.invoke(query, access={"contract_type": ["SOW", "NDA"]})  # SOW only
        ```

        Every call also emits a ``rag_guard_result`` custom event (the guard's summary plus
        ``fetched``, ``dropped`` and ``returned`` counts, no chunk text) and logs it on the
        ``rag_guard_integrations`` logger at INFO.

    Use within a chain:
        ```python
        from rag_guard_integrations.langchain import build_rag_chain

        chain = build_rag_chain(retriever, llm)
        chain.invoke(query, config={"configurable": {"access": {"contract_type": ["MSA"]}}})
        ```
    """

    model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid")

    retriever: BaseRetriever
    guard: Guard
    access: AccessInput = None
    k: int | None = Field(default=None, ge=1)
    fetch_k: int | None = Field(default=None, ge=1)
    document_prompt: BasePromptTemplate[str] | None = None
    pin_access: bool = False
    raise_on_reject: bool = False
    expose_unchecked_documents_to_callbacks: bool = False
    _lesson: StoreLesson = PrivateAttr()

    @override
    def model_post_init(self, context: Any, /) -> None:
        # The collection's identifiers, for the domain gate: the store's own at first use.
        self._lesson = StoreLesson(lambda: store_metadata(self.retriever))

    @property
    @override
    def config_specs(self) -> list[ConfigurableFieldSpec]:
        return [*super().config_specs, ACCESS_SPEC]

    def with_result(self) -> Runnable[str, dict[str, Any]]:
        """A runnable returning ``{"documents": [...], "result": CheckedResult}`` per query.

        Use it where a chain needs the decision itself, for example to answer with
        ``out["result"].refusal``. It takes the same config (``configurable["access"]``). The
        CheckedResult holds the decision without any chunk text or metadata value (counts,
        refusal, the audit record), since run outputs reach every handler, event stream and
        trace; for the full GuardResult, wrap the call in
        :func:`~rag_guard_integrations.langchain.guard_results`.

        Example:
            >>> out = retriever.with_result().invoke(query, config=config)  # doctest: +SKIP
            >>> out["result"].refusal  # doctest: +SKIP
            'No authorized matching clause found.'
        """
        return with_result(self)

    @override
    def invoke(
        self, input: str, config: RunnableConfig | None = None, **kwargs: Any
    ) -> list[Document]:
        config = ensure_config(config)
        return super().invoke(input, config, **self._call_arguments(config, kwargs))

    @override
    async def ainvoke(
        self, input: str, config: RunnableConfig | None = None, **kwargs: Any
    ) -> list[Document]:
        config = ensure_config(config)
        return await super().ainvoke(input, config, **self._call_arguments(config, kwargs))

    def _call_arguments(self, config: RunnableConfig, kwargs: dict[str, Any]) -> dict[str, Any]:
        """``kwargs`` checked, with the access the call brought under ``access``.

        ``BaseRetriever`` does not hand ``config`` to ``_get_relevant_documents``, so the access
        a chain was configured with travels as an argument, never as shared state.
        """
        known = {"access", "k", "run_id", *search_arguments(self.retriever)}
        refuse_unknown(f"{type(self).__name__}.invoke", kwargs, known)
        given = given_access(config, kwargs)
        return kwargs if given is NOT_GIVEN else {**kwargs, "access": given}

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun, **kwargs: Any
    ) -> list[Document]:
        return run(self._retrieval(query, kwargs, run_manager))

    async def _aget_relevant_documents(
        self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun, **kwargs: Any
    ) -> list[Document]:
        return await arun(self._retrieval(query, kwargs, run_manager))

    def _retrieval(
        self,
        query: str,
        kwargs: dict[str, Any],
        run_manager: CallbackManagerForRetrieverRun | AsyncCallbackManagerForRetrieverRun,
    ) -> Flow[list[Document]]:
        """One guarded retrieval, written once for both drivers: planned, fetched out of sight
        (or, when asked, as a child run), rendered by the document prompt, checked."""
        request = self._request(query, kwargs)
        inner, options = request.inner, request.inner_kwargs
        documents: list[Document] = []
        if not request.skip_fetch and self.expose_unchecked_documents_to_callbacks:
            config: RunnableConfig = {"callbacks": run_manager.get_child()}
            documents = yield Call(
                partial(inner.invoke, query, config, **options),
                partial(inner.ainvoke, query, config, **options),
            )
        elif not request.skip_fetch:
            warn_if_environment_traces(type(self).__name__)
            step = Call(
                partial(inner.invoke, query, **options), partial(inner.ainvoke, query, **options)
            )
            documents = yield from shielded(once(step), fetching(inner), "GuardedRetriever")
        if (prompt := self.document_prompt) is not None:
            rendered = []
            for document in documents:
                text = yield Call(
                    partial(format_document, document, prompt),
                    partial(aformat_document, document, prompt),
                )
                rendered.append(with_text(document, text))
            documents = rendered
        call = self._call(query, documents, request)
        result, kept = yield from checking(call, run_manager.get_child(), run_manager.run_id)
        reject_if_asked(result, self.raise_on_reject)
        return kept

    def _call(self, query: str, documents: list[Document], request: _Request) -> CheckCall:
        self._lesson.after(self.guard, (d.metadata for d in documents))
        prompt = self.document_prompt
        rendered = frozenset(prompt.input_variables) - {"page_content"} if prompt else frozenset()
        return CheckCall(
            self.guard, query, documents, request.access, request.k, request.audit, rendered,
            request.plan,
        )  # fmt: skip

    def _request(self, query: str, kwargs: dict[str, Any]) -> _Request:
        self._lesson.before(self.guard)
        options = dict(kwargs)
        given = options.pop("access", NOT_GIVEN)
        access = request_access(given, default=self.access, pinned=self.pin_access)
        planned = plan(self.guard, query, access)
        asked = options.pop("k", None)
        k = positive_int("k", self._default_k() if asked is None else asked)
        fetch = fetch_size(k, self.fetch_k)
        audit: dict[str, Any] = {"k": k, "fetch_k": None, "pushdown": None}
        inner = self.retriever
        if not isinstance(inner, VectorStoreRetriever):
            if isinstance(getattr(inner, "k", None), int) and "k" in type(inner).model_fields:
                # A copy per call: the shared retriever's own k is never changed.
                inner = inner.model_copy(update={"k": fetch})
                audit["fetch_k"] = fetch
            return _Request(access, k, inner, options, not fetches(planned), audit, planned)
        # Never fewer candidates than k, or an honest k could not be met.
        options["k"] = audit["fetch_k"] = fetch
        search = {**inner.search_kwargs, **options}
        pushed = plan_pushdown(inner.vectorstore, planned.constraints, search_kwargs=search)
        if pushed is None:
            return _Request(access, k, inner, options, not fetches(planned), audit, planned)
        audit["pushdown"] = pushed.store
        if not pushed.admits_nothing:
            options.update(pushed.search_kwargs)
        return _Request(access, k, inner, options, pushed.admits_nothing, audit, planned)

    def _default_k(self) -> int:
        if self.k is not None:
            return self.k
        inner = self.retriever
        own = (
            inner.search_kwargs.get("k")
            if isinstance(inner, VectorStoreRetriever)
            else getattr(inner, "k", None)
        )
        return own if isinstance(own, int) and not isinstance(own, bool) else DEFAULT_K
