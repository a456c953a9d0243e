"""GuardPostprocessor: a LlamaIndex node postprocessor that drops every node the Guard denies."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from llama_index.core.bridge.pydantic import ConfigDict, Field
from llama_index.core.postprocessor.types import BaseNodePostprocessor

from rag_guard_integrations.adapters.access import require_pinnable
from rag_guard_integrations.adapters.drive import arun, run
from rag_guard_integrations.adapters.stored import coerce_guard
from rag_guard_integrations.core.access import AccessContext
from rag_guard_integrations.core.errors import AdapterConfigError
from rag_guard_integrations.llama_index.access import access_for
from rag_guard_integrations.llama_index.check import GuardedNodes, checked_nodes, query_text

# Runtime imports: pydantic resolves these field annotations when the class is built.
from rag_guard_integrations.llama_index.fields import (
    AccessDefault,
    GuardField,
    refuse_unknown,
)

if TYPE_CHECKING:
    from llama_index.core.schema import NodeWithScore, QueryBundle

    from rag_guard_integrations.adapters.drive import Flow


class GuardPostprocessor(BaseNodePostprocessor):
    """Node postprocessor that keeps only the nodes a ``Guard`` allows for this caller.

    The kept nodes are the caller's own ``NodeWithScore`` objects, unmodified, scores included,
    in retrieval order; nothing is added to their metadata. Two kinds come back as copies (the
    caller's node untouched): a node a ``redact`` rule masked, with each span masked where it
    came from (the text, or a metadata value; a node whose masks cannot be written back is
    withheld), and a node whose ``relationships`` carried a neighbour's metadata (a sentence
    parser copies each neighbour's window there), with those entries dropped. The guard judges
    the query bundle's ``query_str`` (an empty query without a bundle). Put it first in
    ``node_postprocessors`` so no later stage (a reranker calling an LLM, say) sees a denied
    node.

    Access is the innermost ``guard_access(...)`` block's, else the ``access`` field; with
    neither, access-controlled nodes are denied. ``guard_access(None)`` (like ``{}`` or
    ``NO_ACCESS``) says "this caller has no access". With ``pin_access=True`` the ``access``
    field is a ceiling: a block can only narrow it (per attribute, the values both allow).

    The guard judges what LlamaIndex will send the LLM: ``node.get_content(MetadataMode.LLM)``,
    the text (a ``Node``'s text resource) plus every metadata value not excluded from the LLM,
    and every string metadata value excluded from the LLM, which a postprocessor can swap in
    (the sentence window): a sentence whose window holds a withheld neighbour is withheld.
    A node with no text content (image, audio, video, empty) is denied unless the policy sets
    ``allow_non_text: true``. Put this postprocessor after every postprocessor that changes
    content (``MetadataReplacementPostProcessor`` for sentence windows): what it judged must be
    what the LLM reads. ``GuardedQueryEngine`` orders this for you.

    ``to_dict()``/``from_dict()`` keep the guard as its policy references; a guard they cannot
    rebuild (a classifier, extra checks, an access source, a policy changed in code) loads back
    only with ``from_dict(data, guard=...)``, never looser.

    Setup:
        ```bash
        pip install -U "rag-guard-integrations[llamaindex,embeddings]"
        ```

    Key init args:
        guard: Guard
            The guard to apply, e.g. ``Guard.from_policy("contracts")``.
        access: AccessContext | Mapping | None
            Default access for requests that bring none.
        pin_access: bool
            Make ``access`` the most any request may see: a ``guard_access`` block only
            narrows it. Default False (a block replaces it).

    Instantiate:
        ```python
        from rag_guard_integrations import AccessContext, Guard
        from rag_guard_integrations.llama_index import GuardPostprocessor

        pp = GuardPostprocessor(
            guard=Guard.from_policy("contracts"), access=AccessContext(contract_type={"MSA"})
        )
        ```

    Usage:
        ```python
        nodes = index.as_retriever(similarity_top_k=10).retrieve("termination notice period?")
        allowed = pp.postprocess_nodes(nodes, query_str="termination notice period?")
        ```

    Use within a query engine:
        ```python
        engine = GuardedQueryEngine.from_args(index.as_retriever(), llm=llm,
                                              node_postprocessors=[pp])
        with guard_access({"contract_type": ["SOW"]}):
            print(engine.query("What is the termination notice period?"))
        ```
    """

    model_config = ConfigDict(extra="forbid")

    guard: GuardField = Field(description="the core Guard that decides")
    access: AccessDefault = Field(
        default=None, description="default access for requests that bring none"
    )
    pin_access: bool = Field(
        default=False,
        description="access is a ceiling: a guard_access block can only narrow it",
    )

    def __init__(self, **data: Any) -> None:
        # Checked before pydantic sees them, so that a bad argument is one line naming the fix
        # rather than a ValidationError report.
        refuse_unknown("GuardPostprocessor", data, type(self).model_fields)
        if "guard" not in data:
            raise AdapterConfigError(
                "GuardPostprocessor needs guard=: a Guard or policy references, e.g. "
                "GuardPostprocessor(guard='contracts')"
            )
        data["guard"] = coerce_guard(data["guard"])
        pinned = data.get("pin_access", False)
        require_pinnable(
            "GuardPostprocessor", AccessContext.coerce(data.get("access")), pinned, data["guard"]
        )
        super().__init__(**data)

    @classmethod
    def class_name(cls) -> str:
        """The fixed serialization id."""
        return "GuardPostprocessor"

    def guard_nodes(
        self, nodes: list[NodeWithScore], query_bundle: QueryBundle | None = None
    ) -> GuardedNodes:
        """Check ``nodes``; the kept nodes together with the ``GuardResult`` and any refusal."""
        return run(self._checking(nodes, query_bundle))

    async def aguard_nodes(
        self, nodes: list[NodeWithScore], query_bundle: QueryBundle | None = None
    ) -> GuardedNodes:
        """Async twin of :meth:`guard_nodes` (awaits ``Guard.acheck``)."""
        return await arun(self._checking(nodes, query_bundle))

    def _checking(
        self, nodes: list[NodeWithScore], query_bundle: QueryBundle | None
    ) -> Flow[GuardedNodes]:
        access = access_for(self.access, pinned=self.pin_access)
        query = query_text(query_bundle)
        return checked_nodes(self.guard, query, access, self.class_name(), nodes=nodes)

    def _postprocess_nodes(
        self, nodes: list[NodeWithScore], query_bundle: QueryBundle | None = None
    ) -> list[NodeWithScore]:
        return self.guard_nodes(nodes, query_bundle).nodes

    async def _apostprocess_nodes(
        self, nodes: list[NodeWithScore], query_bundle: QueryBundle | None = None
    ) -> list[NodeWithScore]:
        return (await self.aguard_nodes(nodes, query_bundle)).nodes
