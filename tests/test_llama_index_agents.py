"""Tests for agents over a guarded engine: the refusal as tool output, and guard_access reaching
FunctionAgent and AgentWorkflow tool calls (a stand-in function-calling LLM)."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

import pytest
from llama_index.core.agent.workflow import AgentWorkflow, FunctionAgent
from llama_index.core.tools import QueryEngineTool
from llama_index_support import (
    MSA_CLAUSE,
    QUERY,
    REFUSAL,
    SOW_CLAUSE,
    RecordingLLM,
    contracts_index,
)

from rag_guard_integrations import Guard
from rag_guard_integrations.llama_index import guard_access, guarded_query_engine
from rag_guard_integrations.llama_index.testing import ToolCallingLLM

if TYPE_CHECKING:
    from llama_index.core import VectorStoreIndex

    from rag_guard_integrations.embeddings import MiniLMEmbedder

MSA = {"principal": "alice", "contract_type": ["MSA"]}
SOW = {"principal": "bob", "contract_type": ["SOW"]}


@pytest.fixture(scope="module")
def index(embedder: MiniLMEmbedder) -> VectorStoreIndex:
    return contracts_index(embedder)


@pytest.fixture(scope="module")
def tool(index: VectorStoreIndex) -> QueryEngineTool:
    """A query engine tool whose engine answers with the prompt, context included."""
    engine = guarded_query_engine(index, Guard.from_policy("contracts"), llm=RecordingLLM())
    return QueryEngineTool.from_defaults(
        engine, name="contracts", description="Answers questions about contract clauses."
    )


def test_query_engine_tool_returns_the_refusal(tool: QueryEngineTool) -> None:
    """Called for a caller with no access, the tool's output is the refusal text."""
    with guard_access({}):
        output = tool.call(QUERY)
    assert output.content == REFUSAL
    assert output.is_error is False


async def test_async_query_engine_tool_returns_allowed_nodes_only(tool: QueryEngineTool) -> None:
    """acall under an MSA caller's access sees only the MSA clause."""
    async with guard_access(MSA):
        output = await tool.acall(QUERY)
    nodes = output.raw_output.source_nodes
    assert [n.node.metadata["contract_type"] for n in nodes] == ["MSA"]


async def run_agent(agent: FunctionAgent | AgentWorkflow, access: dict[str, object]) -> str:
    async with guard_access(access):
        return str(await agent.run(user_msg=QUERY))


@pytest.mark.parametrize("kind", ["function_agent", "agent_workflow"])
async def test_guard_access_reaches_agent_tool_calls(tool: QueryEngineTool, kind: str) -> None:
    """Concurrent agent runs each get their own caller's clause through the tool, and a caller
    with no access gets the refusal as the agent's answer."""
    llm = ToolCallingLLM()
    agent = FunctionAgent(tools=[tool], llm=llm, system_prompt="Answer from the tool.")
    runner: FunctionAgent | AgentWorkflow = (
        agent if kind == "function_agent" else AgentWorkflow(agents=[agent])
    )
    msa, sow, nobody = await asyncio.gather(
        run_agent(runner, MSA), run_agent(runner, SOW), run_agent(runner, {})
    )
    assert nobody == REFUSAL
    assert MSA_CLAUSE in msa
    assert SOW_CLAUSE not in msa
    assert SOW_CLAUSE in sow
    assert MSA_CLAUSE not in sow
    assert REFUSAL in llm.prompts  # the model was handed the refusal as the tool's output


def test_sync_callers_in_threads_get_their_own_tool_output(tool: QueryEngineTool) -> None:
    """The tool called from two threads under two accesses answers each one for themselves."""
    from concurrent.futures import ThreadPoolExecutor

    def call(access: dict[str, object]) -> list[str]:
        with guard_access(access):
            output = tool.call(QUERY)
        return [n.node.metadata["contract_type"] for n in output.raw_output.source_nodes]

    with ThreadPoolExecutor(max_workers=2) as pool:
        msa, sow = pool.map(call, [MSA, SOW])
    assert (msa, sow) == (["MSA"], ["SOW"])
