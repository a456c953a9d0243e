"""The LlamaIndex chat and agent paths of ``rag-guard eval prompt``: callers taking turns on one
chat engine (with and without a principal), and an agent whose tool is a guarded engine."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from llama_index.core.agent.workflow import FunctionAgent
from llama_index.core.memory import ChatMemoryBuffer
from llama_index.core.tools import QueryEngineTool

from rag_guard_integrations.evaluation.prompt.harness import Observation, register_path
from rag_guard_integrations.evaluation.prompt.llama_index_paths import (
    App,
    Plan,
    Turns,
    caller,
    clause_nodes,
    index_of,
    play,
)
from rag_guard_integrations.evaluation.synthetic import QUESTIONS
from rag_guard_integrations.llama_index import guarded_chat_engine, guarded_query_engine
from rag_guard_integrations.llama_index.testing import RecordingLLM, ToolCallingLLM

if TYPE_CHECKING:
    from collections.abc import Sequence

    from rag_guard_integrations.evaluation.prompt.corpus import PromptCase, PromptCorpus

FOLLOW_UP = "And what exactly does it say?"


@register_path("llamaindex_chat")
def chat(corpus: PromptCorpus, cases: Sequence[PromptCase], use_async: bool) -> list[Observation]:
    """One ``condense_plus_context`` chat engine; two callers alternate turns on it (question,
    then an elliptical follow-up each), so a shared memory would carry one into the other."""
    llm = RecordingLLM(echo=True)
    index = index_of(corpus, clause_nodes(corpus))
    engine = guarded_chat_engine(index, corpus.guard, llm=llm, similarity_top_k=corpus.k)
    turns = [Turns() for _ in cases]
    plan: Plan = []
    for start in range(0, len(cases), 2):
        pair = list(zip(cases[start : start + 2], turns[start : start + 2], strict=True))
        plan += [(caller(case), record, case.query) for case, record in pair]
        plan += [(caller(case), record, FOLLOW_UP) for case, record in pair]
    play(App([llm], engine.chat, engine.achat), plan, use_async)
    return [t.observation(corpus) for t in turns]


@register_path("llamaindex_anonymous_chat")
def anonymous_chat(
    corpus: PromptCorpus, cases: Sequence[PromptCase], use_async: bool
) -> list[Observation]:
    """Two callers with no principal and the same allowlists take turns on one chat engine:
    another caller first asks about a different clause, then the case's caller asks and
    follows up. A memory shared between them would put the other caller's clause, forbidden
    to this case, into this case's prompt."""
    llm = RecordingLLM(echo=True)
    index = index_of(corpus, clause_nodes(corpus))
    engine = guarded_chat_engine(index, corpus.guard, llm=llm, similarity_top_k=corpus.k)
    turns = [Turns() for _ in cases]
    plan: Plan = []
    for case, record in zip(cases, turns, strict=True):
        other = Turns()  # the other caller's turns are not this case's to score
        plan += [
            (case.access, other, _other_question(case.query)),
            (case.access, record, case.query),
            (case.access, other, FOLLOW_UP),
            (case.access, record, FOLLOW_UP),
        ]
    play(App([llm], engine.chat, engine.achat), plan, use_async)
    return [t.observation(corpus) for t in turns]


def _other_question(query: str) -> str:
    """A question about the first clause, in policy order, that ``query`` does not ask about."""
    return next(asked[0] for asked in QUESTIONS.values() if query not in asked)


@register_path("llamaindex_agent")
def agent(corpus: PromptCorpus, cases: Sequence[PromptCase], use_async: bool) -> list[Observation]:
    """A ``FunctionAgent`` whose tool is a ``QueryEngineTool`` over a guarded engine; access
    from ``guard_access`` around the run. Every streamed workflow event is recorded too."""
    engine_llm, agent_llm = RecordingLLM(echo=True), ToolCallingLLM()
    engine = guarded_query_engine(
        index_of(corpus, clause_nodes(corpus)),
        corpus.guard,
        llm=engine_llm,
        similarity_top_k=corpus.k,
    )
    tool = QueryEngineTool.from_defaults(
        engine, name="contract_clauses", description="Answers questions about contract clauses."
    )
    runner = FunctionAgent(tools=[tool], llm=agent_llm, system_prompt="Answer from the tool.")
    streamed: list[str] = []

    async def ask(query: str) -> str:
        # An in-process memory per run: the agent's default one keeps an SQLite connection
        # thread that outlives each sync case's event loop and prints tracebacks at exit.
        handler = runner.run(user_msg=query, memory=ChatMemoryBuffer.from_defaults())
        streamed.extend([repr(event) async for event in handler.stream_events()])
        return str(await handler)

    app = App([engine_llm, agent_llm], lambda query: asyncio.run(ask(query)), ask)
    seen = []
    for case in cases:
        turns = Turns()
        streamed.clear()
        play(app, [(caller(case), turns, case.query)], use_async)
        turns.events.extend(streamed)
        seen.append(turns.observation(corpus))
    return seen
