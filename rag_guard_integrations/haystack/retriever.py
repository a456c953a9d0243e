"""GuardedRetriever: a Haystack component that runs a retriever inside itself, out of sight of
the pipeline's tracing, and outputs only the Documents the Guard allows (or the refusal)."""

from __future__ import annotations

import inspect
from functools import partial
from typing import TYPE_CHECKING, Any

from haystack import Document, component, default_from_dict, default_to_dict
from haystack.core.serialization import component_to_dict

from rag_guard_integrations.adapters.access import request_access, require_pinnable
from rag_guard_integrations.adapters.drive import Call, arun, once, run
from rag_guard_integrations.adapters.fetch import shielded
from rag_guard_integrations.adapters.quiet_logs import class_modules, quiet_logs
from rag_guard_integrations.adapters.stored import coerce_guard, guard_reference
from rag_guard_integrations.core.access import NOT_GIVEN, AccessContext
from rag_guard_integrations.core.arguments import positive_int
from rag_guard_integrations.core.errors import AdapterConfigError
from rag_guard_integrations.engine.guard import fetch_size
from rag_guard_integrations.haystack.check import checked_documents
from rag_guard_integrations.haystack.documents import outputs

if TYPE_CHECKING:
    from collections.abc import Sequence

    from rag_guard_integrations.adapters.check import Checked
    from rag_guard_integrations.adapters.drive import Flow
    from rag_guard_integrations.engine.plan import RequestPlan

NAME = "GuardedRetriever"


@component
class GuardedRetriever:
    """Wraps a Haystack retriever (a text retriever taking ``query``, or an embedding retriever
    taking ``query_embedding``) so that its candidates never become a pipeline output.

    The inner retriever runs inside this component, not as a pipeline node, so Haystack's
    tracing (content tracing included) shows only this component's inputs and the allowed
    Documents it outputs; its failure is a ``RetrievalError`` naming only the exception's type.
    It fetches ``fetch_k`` candidates (default 4 x ``top_k``) and keeps at most ``top_k``
    allowed ones; nothing is fetched when no Document could pass. Outputs and access per run
    are :class:`GuardedDocuments`'s.

    Args:
        retriever: The Haystack retriever component to guard.
        guard: A Guard, or policy references such as ``"contracts"``.
        access: The default access; None denies access-controlled Documents.
        pin_access: Make ``access`` the most any run may see.
        top_k: At most this many allowed Documents go on.
        fetch_k: Candidates fetched per run (default 4 x ``top_k``).

    Example:
        ```python
        guarded = GuardedRetriever(InMemoryBM25Retriever(store), "contracts", top_k=3)
        pipeline.add_component("retriever", guarded)
        pipeline.connect("retriever.documents", "prompt_builder.documents")
        ```
    """

    def __init__(
        self,
        retriever: Any,
        guard: Any,
        *,
        access: AccessContext | dict[str, Any] | None = None,
        pin_access: bool = False,
        top_k: int = 4,
        fetch_k: int | None = None,
    ) -> None:
        if not callable(getattr(retriever, "run", None)):
            raise AdapterConfigError(
                f"{NAME} needs a Haystack retriever component, got {type(retriever).__name__}; "
                "pass e.g. InMemoryBM25Retriever(document_store)"
            )
        self.retriever = retriever
        self.guard = coerce_guard(guard, NAME)
        self.access = AccessContext.coerce(access)
        self.pin_access = pin_access
        self.top_k = positive_int("top_k", top_k)
        self.fetch_k = None if fetch_k is None else positive_int("fetch_k", fetch_k)
        require_pinnable(NAME, self.access, pin_access, self.guard)
        self._takes = frozenset(inspect.signature(retriever.run).parameters)

    @component.output_types(documents=list[Document], refusal=str)
    def run(
        self, query: str, query_embedding: list[float] | None = None, access: Any = NOT_GIVEN
    ) -> dict[str, Any]:
        """The allowed Documents of the inner retriever's candidates, or only the refusal."""
        return outputs(run(self._retrieval(query, query_embedding, access)))

    @component.output_types(documents=list[Document], refusal=str)
    async def run_async(
        self, query: str, query_embedding: list[float] | None = None, access: Any = NOT_GIVEN
    ) -> dict[str, Any]:
        """:meth:`run` for async pipelines (the inner ``run_async`` when it has one)."""
        return outputs(await arun(self._retrieval(query, query_embedding, access)))

    def to_dict(self) -> dict[str, Any]:
        """The component as a pipeline file stores it, the inner retriever included."""
        return default_to_dict(
            self,
            retriever=component_to_dict(obj=self.retriever, name="retriever"),
            guard=guard_reference(self.guard),
            access=None if self.access is None else self.access.to_dict(),
            pin_access=self.pin_access,
            top_k=self.top_k,
            fetch_k=self.fetch_k,
        )

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GuardedRetriever:
        """The component :meth:`to_dict` stored."""
        return default_from_dict(cls, data)

    def _retrieval(
        self, query: str, query_embedding: list[float] | None, access: Any
    ) -> Flow[Checked[Document]]:
        resolved = request_access(access, default=self.access, pinned=self.pin_access)
        inputs: dict[str, Any] = {}
        if "query" in self._takes:
            inputs["query"] = query
        if "query_embedding" in self._takes and query_embedding is not None:
            inputs["query_embedding"] = query_embedding
        if "top_k" in self._takes:
            inputs["top_k"] = fetch_size(self.top_k, self.fetch_k)

        def fetch(planned: RequestPlan) -> Flow[Sequence[Document]]:
            inner = self.retriever
            asynchronous = getattr(inner, "run_async", None)
            step = Call(
                partial(inner.run, **inputs),
                None if asynchronous is None else partial(asynchronous, **inputs),
            )
            # Called directly, the inner retriever reports to no tracer; its log records and
            # Haystack's are kept out of the logs.
            quiet = quiet_logs(("haystack",), class_modules(type(inner)))
            out = yield from shielded(once(step), quiet, NAME)
            documents: list[Document] = out["documents"]
            return documents

        return checked_documents(self.guard, query, resolved, fetch=fetch, limit=self.top_k)
