"""Per-call access in the LangChain adapters: a pinned access only narrows, an explicit None is
no access, and invoke takes only the arguments it documents."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.callbacks import CallbackManagerForRetrieverRun  # noqa: TC002 - pydantic
from langchain_core.documents import Document  # noqa: TC002 - pydantic
from langchain_core.messages import ToolMessage
from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables import RunnablePassthrough
from langchain_support import CONTRACT_TYPES, QUERY, ListRetriever, contract_documents

from rag_guard_integrations import AccessContext, Guard, parse_policy
from rag_guard_integrations.core.errors import AccessError, ArgumentError
from rag_guard_integrations.langchain import (
    GuardCompressor,
    GuardedRetriever,
    GuardMiddleware,
    create_guarded_retriever_tool,
)
from rag_guard_integrations.langchain.testing import ToolCallingChat

ACCESS_ONLY = Guard(parse_policy("access: {attributes: [contract_type]}"))
MSA_SOW = {"contract_type": ["MSA", "SOW"]}
REFUSAL = "No authorized matching clause found."


def types_of(documents: list[Document]) -> set[str]:
    """The contract types among ``documents``."""
    return {d.metadata["contract_type"] for d in documents}


def every_clause(**params: Any) -> GuardedRetriever:
    """A GuardedRetriever over a retriever that returns the whole corpus, checked by access,
    returning every Document it allows."""
    documents = contract_documents()
    return GuardedRetriever(
        retriever=ListRetriever(documents=documents), guard=ACCESS_ONLY, k=len(documents), **params
    )


def configured(access: object) -> dict[str, Any]:
    """A config carrying ``access`` as ``configurable["access"]``."""
    return {"configurable": {"access": access}}


@pytest.mark.parametrize(
    ("call", "expected"),
    [
        ({"access": {"contract_type": ["SOW", "NDA"]}}, {"SOW"}),
        ({"config": configured({"contract_type": ["NDA", "DPA", "MSA"]})}, {"MSA"}),
        ({"access": {"contract_type": ["NDA"]}}, set()),
        ({"access": {"region": ["EU"]}}, set()),
        ({}, {"MSA", "SOW"}),
    ],
)
async def test_a_pinned_access_only_narrows_what_a_call_brings(
    call: dict[str, Any], expected: set[str]
) -> None:
    """With pin_access, a call's access meets the pinned one: never a type outside it."""
    retriever = every_clause(access=MSA_SOW, pin_access=True)
    assert types_of(retriever.invoke(QUERY, **call)) == expected
    assert types_of(await retriever.ainvoke(QUERY, **call)) == expected


def test_with_config_cannot_widen_a_pinned_access() -> None:
    """An access set by ``with_config`` on the retriever or around it is a per-call one."""
    retriever = every_clause(access=MSA_SOW, pin_access=True)
    widened = retriever.with_config(
        configurable={"access": {"contract_type": list(CONTRACT_TYPES)}}
    )
    assert types_of(widened.invoke(QUERY)) == {"MSA", "SOW"}
    chain = (RunnablePassthrough() | retriever).with_config(
        configurable={"access": {"contract_type": ["SOW", "DPA"]}}
    )
    assert types_of(chain.invoke(QUERY)) == {"SOW"}


def test_without_a_pin_the_call_replaces_the_default() -> None:
    """Unpinned, a per-call access replaces the default (the previous behaviour)."""
    retriever = every_clause(access=MSA_SOW)
    assert types_of(retriever.invoke(QUERY, access={"contract_type": ["NDA"]})) == {"NDA"}


def test_a_call_cannot_name_another_principal_than_the_pinned_one() -> None:
    """A pinned principal stays: a call naming another is an AccessError."""
    retriever = every_clause(access={"principal": "alice", **MSA_SOW}, pin_access=True)
    with pytest.raises(AccessError, match="differs from the pinned principal 'alice'"):
        retriever.invoke(QUERY, access={"principal": "bob", "contract_type": ["MSA"]})


@pytest.mark.parametrize(
    "call",
    [
        {"access": None},
        {"config": configured(None)},
        {"access": None, "config": configured(MSA_SOW)},
    ],
)
@pytest.mark.parametrize("pinned", [False, True])
async def test_an_explicit_none_is_no_access_never_the_default(
    call: dict[str, Any], pinned: bool
) -> None:
    """``access=None`` or ``configurable={"access": None}`` passes nothing access-controlled."""
    retriever = every_clause(access=MSA_SOW, pin_access=pinned)
    assert retriever.invoke(QUERY, **call) == []
    assert await retriever.ainvoke(QUERY, **call) == []


@pytest.mark.parametrize("use_async", [False, True])
async def test_an_unknown_invoke_argument_is_refused(use_async: bool) -> None:
    """``invoke(q, acess=...)`` is the constructors' one-line error, not a silent default."""
    retriever = every_clause(access=MSA_SOW)
    refused = pytest.raises(ArgumentError, match="unknown argument 'acess'; did you mean 'access'")
    if use_async:
        with refused:
            await retriever.ainvoke(QUERY, acess={"contract_type": ["NDA"]})
    else:
        with refused:
            retriever.invoke(QUERY, acess={"contract_type": ["NDA"]})


def test_search_arguments_reach_a_vector_store_retriever() -> None:
    """``filter`` goes on to a VectorStoreRetriever's store, merged with the guard's pushdown."""
    from langchain_support import contract_store

    retriever = GuardedRetriever(
        retriever=contract_store().as_retriever(), guard=ACCESS_ONLY, access=MSA_SOW
    )
    only_sow = retriever.invoke(QUERY, filter=lambda d: d.metadata["contract_type"] == "SOW")
    assert types_of(only_sow) == {"SOW"}
    with pytest.raises(ArgumentError, match="It takes: access, filter, k, lambda_mult"):
        retriever.invoke(QUERY, namespace="x")


class NoArguments(BaseRetriever):
    """A retriever whose ``_get_relevant_documents`` takes nothing beyond the query."""

    documents: list[Document]

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun
    ) -> list[Document]:
        return self.documents


def test_an_argument_the_inner_retriever_would_drop_is_refused() -> None:
    """LangChain drops invoke arguments a retriever does not take; the guard says so instead,
    and hands ``filter`` to a retriever that takes keyword arguments (for a caller who may see
    something: for one who may see nothing, nothing is fetched)."""
    documents = contract_documents()
    with pytest.raises(ArgumentError, match="unknown argument 'filter'"):
        GuardedRetriever(retriever=NoArguments(documents=documents), guard=ACCESS_ONLY).invoke(
            QUERY, filter={"x": 1}
        )
    inner = ListRetriever(documents=documents)
    guarded = GuardedRetriever(retriever=inner, guard=ACCESS_ONLY, access=MSA_SOW)
    guarded.invoke(QUERY, filter={"x": 1})
    assert inner.calls[-1] == {"filter": {"x": 1}}
    guarded.invoke(QUERY, filter={"x": 2}, access=None)
    assert len(inner.calls) == 1


def compressed(compressor: GuardCompressor, config: dict[str, Any]) -> set[str]:
    """The types a compressor keeps of the corpus inside a chain run with ``config``."""
    from langchain_core.runnables import RunnableLambda

    step = RunnableLambda(lambda q: compressor.compress_documents(contract_documents(), q))
    return types_of(list(step.invoke(QUERY, config=config)))


def test_the_compressor_takes_the_runs_access_and_a_pin_narrows_it() -> None:
    """Inside a chain, ``configurable["access"]`` is the compressor's per-call access: it
    replaces the field, or with pin_access narrows it; None is no access."""
    free = GuardCompressor(guard=ACCESS_ONLY, access=MSA_SOW)
    pinned = GuardCompressor(guard=ACCESS_ONLY, access=MSA_SOW, pin_access=True)
    wide = configured({"contract_type": ["SOW", "NDA"]})
    assert compressed(free, wide) == {"SOW", "NDA"}
    assert compressed(pinned, wide) == {"SOW"}
    assert compressed(pinned, {}) == {"MSA", "SOW"}
    assert compressed(free, configured(None)) == set()


@dataclass
class Caller:
    """An agent's runtime context."""

    access: Any


def tool_contents(out: dict[str, Any]) -> list[str]:
    """The contents of an agent run's tool messages."""
    return [str(m.content) for m in out["messages"] if isinstance(m, ToolMessage)]


def clause_of(contract_type: str) -> str:
    """The termination-notice clause text of ``contract_type``."""
    [text] = [
        d.page_content
        for d in contract_documents()
        if d.metadata["contract_type"] == contract_type
        and d.metadata["clause_id"] == "TERMINATION_NOTICE"
    ]
    return text


def test_a_pinned_tool_narrows_the_request_access() -> None:
    """``create_guarded_retriever_tool(pin_access=True)`` narrows what the graph passes."""
    guard = Guard.from_policy("contracts")
    tool = create_guarded_retriever_tool(
        ListRetriever(documents=contract_documents()),
        guard,
        name="contracts",
        description="Contract clauses.",
        access={"contract_type": ["SOW"]},
        pin_access=True,
    )
    call = {"type": "tool_call", "id": "1", "name": "contracts", "args": {"query": QUERY}}
    wide = configured({"contract_type": list(CONTRACT_TYPES)})
    assert tool.invoke(call, config=wide).content == clause_of("SOW")
    assert tool.invoke(call, config=configured({"contract_type": ["MSA"]})).content == REFUSAL


@pytest.mark.parametrize(
    ("context", "expected"),
    [
        (Caller(access={"contract_type": ["DPA", "SOW"]}), clause_of("SOW")),
        (Caller(access=None), REFUSAL),
        ({"access": None}, REFUSAL),
        (None, clause_of("MSA")),
    ],
)
def test_the_middleware_pins_and_takes_none_as_no_access(context: Any, expected: str) -> None:
    """A pinned middleware narrows the runtime context's access; a context whose access is
    None gives no access, not the middleware's default."""
    guard = Guard.from_policy("contracts")
    tool = create_guarded_retriever_tool(
        ListRetriever(documents=contract_documents()), guard, name="c", description="Clauses."
    )
    middleware = GuardMiddleware(guard, access={"contract_type": ["MSA", "SOW"]}, pin_access=True)
    if context is None:  # no per-request access: the pinned default applies
        middleware = GuardMiddleware(guard, access={"contract_type": ["MSA"]}, pin_access=True)
    agent = create_agent(ToolCallingChat(), [tool], middleware=[middleware])
    out = agent.invoke({"messages": [("user", QUERY)]}, context=context)
    assert tool_contents(out) == [expected]


def test_access_context_objects_are_accepted_per_call() -> None:
    """An AccessContext passed per call works like a mapping."""
    retriever = every_clause(access=MSA_SOW, pin_access=True)
    narrowed = retriever.invoke(QUERY, access=AccessContext(contract_type={"MSA", "NDA"}))
    assert types_of(narrowed) == {"MSA"}


@pytest.mark.parametrize("use_async", [False, True])
async def test_with_result_takes_the_calls_access_and_refuses_unknown_arguments(
    use_async: bool,
) -> None:
    """``with_result()`` passes ``access=`` on to the guarded retriever like ``invoke`` does,
    and a misspelt argument is a one-line ArgumentError, not a TypeError."""
    runnable = every_clause().with_result()

    async def call(**arguments: Any) -> Any:
        if use_async:
            return await runnable.ainvoke(QUERY, **arguments)
        return runnable.invoke(QUERY, **arguments)

    out = await call(access={"contract_type": ["SOW"]})
    assert types_of(out["documents"]) == {"SOW"}
    with pytest.raises(ArgumentError, match="did you mean 'access'"):
        await call(acess={"contract_type": ["SOW"]})
