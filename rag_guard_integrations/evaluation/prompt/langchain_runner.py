"""How a LangChain app runs one ``rag-guard eval prompt`` case: the recording model, callback
handler and tracer, the ``astream_events`` consumer and log capture around each call, and the
retrievers the paths share."""

from __future__ import annotations

import asyncio
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from langchain_core.callbacks import (
    CallbackManagerForRetrieverRun,  # noqa: TC002 - pydantic
    Callbacks,  # noqa: TC002 - pydantic
)
from langchain_core.documents import BaseDocumentCompressor, Document
from langchain_core.embeddings import Embeddings  # noqa: TC002 - pydantic
from langchain_core.retrievers import BaseRetriever
from langchain_core.vectorstores import InMemoryVectorStore
from pydantic import ConfigDict

from rag_guard_integrations.evaluation.prompt.harness import Observation
from rag_guard_integrations.evaluation.prompt.recording import canaries_in, capture_logs
from rag_guard_integrations.langchain import MiniLMEmbeddings
from rag_guard_integrations.langchain.testing import (
    RecordingHandler,
    RecordingTracer,
    ToolCallingChat,
    payload_text,
)

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from langchain_core.messages import BaseMessage
    from langchain_core.runnables import Runnable, RunnableConfig

    from rag_guard_integrations.engine.guard import Guard
    from rag_guard_integrations.evaluation.prompt.corpus import PromptCase, PromptCorpus


@dataclass(frozen=True)
class App:
    """One path's app: the runnable, its recording model, and how a case becomes a call.

    ``observe`` wraps each call and yields a list it fills with what other observers saw (a
    tracer the environment created); ``also_forbidden`` are canaries no case may see on this
    path besides its own forbidden ones.
    """

    runnable: Runnable[Any, Any]
    model: ToolCallingChat
    inputs: Callable[[PromptCase], Any]
    config: Callable[[PromptCase, int], RunnableConfig]
    answer: Callable[[Any], str]
    call_kwargs: Callable[[PromptCase, int], dict[str, Any]] = lambda case, number: {}
    observe: Callable[[], AbstractContextManager[list[str]]] = lambda: nullcontext([])
    also_forbidden: frozenset[str] = frozenset()


@dataclass
class Caller:
    """An agent's runtime context: who is asking."""

    access: dict[str, Any]


def access_config(case: PromptCase) -> RunnableConfig:
    """The case's access (with its principal) as ``configurable["access"]``."""
    return {"configurable": {"access": {"principal": case.principal, **case.access}}}


def question(case: PromptCase) -> dict[str, Any]:
    """The case's query as an agent's input."""
    return {"messages": [("user", case.query)]}


def last_message(output: Any) -> str:
    """The content of an agent's last message."""
    messages = (output or {}).get("messages") or []
    return str(messages[-1].content) if messages else ""


TOOL = "contract_clauses"


def chain_app(runnable: Runnable[str, str], model: ToolCallingChat, **extra: Any) -> App:
    """An app whose input is the query, with the case's access in ``configurable``."""
    return App(
        runnable, model, lambda case: case.query, lambda case, n: access_config(case), str, **extra
    )


def guarded_tool(
    corpus: PromptCorpus,
    retriever: BaseRetriever | None = None,
    guard: Guard | None = None,
    **params: Any,
) -> Any:
    """The guarded retriever tool over ``retriever`` (default: the store, with pushdown) and
    ``guard`` (default: the corpus's)."""
    from rag_guard_integrations.langchain import create_guarded_retriever_tool  # noqa: PLC0415

    return create_guarded_retriever_tool(
        retriever if retriever is not None else store_of(corpus).as_retriever(),
        guard if guard is not None else corpus.guard,
        name=TOOL,
        description="Search the contract clauses the caller may see.",
        k=corpus.k,
        **params,
    )


def agent_app(graph: Runnable[Any, Any], model: ToolCallingChat, **extra: Any) -> App:
    """An agent app whose access comes from the runtime context on even cases and from
    ``configurable`` on odd ones."""

    def config(case: PromptCase, number: int) -> RunnableConfig:
        empty: RunnableConfig = {}
        return empty if number % 2 == 0 else access_config(case)

    def context(case: PromptCase, number: int) -> dict[str, Any]:
        access = {"principal": case.principal, **case.access}
        return {"context": Caller(access=access)} if number % 2 == 0 else {}

    return App(graph, model, question, config, last_message, context, **extra)


class PlainRetriever(BaseRetriever):
    """A custom retriever with no pushdown: top ``k`` by similarity over the whole store."""

    store: InMemoryVectorStore
    k: int = 4

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun, **kwargs: Any
    ) -> list[Document]:
        return self.store.similarity_search(query, k=kwargs.get("k", self.k))


class SimilarityFilter(BaseDocumentCompressor):
    """A compressor that keeps the Documents whose embedding is close enough to the query's."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    embeddings: Embeddings
    threshold: float = 0.1

    def compress_documents(
        self, documents: Sequence[Document], query: str, callbacks: Callbacks | None = None
    ) -> Sequence[Document]:
        """The documents at or above ``threshold`` cosine similarity, in their order."""
        wanted = self.embeddings.embed_query(query)
        vectors = self.embeddings.embed_documents([d.page_content for d in documents])
        return [
            d
            for d, v in zip(documents, vectors, strict=True)
            if sum(a * b for a, b in zip(wanted, v, strict=True)) >= self.threshold
        ]


def store_of(corpus: PromptCorpus) -> InMemoryVectorStore:
    """An InMemoryVectorStore over the corpus, with the vectors computed once for the run."""
    store = InMemoryVectorStore(MiniLMEmbeddings(corpus.embedder))
    store.add_documents(
        [Document(c.text, metadata=dict(c.metadata), id=c.id) for c in corpus.chunks]
    )
    return store


def run_app(
    corpus: PromptCorpus, cases: Sequence[PromptCase], use_async: bool, app: App
) -> list[Observation]:
    """Every case through ``app``, one at a time so each observation is the case's own."""
    if use_async:
        return asyncio.run(_arun_all(corpus, cases, app))
    seen = []
    for number, case in enumerate(cases):
        handler, tracer = RecordingHandler(), RecordingTracer()
        app.model.received.clear()
        config: RunnableConfig = {**app.config(case, number), "callbacks": [handler, tracer]}
        with capture_logs() as logs, app.observe() as others:
            output = app.runnable.invoke(app.inputs(case), config, **app.call_kwargs(case, number))
        seen.append(
            _observation(
                corpus, app, output, handler=handler, tracer=tracer, events=others, logs=logs
            )
        )
    return seen


async def _arun_all(
    corpus: PromptCorpus, cases: Sequence[PromptCase], app: App
) -> list[Observation]:
    seen = []
    for number, case in enumerate(cases):
        handler, tracer = RecordingHandler(), RecordingTracer()
        app.model.received.clear()
        config: RunnableConfig = {**app.config(case, number), "callbacks": [handler, tracer]}
        events: list[str] = []
        output: Any = None
        with capture_logs() as logs, app.observe() as others:
            stream = app.runnable.astream_events(
                app.inputs(case), config, version="v2", **app.call_kwargs(case, number)
            )
            async for event in stream:
                events.append(payload_text(event))
                if event["event"] == "on_chain_end" and not event["parent_ids"]:
                    output = event["data"].get("output")
        seen.append(
            _observation(
                corpus,
                app,
                output,
                handler=handler,
                tracer=tracer,
                events=[*events, *others],
                logs=logs,
            )
        )
    return seen


def _observation(
    corpus: PromptCorpus,
    app: App,
    output: Any,
    *,
    handler: RecordingHandler,
    tracer: RecordingTracer,
    events: list[str],
    logs: list[str],
) -> Observation:
    prompts = [_text(m) for messages in app.model.received for m in messages]
    by_canary = {canary: chunk_id for chunk_id, canary in corpus.canary_of.items()}
    answer = app.answer(output)
    return Observation(
        prompt_texts=prompts,
        event_texts=[*handler.payloads, *tracer.texts(), *events],
        log_texts=logs,
        answer=answer,
        context_ids=sorted(by_canary[c] for c in canaries_in(prompts) if c in by_canary),
        refused=corpus.is_refusal(answer),
        also_forbidden=app.also_forbidden,
    )


def _text(message: BaseMessage) -> str:
    calls = getattr(message, "tool_calls", None)
    return f"{message.content}{calls!r}" if calls else str(message.content)
