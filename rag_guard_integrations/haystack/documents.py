"""GuardedDocuments: a Haystack component that lets on only the Documents the Guard allows, and
answers with the policy's refusal (so the prompt builder and the generator never run) when none
may pass."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from haystack import Document, component, default_from_dict, default_to_dict

from rag_guard_integrations.adapters.access import request_access, require_pinnable
from rag_guard_integrations.adapters.drive import arun, run
from rag_guard_integrations.adapters.stored import coerce_guard, guard_reference
from rag_guard_integrations.core.access import NOT_GIVEN, AccessContext
from rag_guard_integrations.core.arguments import positive_int
from rag_guard_integrations.core.errors import RagGuardError
from rag_guard_integrations.haystack.check import checked_documents

logger = logging.getLogger("rag_guard_integrations")

if TYPE_CHECKING:
    from rag_guard_integrations.adapters.check import Checked
    from rag_guard_integrations.adapters.drive import Flow


@component
class GuardedDocuments:
    """Checks a retriever's ``documents`` for one ``query`` and passes on the allowed ones.

    Put it between a retriever and the prompt builder. Output ``documents``: the allowed
    Documents in input order (a masked one is a copy with the masked ``content``; the caller's
    Documents are never changed). When the domain guard rejects the query or no Document
    passes, the only output is ``refusal`` (the policy's text): a prompt builder whose
    ``documents`` input is required then does not run, nor does the generator, and the
    pipeline's result holds ``{"guard": {"refusal": ...}}``. Under ``mode: shadow`` the guard
    only records: every Document goes on and there is no refusal.

    Access per run, in order: the ``access`` input (a mapping such as ``{"principal": "alice",
    "contract_type": ["MSA"]}``, an ``AccessContext``, or None for no access), else the
    innermost ``guard_access(...)`` block's, else the ``access`` given here; with
    ``pin_access=True`` that one is the ceiling a per-run access only narrows. Each run is
    published once to the audit log (``rag_guard_integrations.audit``) and heard by
    ``guard_results()`` blocks; ``run`` and ``run_async`` share one orchestration.

    Args:
        guard: A Guard, or policy references such as ``"contracts"``.
        access: The default access; None denies access-controlled Documents.
        pin_access: Make ``access`` the most any run may see.
        top_k: At most this many allowed Documents go on (None: all). Without pushdown a
            retriever returns every caller's Documents: fetch several times ``top_k`` so
            that ``top_k`` allowed ones remain.

    Example:
        ```python
        guard = GuardedDocuments("contracts", access={"contract_type": ["MSA"]})
        pipeline.add_component("guard", guard)
        pipeline.connect("retriever.documents", "guard.documents")
        pipeline.connect("guard.documents", "prompt_builder.documents")
        ```
    """

    def __init__(
        self,
        guard: Any,
        *,
        access: AccessContext | dict[str, Any] | None = None,
        pin_access: bool = False,
        top_k: int | None = None,
    ) -> None:
        self.guard = coerce_guard(guard, "GuardedDocuments")
        self.access = AccessContext.coerce(access)
        self.pin_access = pin_access
        self.top_k = None if top_k is None else positive_int("top_k", top_k)
        require_pinnable("GuardedDocuments", self.access, pin_access, self.guard)

    @component.output_types(documents=list[Document], refusal=str)
    def run(self, query: str, documents: list[Document], access: Any = NOT_GIVEN) -> dict[str, Any]:
        """The allowed ``documents``, or only the refusal when none may pass."""
        try:
            return outputs(run(self._checking(query, documents, access)))
        except Exception as error:
            return self._failed(error)

    @component.output_types(documents=list[Document], refusal=str)
    async def run_async(
        self, query: str, documents: list[Document], access: Any = NOT_GIVEN
    ) -> dict[str, Any]:
        """:meth:`run` for ``AsyncPipeline`` and ``Pipeline.run_async`` (awaits ``acheck``)."""
        try:
            return outputs(await arun(self._checking(query, documents, access)))
        except Exception as error:
            return self._failed(error)

    def _failed(self, error: Exception) -> dict[str, Any]:
        """A check that failed (a malformed access, ``on_block: raise``, a guard error) answers
        with the refusal and logs the error, rather than raising: Haystack attaches a failing
        component's inputs, every candidate Document among them, to the error's pipeline
        snapshot, which reaches snapshot callbacks and files."""
        shown = str(error) if isinstance(error, RagGuardError) else "its message withheld"
        logger.warning("GuardedDocuments refused: %s (%s)", type(error).__name__, shown)
        return {"refusal": self.guard.policy.no_context_refusal}

    def to_dict(self) -> dict[str, Any]:
        """The component as a pipeline file stores it: the guard as its policy references."""
        access = None if self.access is None else self.access.to_dict()
        guard = guard_reference(self.guard)
        return default_to_dict(
            self, guard=guard, access=access, pin_access=self.pin_access, top_k=self.top_k
        )

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GuardedDocuments:
        """The component :meth:`to_dict` stored."""
        return default_from_dict(cls, data)

    def _checking(
        self, query: str, documents: list[Document], access: Any
    ) -> Flow[Checked[Document]]:
        resolved = request_access(access, default=self.access, pinned=self.pin_access)
        return checked_documents(self.guard, query, resolved, documents=documents, limit=self.top_k)


def outputs(checked: Checked[Document]) -> dict[str, Any]:
    """A guarded component's outputs: only the refusal when there is one (so the components
    that need ``documents`` do not run), else the allowed ``documents``."""
    if checked.refusal is not None:
        return {"refusal": checked.refusal}
    return {"documents": checked.items}
