"""Tests for the adapter kit: one access context read by every framework's adapter, one flow
run alike by the sync and the async driver, and every guard call of the adapters made by the
kit's plan module."""

from __future__ import annotations

import ast
import asyncio
from contextvars import ContextVar
from pathlib import Path
from typing import Any

import pytest
from haystack import Document
from langchain_core.documents import Document as LangChainDocument
from langchain_core.retrievers import BaseRetriever
from llama_index.core.schema import NodeWithScore, TextNode

import rag_guard_integrations
from rag_guard_integrations import Guard
from rag_guard_integrations.adapters.drive import Call, arun, run
from rag_guard_integrations.data import load_corpus
from rag_guard_integrations.haystack import GuardedDocuments, guard_access
from rag_guard_integrations.langchain import GuardedRetriever
from rag_guard_integrations.llama_index import GuardPostprocessor

ROOT = Path(rag_guard_integrations.__file__).parent
CHUNKS = load_corpus("contracts")
QUESTION = "What is the termination notice period?"
ADAPTERS = ("langchain", "llama_index", "haystack")


class EveryDocument(BaseRetriever):
    """A LangChain retriever without pushdown: every clause, whoever asks."""

    def _get_relevant_documents(self, query: str, **kwargs: Any) -> list[LangChainDocument]:
        return [LangChainDocument(c.text, metadata=dict(c.metadata), id=c.id) for c in CHUNKS]


def types(metadata: list[dict[str, Any]]) -> set[str]:
    return {str(m["contract_type"]) for m in metadata}


def test_one_guard_access_block_reaches_every_framework() -> None:
    """Inside one ``guard_access`` block the LangChain retriever, the LlamaIndex postprocessor
    and the Haystack component all check with the block's access."""
    guard = Guard.from_policy("contracts")
    nodes = [
        NodeWithScore(node=TextNode(id_=c.id, text=c.text, metadata=dict(c.metadata)))
        for c in CHUNKS
    ]
    documents = [Document(id=c.id, content=c.text, meta=dict(c.metadata)) for c in CHUNKS]
    langchain = GuardedRetriever(retriever=EveryDocument(), guard=guard, k=10)
    llama = GuardPostprocessor(guard=guard)
    haystack = GuardedDocuments(guard)
    with guard_access({"contract_type": ["SOW"]}):
        seen = [
            types([d.metadata for d in langchain.invoke(QUESTION)]),
            types([n.node.metadata for n in llama.postprocess_nodes(nodes, query_str=QUESTION)]),
            types([d.meta for d in haystack.run(QUESTION, documents)["documents"]]),
        ]
    assert seen == [{"SOW"}, {"SOW"}, {"SOW"}]


def calls_in(paths: list[Path], wanted: Any) -> list[str]:
    """The package-relative path of each call in ``paths`` for which ``wanted`` holds."""
    return [
        str(path.relative_to(ROOT))
        for path in paths
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Call) and wanted(node)
    ]


def _names_the_access_variable(call: ast.Call) -> bool:
    return (
        getattr(call.func, "id", None) == ContextVar.__name__
        and bool(call.args)
        and isinstance(call.args[0], ast.Constant)
        and call.args[0].value == "rag_guard_access"
    )


def _calls_the_guard(call: ast.Call) -> bool:
    func = call.func
    return (
        isinstance(func, ast.Attribute)
        and func.attr in {"prefilter", "check", "acheck"}
        and "guard" in ast.unparse(func.value)
    )


def test_the_package_has_one_access_context_variable() -> None:
    """Exactly one ContextVar is named ``rag_guard_access``, and it lives in the kit."""
    found = calls_in(sorted(ROOT.rglob("*.py")), _names_the_access_variable)
    assert found == ["adapters/access.py"]


def test_every_guard_call_of_the_adapters_is_made_by_the_kits_plan_module() -> None:
    """No adapter module calls ``prefilter``, ``check`` or ``acheck`` on a guard itself, so a
    change of the engine's interface is made in ``adapters/plan.py`` alone."""
    paths = [p for name in (*ADAPTERS, "adapters") for p in sorted((ROOT / name).rglob("*.py"))]
    assert sorted(set(calls_in(paths, _calls_the_guard))) == ["adapters/plan.py"]


def flow_with_recovery(log: list[str]) -> Any:
    """A flow whose second step fails; the flow recovers and returns what it saw."""
    first = yield Call(lambda: 1, _async_value(1))
    try:
        yield Call(_raise, _async_raise)
    except KeyError:
        log.append("recovered")
    third = yield Call(lambda: first + 2)  # no async form: the async driver calls sync()
    return first + third


def _async_value(value: int) -> Any:
    async def make() -> int:
        return value

    return make


def _raise() -> None:
    raise KeyError("step")


async def _async_raise() -> None:
    raise KeyError("step")


def test_both_drivers_run_one_flow_alike() -> None:
    """The sync and the async driver give the same value, and both hand a step's exception to
    the flow, which decides what happens."""
    sync_log: list[str] = []
    async_log: list[str] = []
    assert run(flow_with_recovery(sync_log)) == 4
    assert asyncio.run(arun(flow_with_recovery(async_log))) == 4
    assert sync_log == async_log == ["recovered"]


def test_an_exception_the_flow_does_not_catch_reaches_the_caller() -> None:
    """A step's exception the flow lets through is raised by either driver."""

    def failing() -> Any:
        yield Call(_raise, _async_raise)

    with pytest.raises(KeyError):
        run(failing())
    with pytest.raises(KeyError):
        asyncio.run(arun(failing()))
