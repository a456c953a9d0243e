"""A request's decision for a chain: ``with_result`` hands it over as a text-free CheckedResult,
and the kit's :func:`guard_results` gives the caller's own code the full GuardResult without it
ever crossing a run boundary (an output, an event, a trace)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from langchain_core.runnables import RunnableLambda

from rag_guard_integrations.adapters.listen import guard_results, listening

if TYPE_CHECKING:
    from langchain_core.retrievers import BaseRetriever
    from langchain_core.runnables import Runnable, RunnableConfig

    from rag_guard_integrations.core.decisions import GuardResult

__all__ = ["CheckedResult", "guard_results", "with_result"]


@dataclass(frozen=True, slots=True)
class CheckedResult:
    """A request's decision as it may cross a run boundary: counts, refusal and the audit record
    (per chunk its id, decision, stage, rule and reason); it holds no chunk text or metadata
    value, so handlers, ``astream_events``, tracers and checkpointers can keep it.

    Built with :meth:`of`; for the full ``GuardResult`` (which holds the withheld chunks) use
    :func:`guard_results` around the call instead.

    Example:
        >>> out = retriever.with_result().invoke(query, config=config)  # doctest: +SKIP
        >>> out["result"].refusal  # doctest: +SKIP
        'No authorized matching clause found.'
    """

    refusal: str | None
    query_allowed: bool
    summary: dict[str, Any]
    audit: dict[str, Any]

    @classmethod
    def of(cls, result: GuardResult) -> CheckedResult:
        """The text-free form of ``result``."""
        return cls(result.refusal, result.query.allowed, result.summary(), result.audit())

    def to_dict(self) -> dict[str, Any]:
        """The decision summary plus ``audit`` (the audit record v2), JSON-ready."""
        return {**self.summary, "audit": self.audit}

    def __repr__(self) -> str:
        return f"CheckedResult({self.summary!r})"


def with_result(retriever: BaseRetriever) -> Runnable[str, dict[str, Any]]:
    """``retriever`` as a runnable returning ``{"documents": [...], "result": CheckedResult}``;
    the retriever must report its result to the kit's listeners (``GuardedRetriever`` does)."""

    # Call arguments (``access=``) go on to the retriever, which refuses those it does not know.
    def run(query: str, config: RunnableConfig, **kwargs: Any) -> dict[str, Any]:
        with listening() as reports:
            documents = retriever.invoke(query, config, **kwargs)
        return {"documents": documents, "result": CheckedResult.of(reports[-1].result)}

    async def arun(query: str, config: RunnableConfig, **kwargs: Any) -> dict[str, Any]:
        with listening() as reports:
            documents = await retriever.ainvoke(query, config, **kwargs)
        return {"documents": documents, "result": CheckedResult.of(reports[-1].result)}

    return RunnableLambda(run, afunc=arun, name="guarded_retrieval")
