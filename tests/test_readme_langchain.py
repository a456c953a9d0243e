"""The README's LangChain section runs as written: its python blocks, in order, in one namespace."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
REFUSAL = "No authorized matching clause found."


def langchain_blocks() -> list[str]:
    """The python blocks between the README's langchain start and end markers."""
    text = README.read_text(encoding="utf-8")
    section = text.split("<!-- langchain:start", 1)[1].split("<!-- langchain:end -->", 1)[0]
    return re.findall(r"```python\n(.*?)```", section, flags=re.DOTALL)


@pytest.fixture(scope="module")
def namespace() -> dict[str, Any]:
    """What the README's blocks leave behind after running them all."""
    names: dict[str, Any] = {}
    for block in langchain_blocks():
        exec(compile(block, str(README), "exec"), names)
    return names


def test_the_section_has_the_blocks_it_promises() -> None:
    """Setup, chain, own LCEL, compression, agent and LangGraph blocks are all there."""
    blocks = langchain_blocks()
    assert len(blocks) == 6
    assert any("create_agent" in b and "context=Caller" in b for b in blocks)


def test_the_chain_answers_per_caller_and_refuses_without_access(namespace: dict[str, Any]) -> None:
    """The MSA caller's answer is the MSA clause; without access the answer is the refusal."""
    msa = [d for d in namespace["docs"] if d.metadata["contract_type"] == "MSA"]
    assert namespace["answer"] in {d.page_content for d in msa}
    assert namespace["refusal"] == REFUSAL
    assert namespace["out"]["result"].refusal == REFUSAL


def test_the_agent_gives_each_caller_their_own_clause(namespace: dict[str, Any]) -> None:
    """Alice (runtime context) gets the MSA clause, Bob (configurable) SOW, nobody the refusal."""
    by_type = {
        d.metadata["contract_type"]: d.page_content
        for d in namespace["docs"]
        if d.metadata["clause_id"] == "TERMINATION_NOTICE"
    }
    assert namespace["alice"]["messages"][-1].content == by_type["MSA"]
    assert namespace["bob"]["messages"][-1].content == by_type["SOW"]
    assert namespace["nobody"]["messages"][-1].content == REFUSAL
