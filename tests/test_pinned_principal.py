"""A pinned access is a ceiling. With an access source the principal is what grants, so every
adapter refuses to pin an access that names none (a request's principal would widen it)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
from langchain_support import ListRetriever

from rag_guard_integrations import AccessContext, Guard
from rag_guard_integrations.authz import Answers, Scope
from rag_guard_integrations.core.errors import AdapterConfigError
from rag_guard_integrations.haystack import GuardedDocuments
from rag_guard_integrations.langchain import GuardCompressor, GuardedRetriever, GuardMiddleware
from rag_guard_integrations.llama_index import GuardPostprocessor

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence


class OnlyAna:
    """A grant table in which ana may see d1 (an access source needs no engine here)."""

    name = "only_ana"
    resource_key = "doc_id"

    def check(self, principal: str, resources: Sequence[str]) -> Answers:
        return Answers(frozenset(r for r in resources if principal == "ana" and r == "d1"))

    def scope(self, principal: str) -> Scope:
        return Scope.unbounded(self.name, "lists nothing", self.resource_key)


GUARD = Guard.from_policy("default", access_source=OnlyAna())
MAKERS: dict[str, Callable[[Any], object]] = {
    "langchain retriever": lambda access: GuardedRetriever(
        retriever=ListRetriever(documents=[]), guard=GUARD, access=access, pin_access=True
    ),
    "langchain compressor": lambda access: GuardCompressor(
        guard=GUARD, access=access, pin_access=True
    ),
    "langchain middleware": lambda access: GuardMiddleware(GUARD, access=access, pin_access=True),
    "llama_index postprocessor": lambda access: GuardPostprocessor(
        guard=GUARD, access=access, pin_access=True
    ),
    "haystack documents": lambda access: GuardedDocuments(GUARD, access=access, pin_access=True),
}


@pytest.mark.parametrize("component", sorted(MAKERS))
def test_a_pin_without_a_principal_is_refused_where_the_guard_has_an_access_source(
    component: str,
) -> None:
    """Pinning ``{"contract_type": ...}`` alone is a one-line error naming the source; a pin
    with the principal is accepted."""
    make = MAKERS[component]
    with pytest.raises(AdapterConfigError, match=r"names no principal.*only_ana"):
        make({"contract_type": ["MSA"]})
    assert make(AccessContext("ana", contract_type={"MSA"})) is not None


def test_without_an_access_source_a_pin_needs_no_principal() -> None:
    """The principal grants nothing without a source: a principal-less pin stays allowed."""
    retriever = GuardedRetriever(
        retriever=ListRetriever(documents=[]),
        guard="contracts",
        access={"contract_type": ["MSA"]},
        pin_access=True,
    )
    assert retriever.access == AccessContext(contract_type={"MSA"})
