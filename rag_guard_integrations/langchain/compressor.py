"""GuardCompressor: the guard as a LangChain document compressor, for
``ContextualCompressionRetriever`` and ``DocumentCompressorPipeline``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from langchain_core.documents import BaseDocumentCompressor
from langchain_core.runnables import ensure_config
from pydantic import ConfigDict
from typing_extensions import override

from rag_guard_integrations.adapters.access import request_access
from rag_guard_integrations.adapters.drive import arun, run

# Runtime imports: pydantic resolves these field annotations when the class is built.
from rag_guard_integrations.engine.guard import Guard  # noqa: TC001
from rag_guard_integrations.langchain.check import CheckCall, checking, reject_if_asked
from rag_guard_integrations.langchain.fields import AccessInput, KnownFieldsOnly, given_access

if TYPE_CHECKING:
    from collections.abc import Sequence

    from langchain_core.callbacks import Callbacks
    from langchain_core.documents import Document

    from rag_guard_integrations.adapters.drive import Flow
    from rag_guard_integrations.core.access import AccessContext


class GuardCompressor(KnownFieldsOnly, BaseDocumentCompressor):
    """Document compressor that keeps only the Documents a ``Guard`` allows.

    Returns the caller's own Document objects, unmodified, in input order.

    The compressor interface carries no per-request settings: access per call is the
    ``configurable["access"]`` of the surrounding chain run (``ContextualCompressionRetriever``
    invoked inside a chain), else the ``access`` field. An explicit None is no access. With
    ``pin_access=True`` the field is also a ceiling that a per-call access only narrows.

    What a ``ContextualCompressionRetriever`` exposes: it runs its base retriever as a traced
    child run, so ``on_retriever_end`` of that run hands every callback handler,
    ``astream_events`` consumer and LangSmith trace the base retriever's unchecked Documents,
    the ones this compressor then withholds included. Where those must stay private, use the
    guarded form instead: ``GuardedRetriever(retriever=ContextualCompressionRetriever(
    base_compressor=other_compressor, base_retriever=base), guard=guard)`` keeps everything
    the compression retriever does inside the guard and checks the compressed text, which is
    what the LLM will see. An LLM compressor inside that form still reads the unchecked
    candidates, and a handler attached to its model object sees them: to keep them from it,
    compress after the guard (``base_retriever=GuardedRetriever(...)``, run inside a chain so
    the request's access reaches it). The check is the ``rag_guard.check`` child run
    (decision summary, no chunk text).

    Setup:
        ```bash
        pip install -U "rag-guard-integrations[langchain]" langchain-classic
        ```

    Key init args:
        guard: Guard | str
            The guard to apply, e.g. ``Guard.from_policy("contracts")``, or policy references.
        access: AccessContext | Mapping | None
            Who is asking when the run brings no access; None denies every access-controlled
            chunk.
        pin_access: bool
            ``access`` is also the most a call may see: a per-call access only narrows it.
        raise_on_reject: bool
            Raise ``QueryRejected`` when the domain guard refuses the query (default: return
            no documents).

    Instantiate:
        ```python
        from rag_guard_integrations import AccessContext, Guard
        from rag_guard_integrations.langchain import GuardCompressor

        compressor = GuardCompressor(
            guard=Guard.from_policy("contracts"),
            access=AccessContext(principal="alice", contract_type={"MSA"}),
        )
        ```

    Usage:
        ```python
        kept = compressor.compress_documents(docs, "What is the termination notice period?")
        kept = await compressor.acompress_documents(docs, "What is the notice period?")
        ```

        Inside a run (a compression retriever, a chain) each call emits the
        ``rag_guard_result`` custom event; every call logs it on the ``rag_guard_integrations``
        logger at INFO.

    Use within a chain:
        ```python
        from langchain_classic.retrievers import ContextualCompressionRetriever

        retriever = ContextualCompressionRetriever(
            base_compressor=compressor, base_retriever=store.as_retriever()
        )
        chain = build_rag_chain(retriever, llm)
        ```
    """

    model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid")

    guard: Guard
    access: AccessInput = None
    pin_access: bool = False
    raise_on_reject: bool = False

    @override
    def compress_documents(
        self, documents: Sequence[Document], query: str, callbacks: Callbacks | None = None
    ) -> Sequence[Document]:
        return run(self._checking(documents, query, callbacks))

    @override
    async def acompress_documents(
        self, documents: Sequence[Document], query: str, callbacks: Callbacks | None = None
    ) -> Sequence[Document]:
        return await arun(self._checking(documents, query, callbacks))

    def _checking(
        self, documents: Sequence[Document], query: str, callbacks: Callbacks | None
    ) -> Flow[list[Document]]:
        call = CheckCall(self.guard, query, documents, self._access())
        result, kept = yield from checking(call, callbacks)
        reject_if_asked(result, self.raise_on_reject)
        return kept

    def _access(self) -> AccessContext | None:
        # The surrounding run's config, as LangChain keeps it for this thread or task.
        given = given_access(ensure_config(), {})
        return request_access(given, default=self.access, pinned=self.pin_access)
