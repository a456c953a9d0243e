"""Guarded query engines: answer with the policy's refusal, without calling the LLM, when the
query is rejected or no node passes; plus helpers that run one query under one access."""

from __future__ import annotations

import inspect
from functools import partial
from typing import TYPE_CHECKING, Any, cast

from llama_index.core.callbacks.schema import CBEventType, EventPayload
from llama_index.core.indices.vector_store import VectorStoreIndex
from llama_index.core.indices.vector_store.retrievers import VectorIndexRetriever
from llama_index.core.instrumentation import get_dispatcher  # type: ignore[attr-defined]
from llama_index.core.query_engine import RetrieverQueryEngine

from rag_guard_integrations.adapters.drive import Call, arun, once, run
from rag_guard_integrations.adapters.fetch import shielded
from rag_guard_integrations.core.errors import AdapterConfigError
from rag_guard_integrations.engine.guard import as_guard
from rag_guard_integrations.llama_index.access import guard_access
from rag_guard_integrations.llama_index.fields import (
    refuse_unknown,
    require_index,
    require_retriever,
)
from rag_guard_integrations.llama_index.postprocessor import GuardPostprocessor
from rag_guard_integrations.llama_index.quiet import class_modules, silenced
from rag_guard_integrations.llama_index.refusal import RefusalSynthesizer
from rag_guard_integrations.llama_index.retriever import GuardedRetriever

if TYPE_CHECKING:
    from collections.abc import Sequence

    from llama_index.core.base.base_query_engine import BaseQueryEngine
    from llama_index.core.base.base_retriever import BaseRetriever
    from llama_index.core.base.response.schema import RESPONSE_TYPE
    from llama_index.core.callbacks import CallbackManager
    from llama_index.core.indices.base import BaseIndex
    from llama_index.core.llms import LLM
    from llama_index.core.postprocessor.types import BaseNodePostprocessor
    from llama_index.core.response_synthesizers import BaseSynthesizer
    from llama_index.core.schema import NodeWithScore, QueryBundle, QueryType

    from rag_guard_integrations.adapters.drive import Flow
    from rag_guard_integrations.core.access import AccessContext
    from rag_guard_integrations.engine.guard import Guard
    from rag_guard_integrations.llama_index.check import GuardedNodes

dispatcher = get_dispatcher(__name__)


class GuardedQueryEngine(RetrieverQueryEngine):
    """A ``RetrieverQueryEngine`` that never sends the LLM a query the guard refused, nor a node
    whose final content the guard has not judged.

    The guard is the ``GuardedRetriever`` passed as ``retriever``; or the first
    ``GuardPostprocessor`` in ``node_postprocessors``, in which case the engine wraps the
    retriever in a ``GuardedRetriever`` with that postprocessor's guard, access and
    ``pin_access`` (pushdown, over-fetch, and the inner retriever's events kept inside the
    guard). The guard runs first, so no other postprocessor (a reranker calling an LLM, say)
    sees a denied node; then each other postprocessor runs, in order, and the guard judges its
    output before the next one or the LLM sees it, because a postprocessor can change what the
    LLM will read (``MetadataReplacementPostProcessor`` swaps a sentence for its window) or add
    nodes (``PrevNextNodePostprocessor`` adds neighbours). Those postprocessors run silenced
    (no instrumentation events or spans, callbacks or ``llama_index`` DEBUG records, in this
    request's context only): what they return is not judged yet, so only what the guard then
    kept is reported. When the domain guard rejects the query, or no node is left, the answer
    is the refusal text (``GuardResult.refusal``, e.g. "No authorized matching clause found.")
    and the response synthesizer does not run (under ``mode: shadow`` it always runs).

    Instantiate:
        ```python
        engine = GuardedQueryEngine.from_args(
            GuardedRetriever(retriever=index.as_retriever(), guard=Guard.from_policy("contracts")),
            llm=llm,
        )
        ```

    Usage:
        ```python
        print(query_with_access(engine, "termination notice period?", {"contract_type": ["MSA"]}))
        ```
    """

    def __init__(
        self,
        retriever: BaseRetriever,
        response_synthesizer: BaseSynthesizer | None = None,
        node_postprocessors: list[BaseNodePostprocessor] | None = None,
        callback_manager: CallbackManager | None = None,
    ) -> None:
        retriever = require_retriever(retriever, "GuardedQueryEngine")
        postprocessors = list(node_postprocessors or [])
        stage = None
        if not isinstance(retriever, GuardedRetriever):
            stage = next((p for p in postprocessors if isinstance(p, GuardPostprocessor)), None)
            if stage is None:
                raise AdapterConfigError(
                    "GuardedQueryEngine needs a guard: pass a GuardedRetriever as retriever or "
                    "a GuardPostprocessor in node_postprocessors"
                )
        super().__init__(retriever, response_synthesizer, postprocessors, callback_manager)
        self._guard_stage = stage
        self._guarded = (
            retriever
            if isinstance(retriever, GuardedRetriever)
            else GuardedRetriever(
                retriever,
                stage.guard,  # type: ignore[union-attr]
                stage.access,  # type: ignore[union-attr]
                pin_access=stage.pin_access,  # type: ignore[union-attr]
            )
        )
        self._after_guard = [p for p in postprocessors if p is not stage]

    def guarded_retrieve(self, query_bundle: QueryBundle) -> GuardedNodes:
        """Retrieve and check, run the other postprocessors on what passed, judge the result."""
        return run(postprocessed(self._guarded, self._after_guard, query_bundle))

    async def aguarded_retrieve(self, query_bundle: QueryBundle) -> GuardedNodes:
        """Async twin of :meth:`guarded_retrieve`."""
        return await arun(postprocessed(self._guarded, self._after_guard, query_bundle))

    def retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        """The nodes that would reach the LLM."""
        return self.guarded_retrieve(query_bundle).nodes

    async def aretrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        """Async twin of :meth:`retrieve`."""
        return (await self.aguarded_retrieve(query_bundle)).nodes

    def with_retriever(self, retriever: BaseRetriever) -> GuardedQueryEngine:
        """The same engine over another retriever (still guarded)."""
        return GuardedQueryEngine(
            retriever,
            self._response_synthesizer,
            self._node_postprocessors,
            self.callback_manager,
        )

    @dispatcher.span
    def _query(self, query_bundle: QueryBundle) -> RESPONSE_TYPE:
        return run(self._answer(query_bundle))

    @dispatcher.span
    async def _aquery(self, query_bundle: QueryBundle) -> RESPONSE_TYPE:
        return await arun(self._answer(query_bundle))

    def _answer(self, query_bundle: QueryBundle) -> Flow[RESPONSE_TYPE]:
        """One query for both drivers: guarded retrieval, then the synthesizer, or the refusal
        in the response shape the synthesizer would give, without calling the LLM."""
        payload: dict[str, Any] = {EventPayload.QUERY_STR: query_bundle.query_str}
        with self.callback_manager.event(CBEventType.QUERY, payload=payload) as query_event:
            checked = yield from postprocessed(self._guarded, self._after_guard, query_bundle)
            synthesizer: Any = self._response_synthesizer
            if checked.refusal is not None:
                synthesizer = RefusalSynthesizer(checked.refusal, self._streaming)
            response: RESPONSE_TYPE = yield Call(
                partial(synthesizer.synthesize, query=query_bundle, nodes=checked.nodes),
                partial(synthesizer.asynthesize, query=query_bundle, nodes=checked.nodes),
            )
            query_event.on_end(payload={EventPayload.RESPONSE: response})
        return response

    @property
    def _streaming(self) -> bool:
        # The synthesizer keeps its streaming flag private; a refusal must take the same shape.
        return bool(getattr(self._response_synthesizer, "_streaming", False))


def postprocessed(
    guarded: GuardedRetriever,
    postprocessors: Sequence[BaseNodePostprocessor],
    query_bundle: QueryBundle,
) -> Flow[GuardedNodes]:
    """Guarded retrieval, then each of ``postprocessors`` on what the guard kept, silenced, and
    the guard again (under the same plan) on its output: the nodes the LLM may be sent, judged
    as it will read them. Run it with :func:`~rag_guard_integrations.adapters.drive.run` or
    ``arun``.

    Raises:
        RetrievalError: a postprocessor raised; its message, which may quote nodes it added,
            stays out of the error and so out of every trace and handler.
    """
    checked = yield from guarded.retrieval(query_bundle)
    for postprocessor in postprocessors:
        if not checked.nodes:
            break
        changed = yield from shielded(
            once(_postprocessing(postprocessor, checked.nodes, query_bundle)),
            silenced(*class_modules(type(postprocessor))),
            "GuardedQueryEngine",
            _step(postprocessor),
        )
        checked = yield from guarded.checking(
            changed, query_bundle, "GuardedQueryEngine", planned=checked.plan
        )
    return checked


def _postprocessing(
    postprocessor: BaseNodePostprocessor, nodes: list[NodeWithScore], bundle: QueryBundle
) -> Call[list[NodeWithScore]]:
    return Call(
        lambda: postprocessor.postprocess_nodes(nodes, query_bundle=bundle),
        lambda: postprocessor.apostprocess_nodes(nodes, query_bundle=bundle),
    )


def _step(postprocessor: BaseNodePostprocessor) -> str:
    return f"the postprocessor {type(postprocessor).__name__}"


def guarded_query_engine(
    index: BaseIndex[Any],
    guard: Guard | Any,
    access: AccessContext | Any = None,
    *,
    pin_access: bool = False,
    fetch_k: int | None = None,
    llm: LLM | None = None,
    **kwargs: Any,
) -> GuardedQueryEngine:
    """Like ``index.as_query_engine(llm=llm, **kwargs)``, behind a :class:`GuardedRetriever`.

    ``guard`` is a Guard or policy references (``"contracts"``); ``access`` and ``pin_access``
    are the retriever's (with ``pin_access=True`` a ``guard_access`` block only narrows
    ``access``).

    Over a ``VectorStoreIndex`` the ``kwargs`` are the retriever's (``similarity_top_k``,
    ``filters``, ...) and the engine's (``response_mode``, ``node_postprocessors``, ...); any
    other name is refused rather than silently dropped.

    Example:
        ```python
        engine = guarded_query_engine(index, Guard.from_policy("contracts"), llm=llm,
                                      similarity_top_k=3)
        answer = query_with_access(engine, "termination notice period?", {"contract_type": "MSA"})
        ```
    """
    require_index(index, "guarded_query_engine")
    guard = as_guard(guard, "guarded_query_engine")
    engine_names = _parameters(RetrieverQueryEngine.from_args) - {"retriever", "llm"}
    engine_kwargs = {k: v for k, v in kwargs.items() if k in engine_names}
    retriever_kwargs = {k: v for k, v in kwargs.items() if k not in engine_names}
    if isinstance(index, VectorStoreIndex):
        # fetch_k and access are this function's own: named so a misspelling finds them.
        known = _parameters(VectorIndexRetriever.__init__) | {
            "vector_store_kwargs",
            "fetch_k",
            "access",
        }
        refuse_unknown("guarded_query_engine", kwargs, known | engine_names)
    inner = index.as_retriever(**retriever_kwargs)
    retriever = GuardedRetriever(inner, guard, access, pin_access=pin_access, fetch_k=fetch_k)
    engine = GuardedQueryEngine.from_args(retriever, llm=llm, **engine_kwargs)
    return cast("GuardedQueryEngine", engine)


def _parameters(function: Any) -> set[str]:
    """Named parameters of ``function`` (not ``self``, ``cls``, ``*args`` or ``**kwargs``)."""
    return {
        name
        for name, p in inspect.signature(function).parameters.items()
        if name not in {"self", "cls", "index"} and p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)
    }


def query_with_access(
    engine: BaseQueryEngine, query: QueryType, access: AccessContext | Any
) -> RESPONSE_TYPE:
    """Run one ``engine.query`` with ``access`` applied to every guard inside it."""
    with guard_access(access):
        return engine.query(query)


async def aquery_with_access(
    engine: BaseQueryEngine, query: QueryType, access: AccessContext | Any
) -> RESPONSE_TYPE:
    """Async twin of :func:`query_with_access`."""
    async with guard_access(access):
        return await engine.aquery(query)
