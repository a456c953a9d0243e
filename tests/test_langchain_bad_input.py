"""Bad input to the LangChain adapters is one line naming the value and the fix, by the same rule
as the LlamaIndex adapter: ``guard=`` takes a Guard or policy references, a retriever must be a
retriever (a vector store is told to call ``as_retriever()``)."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_support import QUERY, contract_store

from rag_guard_integrations import Guard
from rag_guard_integrations.core.errors import AccessError, ArgumentError
from rag_guard_integrations.langchain import (
    GuardCompressor,
    GuardedRetriever,
    GuardMiddleware,
    create_guarded_retriever_tool,
)


def make(component: str, **params: Any) -> Any:
    """One of the four LangChain components, built with ``params`` over the real store."""
    store = contract_store()
    if component == "GuardedRetriever":
        return GuardedRetriever(**{"retriever": store.as_retriever(), **params})
    if component == "GuardCompressor":
        return GuardCompressor(**params)
    if component == "create_guarded_retriever_tool":
        retriever = params.pop("retriever", store.as_retriever())
        return create_guarded_retriever_tool(
            retriever, params.pop("guard"), name="c", description="Clauses.", **params
        )
    return GuardMiddleware(params.pop("guard"), **params)


COMPONENTS = ["GuardedRetriever", "GuardCompressor", "create_guarded_retriever_tool", "Middleware"]


@pytest.mark.parametrize("component", COMPONENTS)
@pytest.mark.parametrize("guard", ["contracts", ["contracts", "default"]])
def test_policy_references_as_guard_make_the_guard(component: str, guard: Any) -> None:
    """A built-in name (or several) as ``guard=`` is the guard of those policies."""
    built = make(component, guard=guard)
    if component == "create_guarded_retriever_tool":
        call = {"type": "tool_call", "id": "1", "name": "c", "args": {"query": QUERY}}
        message = built.invoke(
            call, config={"configurable": {"access": {"contract_type": ["MSA"]}}}
        )
        assert [d.metadata["contract_type"] for d in message.artifact] == ["MSA"]
    else:
        assert isinstance(built.guard, Guard)
        assert "contracts" in (built.guard.policy.name or "")


@pytest.mark.parametrize("component", COMPONENTS)
@pytest.mark.parametrize("guard", [42, None, {"policy": 3}])
def test_a_guard_of_the_wrong_type_is_one_line_naming_the_fix(component: str, guard: Any) -> None:
    """Anything else is an ArgumentError naming the type and ``Guard.from_policy``."""
    with pytest.raises(ArgumentError) as raised:
        make(component, guard=guard)
    message = str(raised.value)
    assert "\n" not in message
    assert f"got {type(guard).__name__}" in message
    assert "Guard.from_policy('contracts')" in message


def test_the_middleware_given_a_name_works_as_a_middleware() -> None:
    """``GuardMiddleware("contracts")`` is a working middleware, not an AttributeError later."""
    assert GuardMiddleware("contracts").guard.policy.no_context_refusal


@pytest.mark.parametrize("component", ["GuardedRetriever", "create_guarded_retriever_tool"])
def test_a_vector_store_as_retriever_is_one_line_naming_as_retriever(component: str) -> None:
    """A vector store where a retriever belongs says to call ``store.as_retriever()``."""
    with pytest.raises(ArgumentError) as raised:
        make(component, retriever=contract_store(), guard="contracts")
    message = str(raised.value)
    assert "\n" not in message
    assert "InMemoryVectorStore" in message
    assert "store.as_retriever()" in message


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({}, "GuardedRetriever needs guard=; pass Guard.from_policy('contracts')"),
        ({"guard": "contracts", "k": "four"}, "GuardedRetriever: k: Input should be a valid"),
        ({"guard": "contracts", "fetch_k": 0}, "GuardedRetriever: fetch_k: Input should be"),
    ],
)
def test_a_missing_or_unusable_field_is_one_line(params: dict[str, Any], expected: str) -> None:
    """A missing guard or a value pydantic refuses is one line, not a validation report."""
    with pytest.raises(ArgumentError) as raised:
        GuardedRetriever(retriever=contract_store().as_retriever(), **params)
    assert str(raised.value).startswith(expected)
    assert "\n" not in str(raised.value)


@pytest.mark.parametrize("component", COMPONENTS)
def test_access_of_the_wrong_type_is_one_line(component: str) -> None:
    """``access="MSA"`` is an AccessError naming the type it got."""
    with pytest.raises(AccessError, match="got str") as raised:
        make(component, guard="contracts", access="MSA")
    assert "\n" not in str(raised.value)


def test_a_working_retriever_still_answers() -> None:
    """The checks change nothing for good input."""
    retriever = make("GuardedRetriever", guard="contracts")
    assert [
        d.metadata["contract_type"]
        for d in retriever.invoke(QUERY, access={"contract_type": ["MSA"]})
    ] == ["MSA"]
