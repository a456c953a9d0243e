"""The LlamaIndex query paths of ``rag-guard eval prompt`` and what every LlamaIndex path
shares: each builds a real LlamaIndex app over the shared corpus and runs every case with
recording LLMs, a recorder of every instrumentation event, span and callback payload, and log
capture (the chat and agent paths are in :mod:`.llama_index_chat_paths`)."""

from __future__ import annotations

import asyncio
import itertools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from llama_index.core import Document, VectorStoreIndex
from llama_index.core.node_parser import SentenceWindowNodeParser
from llama_index.core.postprocessor import (
    MetadataReplacementPostProcessor,
    PrevNextNodePostprocessor,
)
from llama_index.core.retrievers import QueryFusionRetriever
from llama_index.core.schema import NodeRelationship, RelatedNodeInfo, TextNode

from rag_guard_integrations.evaluation.prompt.corpus import UNFILTERED_FETCH
from rag_guard_integrations.evaluation.prompt.harness import Observation, register_path
from rag_guard_integrations.evaluation.prompt.recording import canaries_in, capture_logs
from rag_guard_integrations.llama_index import (
    GuardedQueryEngine,
    GuardedRetriever,
    GuardPostprocessor,
    MiniLMEmbedding,
    guard_access,
    guarded_query_engine,
)
from rag_guard_integrations.llama_index.testing import InstrumentationRecorder, RecordingLLM

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, Sequence

    from llama_index.core.postprocessor.types import BaseNodePostprocessor
    from llama_index.core.schema import BaseNode

    from rag_guard_integrations.evaluation.prompt.corpus import PromptCase, PromptCorpus


@dataclass
class Turns:
    """What one case sent and received: every prompt, event and log line, and each answer."""

    prompts: list[str] = field(default_factory=list)
    events: list[str] = field(default_factory=list)
    logs: list[str] = field(default_factory=list)
    answers: list[str] = field(default_factory=list)

    def observation(self, corpus: PromptCorpus) -> Observation:
        """The harness's record of the case; refused when every answer was a refusal."""
        by_canary = {canary: chunk_id for chunk_id, canary in corpus.canary_of.items()}
        return Observation(
            prompt_texts=self.prompts,
            event_texts=self.events,
            log_texts=self.logs,
            answer=self.answers[-1] if self.answers else "",
            context_ids=sorted(by_canary[c] for c in canaries_in(self.prompts)),
            refused=bool(self.answers) and all(corpus.is_refusal(a) for a in self.answers),
        )


Plan = list[tuple[dict[str, Any], Turns, str]]
"""The turns to play, in order: whose access, where to record, what to ask."""


@dataclass(frozen=True)
class App:
    """A path's app: the recording LLMs and how one question is asked, sync and async."""

    llms: Sequence[Any]
    ask: Callable[[str], Any]
    aask: Callable[[str], Awaitable[Any]]


def play(app: App, plan: Plan, use_async: bool) -> None:
    """Ask every question of ``plan`` under its case's access, recording what the app shows."""
    if use_async:
        asyncio.run(_aplay(app, plan))
        return
    for access, turns, query in plan:
        for llm in app.llms:
            llm.prompts.clear()
        with InstrumentationRecorder() as seen, capture_logs() as logs, guard_access(access):
            answer = app.ask(query)
        _keep(turns, app.llms, seen, logs, answer)


async def _aplay(app: App, plan: Plan) -> None:
    for access, turns, query in plan:
        for llm in app.llms:
            llm.prompts.clear()
        with InstrumentationRecorder() as seen, capture_logs() as logs:
            async with guard_access(access):
                answer = await app.aask(query)
        _keep(turns, app.llms, seen, logs, answer)


def caller(case: PromptCase) -> dict[str, Any]:
    """The case's access with its principal, as ``guard_access`` takes it."""
    return {"principal": case.principal, **case.access}


def one_question_each(
    corpus: PromptCorpus, cases: Sequence[PromptCase], use_async: bool, app: App
) -> list[Observation]:
    """Every case as one question."""
    turns = [Turns() for _ in cases]
    play(app, [(caller(c), t, c.query) for c, t in zip(cases, turns, strict=True)], use_async)
    return [t.observation(corpus) for t in turns]


def _keep(
    turns: Turns, llms: Sequence[Any], seen: InstrumentationRecorder, logs: list[str], answer: Any
) -> None:
    turns.prompts.extend(p for llm in llms for p in llm.prompts)
    turns.events.extend(seen.texts)
    turns.logs.extend(logs)
    turns.answers.append(str(getattr(answer, "response", answer)))


def node_fields(corpus: PromptCorpus) -> list[dict[str, Any]]:
    """Per chunk the fields of its node; embedded by text alone, so the run's shared vectors
    apply."""
    return [
        {
            "id_": str(c.id),
            "text": c.text,
            "metadata": dict(c.metadata),
            "excluded_embed_metadata_keys": list(c.metadata),
        }
        for c in corpus.chunks
    ]


def clause_nodes(corpus: PromptCorpus) -> list[BaseNode]:
    """One TextNode per chunk."""
    return [TextNode(**fields) for fields in node_fields(corpus)]


def index_of(corpus: PromptCorpus, nodes: Sequence[BaseNode]) -> VectorStoreIndex:
    """A VectorStoreIndex over ``nodes`` with the corpus's embedder."""
    return VectorStoreIndex(list(nodes), embed_model=MiniLMEmbedding(corpus.embedder))


def ask_each(
    corpus: PromptCorpus,
    cases: Sequence[PromptCase],
    use_async: bool,
    build: Callable[[RecordingLLM], Any],
) -> list[Observation]:
    """One question per case to the query engine ``build`` makes around a recording LLM."""
    llm = RecordingLLM(echo=True)
    engine = build(llm)
    return one_question_each(corpus, cases, use_async, App([llm], engine.query, engine.aquery))


@register_path("llamaindex_naive")
def naive(corpus: PromptCorpus, cases: Sequence[PromptCase], use_async: bool) -> list[Observation]:
    """The unguarded baseline: ``index.as_query_engine()`` sends the top k to the LLM."""
    index = index_of(corpus, clause_nodes(corpus))
    return ask_each(
        corpus,
        cases,
        use_async,
        lambda llm: index.as_query_engine(llm=llm, similarity_top_k=corpus.k),
    )


@register_path("llamaindex_postprocessor")
def postprocessor(
    corpus: PromptCorpus, cases: Sequence[PromptCase], use_async: bool
) -> list[Observation]:
    """The README's postprocessor path: ``GuardPostprocessor`` in a ``GuardedQueryEngine``."""
    retriever = index_of(corpus, clause_nodes(corpus)).as_retriever(similarity_top_k=corpus.k)
    processors: list[BaseNodePostprocessor] = [GuardPostprocessor(guard=corpus.guard)]
    return ask_each(
        corpus,
        cases,
        use_async,
        lambda llm: GuardedQueryEngine.from_args(
            retriever, llm=llm, node_postprocessors=processors
        ),
    )


@register_path("llamaindex_query_engine")
def query_engine(
    corpus: PromptCorpus, cases: Sequence[PromptCase], use_async: bool
) -> list[Observation]:
    """``guarded_query_engine(index, guard)``: pushdown, over-fetch, refusal without the LLM."""
    index = index_of(corpus, clause_nodes(corpus))
    return ask_each(
        corpus,
        cases,
        use_async,
        lambda llm: guarded_query_engine(index, corpus.guard, llm=llm, similarity_top_k=corpus.k),
    )


@register_path("llamaindex_fusion")
def fusion(corpus: PromptCorpus, cases: Sequence[PromptCase], use_async: bool) -> list[Observation]:
    """A ``GuardedQueryEngine`` over a ``GuardedRetriever`` around a ``QueryFusionRetriever``:
    the sub-retriever's own events and callbacks must not show what the guard withholds. A
    composite gets no pushdown, so it over-fetches and the guard keeps ``k``."""
    fetched = UNFILTERED_FETCH * corpus.k
    sub = index_of(corpus, clause_nodes(corpus)).as_retriever(similarity_top_k=fetched)

    def build(llm: RecordingLLM) -> GuardedQueryEngine:
        fused = QueryFusionRetriever([sub], llm=llm, num_queries=1, similarity_top_k=fetched)
        guarded = GuardedRetriever(fused, corpus.guard, k=corpus.k)
        engine = GuardedQueryEngine.from_args(guarded, llm=llm)
        return cast("GuardedQueryEngine", engine)

    return ask_each(corpus, cases, use_async, build)


@register_path("llamaindex_sentence_window")
def sentence_window(
    corpus: PromptCorpus, cases: Sequence[PromptCase], use_async: bool
) -> list[Observation]:
    """Sentence nodes, their windows swapped in by ``MetadataReplacementPostProcessor`` after the
    guard; the engine judges the windows again before the LLM reads them."""
    documents = [Document(**fields) for fields in node_fields(corpus)]
    parser = SentenceWindowNodeParser.from_defaults()
    index = index_of(corpus, parser.get_nodes_from_documents(documents))
    windows = [MetadataReplacementPostProcessor(target_metadata_key="window")]
    return ask_each(
        corpus,
        cases,
        use_async,
        lambda llm: guarded_query_engine(
            index, corpus.guard, llm=llm, similarity_top_k=corpus.k, node_postprocessors=windows
        ),
    )


@register_path("llamaindex_prev_next")
def prev_next(
    corpus: PromptCorpus, cases: Sequence[PromptCase], use_async: bool
) -> list[Observation]:
    """Each contract's clauses linked as previous/next; ``PrevNextNodePostprocessor`` adds both
    neighbours after the guard (another clause of the contract, which the guard then withholds):
    the neighbours must reach neither the LLM nor the postprocessor's own spans and events."""
    index = index_of(corpus, chained(clause_nodes(corpus)))
    neighbours = [PrevNextNodePostprocessor(docstore=index.docstore, mode="both")]
    return ask_each(
        corpus,
        cases,
        use_async,
        lambda llm: guarded_query_engine(
            index, corpus.guard, llm=llm, similarity_top_k=corpus.k, node_postprocessors=neighbours
        ),
    )


def chained(nodes: list[BaseNode]) -> list[BaseNode]:
    """``nodes`` with each contract's consecutive clauses linked as previous and next."""
    for before, after in itertools.pairwise(nodes):
        if before.metadata["contract_id"] == after.metadata["contract_id"]:
            before.relationships[NodeRelationship.NEXT] = RelatedNodeInfo(node_id=after.node_id)
            after.relationships[NodeRelationship.PREVIOUS] = RelatedNodeInfo(node_id=before.node_id)
    return nodes
