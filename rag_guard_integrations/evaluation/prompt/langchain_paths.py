"""The LangChain paths of ``rag-guard eval prompt``: each builds a real app over the shared
corpus and runs every case through it (see ``langchain_runner`` for the recording)."""

from __future__ import annotations

import importlib.util
from typing import TYPE_CHECKING, Any

from langchain_core.output_parsers import StrOutputParser
from langchain_core.runnables import RunnableLambda, RunnablePassthrough

from rag_guard_integrations.evaluation.prompt.corpus import UNFILTERED_FETCH
from rag_guard_integrations.evaluation.prompt.harness import register_path
from rag_guard_integrations.evaluation.prompt.langchain_runner import (
    App,
    Caller,
    PlainRetriever,
    SimilarityFilter,
    access_config,
    agent_app,
    chain_app,
    guarded_tool,
    last_message,
    question,
    run_app,
    store_of,
)
from rag_guard_integrations.langchain import GuardedRetriever, MiniLMEmbeddings, build_rag_chain
from rag_guard_integrations.langchain.chain import PROMPT, format_docs
from rag_guard_integrations.langchain.testing import ToolCallingChat

if TYPE_CHECKING:
    from collections.abc import Sequence

    from rag_guard_integrations.evaluation.prompt.corpus import PromptCase, PromptCorpus
    from rag_guard_integrations.evaluation.prompt.harness import Observation


@register_path("langchain_naive")
def naive(corpus: PromptCorpus, cases: Sequence[PromptCase], use_async: bool) -> list[Observation]:
    """The unguarded baseline: top k from the store straight into the prompt (it must leak)."""
    model = ToolCallingChat()
    retriever = store_of(corpus).as_retriever(search_kwargs={"k": corpus.k})
    chain = (
        {"context": retriever | RunnableLambda(format_docs), "question": RunnablePassthrough()}
        | PROMPT
        | model
        | StrOutputParser()
    )
    return run_app(corpus, cases, use_async, chain_app(chain, model))


@register_path("langchain_lcel")
def lcel(corpus: PromptCorpus, cases: Sequence[PromptCase], use_async: bool) -> list[Observation]:
    """``build_rag_chain`` over a GuardedRetriever on an InMemoryVectorStore (pushdown)."""
    model = ToolCallingChat()
    guarded = GuardedRetriever(
        retriever=store_of(corpus).as_retriever(), guard=corpus.guard, k=corpus.k
    )
    return run_app(corpus, cases, use_async, chain_app(build_rag_chain(guarded, model), model))


@register_path("langchain_lcel_plain")
def lcel_plain(
    corpus: PromptCorpus, cases: Sequence[PromptCase], use_async: bool
) -> list[Observation]:
    """``build_rag_chain`` over a GuardedRetriever on a custom retriever with no pushdown."""
    model = ToolCallingChat()
    plain = PlainRetriever(store=store_of(corpus))
    guarded = GuardedRetriever(
        retriever=plain, guard=corpus.guard, k=corpus.k, fetch_k=UNFILTERED_FETCH * corpus.k
    )
    return run_app(corpus, cases, use_async, chain_app(build_rag_chain(guarded, model), model))


if importlib.util.find_spec("langchain_classic") is not None:

    @register_path("langchain_compression")
    def compression(
        corpus: PromptCorpus, cases: Sequence[PromptCase], use_async: bool
    ) -> list[Observation]:
        """The guarded form of compression: a GuardedRetriever over a
        ``ContextualCompressionRetriever``, so the guard judges the compressed text and the
        base retriever's output stays inside it."""
        from langchain_classic.retrievers import ContextualCompressionRetriever  # noqa: PLC0415

        model = ToolCallingChat()
        store = store_of(corpus)
        compressed = ContextualCompressionRetriever(
            base_compressor=SimilarityFilter(embeddings=MiniLMEmbeddings(corpus.embedder)),
            base_retriever=store.as_retriever(search_kwargs={"k": UNFILTERED_FETCH * corpus.k}),
        )
        guarded = GuardedRetriever(retriever=compressed, guard=corpus.guard, k=corpus.k)
        return run_app(corpus, cases, use_async, chain_app(build_rag_chain(guarded, model), model))


if importlib.util.find_spec("langchain") is not None and importlib.util.find_spec("langgraph"):

    @register_path("langchain_agent")
    def agent(
        corpus: PromptCorpus, cases: Sequence[PromptCase], use_async: bool
    ) -> list[Observation]:
        """``create_agent`` with the guarded retriever tool and ``GuardMiddleware``; access from
        the runtime context on even cases and from ``configurable`` on odd ones."""
        from langchain.agents import create_agent  # noqa: PLC0415

        from rag_guard_integrations.langchain import GuardMiddleware  # noqa: PLC0415

        model = ToolCallingChat()
        graph = create_agent(
            model,
            [guarded_tool(corpus)],
            middleware=[GuardMiddleware(corpus.guard)],
            context_schema=Caller,
        )
        return run_app(corpus, cases, use_async, agent_app(graph, model))

    @register_path("langgraph_toolnode")
    def toolnode(
        corpus: PromptCorpus, cases: Sequence[PromptCase], use_async: bool
    ) -> list[Observation]:
        """A LangGraph ``StateGraph``: a model node and a ``ToolNode`` with the guarded tool;
        access from ``configurable``."""
        from langgraph.graph import END, START, MessagesState, StateGraph  # noqa: PLC0415
        from langgraph.prebuilt import ToolNode, tools_condition  # noqa: PLC0415

        model = ToolCallingChat()
        tool = guarded_tool(corpus)
        bound = model.bind_tools([tool])

        def call_model(state: MessagesState) -> dict[str, Any]:
            return {"messages": [bound.invoke(state["messages"])]}

        async def acall_model(state: MessagesState) -> dict[str, Any]:
            return {"messages": [await bound.ainvoke(state["messages"])]}

        builder = StateGraph(MessagesState)
        builder.add_node("model", RunnableLambda(call_model, afunc=acall_model))
        builder.add_node("tools", ToolNode([tool]))
        builder.add_edge(START, "model")
        builder.add_conditional_edges("model", tools_condition, {"tools": "tools", END: END})
        builder.add_edge("tools", "model")
        app = App(
            builder.compile(), model, question, lambda case, n: access_config(case), last_message
        )
        return run_app(corpus, cases, use_async, app)


# The paths over a retriever without pushdown, one per channel that could carry withheld text.
from rag_guard_integrations.evaluation.prompt import langchain_channel_paths  # noqa: E402, F401
