"""The Haystack paths of ``rag-guard eval prompt``: a real Pipeline over an
InMemoryDocumentStore with the shared vectors, an embedding retriever without pushdown, a
prompt builder and a recording generator; every span and tag Haystack's tracing shows, with
content tracing on (each component's inputs and outputs), and every log line are recorded
beside the prompts."""

from __future__ import annotations

import asyncio
import os
from typing import TYPE_CHECKING, Any

# Haystack sends usage telemetry by default; the evaluation runs offline.
os.environ.setdefault("HAYSTACK_TELEMETRY_ENABLED", "False")

from haystack import Document, Pipeline
from haystack.components.builders import PromptBuilder
from haystack.components.retrievers.in_memory import InMemoryEmbeddingRetriever
from haystack.document_stores.in_memory import InMemoryDocumentStore

from rag_guard_integrations.evaluation.prompt.corpus import UNFILTERED_FETCH
from rag_guard_integrations.evaluation.prompt.harness import (
    Observation,
    register_path,
)
from rag_guard_integrations.evaluation.prompt.recording import (
    canaries_in,
    capture_logs,
)
from rag_guard_integrations.haystack import GuardedDocuments, GuardedRetriever
from rag_guard_integrations.haystack.testing import (
    RecordingGenerator,
    RecordingTracer,
)

if TYPE_CHECKING:
    from collections.abc import Sequence

    from rag_guard_integrations.evaluation.prompt.corpus import PromptCase, PromptCorpus

TEMPLATE = (
    "Answer from the context.\n{% for d in documents %}{{ d.content }}\n{% endfor %}"
    "Question: {{ query }}"
)


def pipeline(corpus: PromptCorpus, guarded: str) -> tuple[Pipeline, RecordingGenerator]:
    """retriever (no pushdown) -> prompt builder -> recording generator; ``guarded`` is
    ``"documents"`` (GuardedDocuments after the retriever), ``"retriever"`` (the retriever
    inside a GuardedRetriever) or ``""`` (unguarded)."""
    store = InMemoryDocumentStore()
    store.write_documents(
        [
            Document(
                id=str(c.id),
                content=c.text,
                meta=dict(c.metadata),
                embedding=corpus.vectors[c.text],
            )
            for c in corpus.chunks
        ]
    )
    fetched = UNFILTERED_FETCH * corpus.k
    generator = RecordingGenerator(echo=True)
    p = Pipeline()
    p.add_component("prompt", PromptBuilder(TEMPLATE, required_variables=["documents"]))
    p.add_component("llm", generator)
    if guarded == "retriever":
        inner = InMemoryEmbeddingRetriever(store)
        p.add_component(
            "retriever", GuardedRetriever(inner, corpus.guard, top_k=corpus.k, fetch_k=fetched)
        )
    else:
        top_k = fetched if guarded else corpus.k
        p.add_component("retriever", InMemoryEmbeddingRetriever(store, top_k=top_k))
    if guarded == "documents":
        p.add_component("guard", GuardedDocuments(corpus.guard, top_k=corpus.k))
        p.connect("retriever.documents", "guard.documents")
        p.connect("guard.documents", "prompt.documents")
    else:
        p.connect("retriever.documents", "prompt.documents")
    p.connect("prompt.prompt", "llm.prompt")
    return p, generator


def run_cases(
    corpus: PromptCorpus, cases: Sequence[PromptCase], use_async: bool, guarded: str
) -> list[Observation]:
    """Every case as one pipeline run, its access as the guard's ``access`` input."""
    p, generator = pipeline(corpus, guarded)
    seen: list[Observation] = []
    for case in cases:
        generator.prompts.clear()
        vector = corpus.embedder.embed_query(case.query)
        access = {"principal": case.principal, **case.access}
        data: dict[str, Any] = {
            "retriever": {"query_embedding": vector},
            "prompt": {"query": case.query},
        }
        if guarded == "documents":
            data["guard"] = {"query": case.query, "access": access}
        elif guarded == "retriever":
            data["retriever"].update(query=case.query, access=access)
        with RecordingTracer(content=True) as traced, capture_logs() as logs:
            out = asyncio.run(p.run_async(data)) if use_async else p.run(data)
        seen.append(_observation(corpus, generator.prompts, traced.texts, logs, out))
    return seen


def _observation(
    corpus: PromptCorpus, prompts: list[str], events: list[str], logs: list[str], out: Any
) -> Observation:
    by_canary = {canary: chunk_id for chunk_id, canary in corpus.canary_of.items()}
    refusal = out.get("guard", out.get("retriever", {})).get("refusal")
    answer = refusal if refusal is not None else out.get("llm", {}).get("replies", [""])[0]
    return Observation(
        prompt_texts=list(prompts),
        event_texts=events,
        log_texts=logs,
        answer=answer,
        context_ids=sorted(by_canary[c] for c in canaries_in(prompts)),
        refused=corpus.is_refusal(answer),
    )


@register_path("haystack_naive")
def naive(corpus: PromptCorpus, cases: Sequence[PromptCase], use_async: bool) -> list[Observation]:
    """The unguarded baseline: the retriever's top k straight into the prompt (it must leak)."""
    return run_cases(corpus, cases, use_async, guarded="")


@register_path("haystack_documents")
def documents(
    corpus: PromptCorpus, cases: Sequence[PromptCase], use_async: bool
) -> list[Observation]:
    """``GuardedDocuments`` between the retriever and the prompt builder: 32 x k fetched
    without pushdown, the allowed k go on, the refusal (no generator call) when none pass. The
    retriever is a pipeline node, so content tracing records its unchecked output."""
    return run_cases(corpus, cases, use_async, guarded="documents")


@register_path("haystack_retriever")
def retriever(
    corpus: PromptCorpus, cases: Sequence[PromptCase], use_async: bool
) -> list[Observation]:
    """``GuardedRetriever`` around the embedding retriever: 32 x k fetched inside the
    component, out of the pipeline's tracing, the allowed k go on."""
    return run_cases(corpus, cases, use_async, guarded="retriever")
