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
    """Setup, chain, own LCEL, pinned access, compression, agent and LangGraph blocks."""
    blocks = langchain_blocks()
    assert len(blocks) == 7
    assert any("create_agent" in b and "context=Caller" in b for b in blocks)
    assert any("answer_or_refuse" in b for b in blocks)
    assert any("pin_access=True" in b for b in blocks)


def test_the_own_chain_refuses_without_asking_the_model(namespace: dict[str, Any]) -> None:
    """``answer_or_refuse`` gives the refusal to a caller with no access; ``guard_results``
    holds the full result of the MSA request."""
    assert namespace["own_refusal"] == REFUSAL
    assert namespace["results"][-1].allowed[0].metadata["contract_type"] == "MSA"


def test_a_pinned_retriever_only_narrows(namespace: dict[str, Any]) -> None:
    """The pinned tenant returns SOW for a SOW-or-NDA call and nothing for ``access=None``."""
    assert {d.metadata["contract_type"] for d in namespace["narrowed"]} == {"SOW"}
    assert namespace["nothing"] == []


def test_the_remembering_agent_keeps_its_thread_to_alice(namespace: dict[str, Any]) -> None:
    """The checkpointed thread is Alice's: Bob on it is refused."""
    from rag_guard_integrations.core.errors import AccessError

    bob = {"principal": "bob", "contract_type": ["SOW"]}
    with pytest.raises(AccessError):
        namespace["remembering"].invoke(
            namespace["ask"], config={"configurable": {**namespace["thread"], "access": bob}}
        )


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
