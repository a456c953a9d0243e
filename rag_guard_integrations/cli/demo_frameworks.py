"""The framework part of ``rag-guard demo``: the three termination-notice cases through a
LangChain LCEL chain and a LlamaIndex query engine.

No model server is needed: the "LLM" in both is a stand-in that answers by quoting the context it
was given, which is exactly what shows whether a guard kept the wrong clause out.
"""

from __future__ import annotations

import asyncio
from typing import Any

from rag_guard_integrations.cli.console import heading, snippet, table
from rag_guard_integrations.cli.demo_clause import CASES, QUERY, TOP_K


def _access(allowed: frozenset[str]) -> dict[str, Any] | None:
    return {"contract_type": sorted(allowed)} if allowed else None


def langchain_section() -> None:
    """GuardedRetriever over an InMemoryVectorStore in an LCEL chain; access via configurable."""
    from langchain_core.documents import Document  # noqa: PLC0415
    from langchain_core.vectorstores import InMemoryVectorStore  # noqa: PLC0415

    from rag_guard_integrations import Guard  # noqa: PLC0415
    from rag_guard_integrations.data import load_corpus  # noqa: PLC0415
    from rag_guard_integrations.langchain import GuardedRetriever, MiniLMEmbeddings  # noqa: PLC0415
    from rag_guard_integrations.langchain.chain import build_rag_chain  # noqa: PLC0415
    from rag_guard_integrations.langchain.testing import EchoContextChat  # noqa: PLC0415

    heading("LangChain: retriever | format_docs | prompt | chat model, with GuardedRetriever")
    store = InMemoryVectorStore(MiniLMEmbeddings())
    store.add_documents(
        [Document(c.text, metadata=dict(c.metadata), id=c.id) for c in load_corpus("contracts")]
    )
    base = store.as_retriever(search_kwargs={"k": TOP_K})
    retriever = GuardedRetriever(retriever=base, guard=Guard.from_policy("contracts"))
    chain = build_rag_chain(retriever, EchoContextChat())
    rows = []
    for name, allowed in CASES:
        config: Any = {"configurable": {"access": _access(allowed)}}
        answer = chain.invoke(QUERY, config=config)
        events = asyncio.run(_guard_events(chain, config))
        naive = base.invoke(QUERY)[0].metadata["contract_type"]
        rows.append([name, naive, snippet(answer, 62), events])
    print(table(["caller may see", "naive top-1 from", "chain answer", "guard events"], rows))
    print("   (the stand-in chat model answers with the context it receives)")


async def _guard_events(chain: Any, config: Any) -> int:
    """How many ``rag_guard_result`` custom events ``astream_events`` shows for one run."""
    count = 0
    async for event in chain.astream_events(QUERY, config=config, version="v2"):
        count += event["event"] == "on_custom_event" and event["name"] == "rag_guard_result"
    return count


def llama_index_section() -> None:
    """GuardPostprocessor inside ``index.as_query_engine``; access per query via guard_access."""
    from llama_index.core import VectorStoreIndex  # noqa: PLC0415
    from llama_index.core.llms import MockLLM  # noqa: PLC0415
    from llama_index.core.schema import TextNode  # noqa: PLC0415

    from rag_guard_integrations import Guard  # noqa: PLC0415
    from rag_guard_integrations.data import load_corpus  # noqa: PLC0415
    from rag_guard_integrations.llama_index import (  # noqa: PLC0415
        GuardedQueryEngine,
        GuardPostprocessor,
        MiniLMEmbedding,
        query_with_access,
    )

    heading("LlamaIndex: a query engine over VectorStoreIndex with a GuardPostprocessor")
    nodes = [
        TextNode(id_=c.id, text=c.text, metadata=dict(c.metadata)) for c in load_corpus("contracts")
    ]
    index = VectorStoreIndex(nodes, embed_model=MiniLMEmbedding())
    postprocessor = GuardPostprocessor(guard=Guard.from_policy("contracts"))
    engine = GuardedQueryEngine.from_args(
        index.as_retriever(similarity_top_k=TOP_K),
        llm=MockLLM(),
        node_postprocessors=[postprocessor],
    )
    rows = []
    for name, allowed in CASES:
        response = query_with_access(engine, QUERY, _access(allowed))
        sources = [n.node.metadata["contract_type"] for n in response.source_nodes]
        context = " | ".join(n.node.get_content() for n in response.source_nodes)
        rows.append([name, ", ".join(sources) or "-", snippet(context or str(response), 70)])
    print(table(["caller may see", "nodes reaching the LLM", "context / answer"], rows))
    print("   (when no node passes, GuardedQueryEngine answers with the refusal; no LLM call)")
