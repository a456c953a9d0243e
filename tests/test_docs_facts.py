"""What the documentation pages' examples leave behind is what their text says: each caller gets
their own clause, the refusal otherwise, a revoked grant is seen at once (the pages run once per
session; see docs_support)."""

from __future__ import annotations

from typing import Any

import pytest
from authz_support import spicedb_library
from docs_support import DOCS, run_page

from rag_guard_integrations.core.errors import AccessError

pytestmark = pytest.mark.integration

REFUSAL = "No authorized matching clause found."


def page(name: str) -> dict[str, Any]:
    """The namespace the page's python blocks leave behind."""
    return run_page(DOCS / name)


def termination_clauses(names: dict[str, Any]) -> dict[str, str]:
    """Contract type -> the text of its termination-notice clause."""
    return {
        d.metadata["contract_type"]: d.page_content
        for d in names["docs"]
        if d.metadata["clause_id"] == "TERMINATION_NOTICE"
    }


def test_the_langchain_chain_answers_per_caller_and_refuses_without_access() -> None:
    """The MSA caller's answer is an MSA clause; without access the answer is the refusal, also
    from the user's own chain, whose model is not called."""
    names = page("frameworks/langchain.md")
    msa = [d for d in names["docs"] if d.metadata["contract_type"] == "MSA"]
    assert names["answer"] in {d.page_content for d in msa}
    assert names["refusal"] == REFUSAL
    assert names["own_refusal"] == REFUSAL
    assert names["out"]["result"].refusal == REFUSAL
    assert names["results"][-1].allowed[0].metadata["contract_type"] == "MSA"


def test_a_pinned_langchain_retriever_only_narrows() -> None:
    """The pinned tenant returns SOW for a SOW-or-NDA call and nothing for ``access=None``."""
    names = page("frameworks/langchain.md")
    assert {d.metadata["contract_type"] for d in names["narrowed"]} == {"SOW"}
    assert names["nothing"] == []


def test_the_agent_gives_each_caller_their_own_clause() -> None:
    """Alice (runtime context) gets the MSA clause, Bob (configurable) SOW, nobody the refusal."""
    names = page("agents.md")
    by_type = termination_clauses(names)
    assert names["alice"]["messages"][-1].content == by_type["MSA"]
    assert names["bob"]["messages"][-1].content == by_type["SOW"]
    assert names["nobody"]["messages"][-1].content == REFUSAL


def test_the_remembering_agent_keeps_its_thread_to_alice() -> None:
    """The checkpointed thread is Alice's: a request naming no principal on it is refused."""
    names = page("chat.md")
    with pytest.raises(AccessError):
        names["remembering"].invoke(
            names["ask"],
            config={"configurable": {**names["thread"], "access": {"contract_type": ["MSA"]}}},
        )


def test_each_engine_lets_ana_see_the_design_document_only() -> None:
    """Through her nested team Ana sees design and not payroll, under Cedar, Casbin and SpiceDB;
    after Cedar's update she sees nothing, and the SpiceDB scope reaches the prefilter."""
    spicedb_library()
    for name, key in (
        ("authorization/cedar.md", "result"),
        ("authorization/casbin.md", "casbin_result"),
        ("authorization/spicedb.md", "spicedb_result"),
    ):
        result = page(name)[key]
        assert [c.metadata["doc_id"] for c in result.allowed] == ["design"], name
        assert result.denied[0].stage == "authz"
        assert result.access_source.token
    assert page("authorization/cedar.md")["cedar_after"].allowed == []
    assert page("authorization/spicedb.md")["spicedb_scope"]["doc_id"].values == {"design"}


def test_the_llama_index_page_starts_with_the_guarded_query_engine() -> None:
    """The first LlamaIndex block shows the path that works: guarded_query_engine, and its
    engine returns MSA nodes only."""
    names = page("frameworks/llama_index.md")
    assert {n.node.metadata["contract_type"] for n in names["response"].source_nodes} == {"MSA"}
