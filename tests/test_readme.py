"""The README runs as written: its example per framework, in order, in one namespace, offline."""

from __future__ import annotations

import pytest
from docs_support import README, blocks, problem, run_page

pytestmark = pytest.mark.integration

REFUSAL = "No authorized matching clause found."


def test_the_readme_has_one_example_per_framework_of_about_twenty_lines() -> None:
    """A LangChain and a LlamaIndex block, each at most 25 lines; no block runs nowhere."""
    python = [b for b in blocks(README) if b.language == "python"]
    assert len(python) == 2
    assert "GuardedRetriever" in python[0].text
    assert "guarded_query_engine" in python[1].text
    assert all(len(b.text.splitlines()) <= 25 for b in python)
    assert [p for b in blocks(README) if (p := problem(b))] == []


def test_the_readme_examples_answer_per_caller_and_refuse_without_access() -> None:
    """The LangChain chain answers the MSA caller from an MSA clause and refuses a caller with
    no access; the LlamaIndex engine returns MSA nodes only, and the refusal."""
    names = run_page(README)
    msa = [d for d in names["docs"] if d.metadata["contract_type"] == "MSA"]
    assert names["chain"].invoke(names["question"], config=names["msa"]) in {
        d.page_content for d in msa
    }
    assert names["chain"].invoke(names["question"]) == REFUSAL
    assert {n.node.metadata["contract_type"] for n in names["response"].source_nodes} == {"MSA"}
