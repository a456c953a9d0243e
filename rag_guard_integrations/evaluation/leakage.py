"""The leakage evaluation (``rag-guard eval leakage``): naive top-k against the LangChain and
LlamaIndex guarded paths on a synthetic corpus of near-identical contracts."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from rag_guard_integrations.evaluation.synthetic import Case, generate_cases, generate_corpus
from rag_guard_integrations.evaluation.tracking import untracked

if TYPE_CHECKING:
    from rag_guard_integrations.core.chunk import Chunk
    from rag_guard_integrations.evaluation.tracking import Track

Pipeline = Callable[[Case, int], list[dict[str, Any]]]


def score_case(
    case: Case, context: Sequence[dict[str, Any]], k: int, available: int
) -> dict[str, bool]:
    """Leak: any chunk of a type the principal may not see or of another clause. Recall: the
    asked clause of an allowed contract is there. Short: fewer than k while k were available."""
    wanted = [
        m
        for m in context
        if m["clause_id"] == case.clause_id and m["contract_type"] in case.allowed_types
    ]
    return {
        "leak": len(wanted) != len(context),
        "recall": bool(wanted),
        "short": len(context) < k <= available,
    }


def summarise(scores: Sequence[dict[str, bool]]) -> dict[str, float]:
    """Rates over all cases."""
    total = max(1, len(scores))
    return {
        "leakage_rate": sum(s["leak"] for s in scores) / total,
        "authorised_recall": sum(s["recall"] for s in scores) / total,
        "short_rate": sum(s["short"] for s in scores) / total,
    }


def build_pipelines(corpus: Sequence[Chunk], k: int) -> dict[str, Pipeline]:
    """The three retrieval paths over the same corpus and embedder, each returning metadata."""
    from langchain_core.documents import Document  # noqa: PLC0415
    from langchain_core.vectorstores import InMemoryVectorStore  # noqa: PLC0415
    from llama_index.core import VectorStoreIndex  # noqa: PLC0415
    from llama_index.core.schema import TextNode  # noqa: PLC0415

    from rag_guard_integrations import AccessContext, Guard  # noqa: PLC0415
    from rag_guard_integrations.langchain import GuardedRetriever, MiniLMEmbeddings  # noqa: PLC0415
    from rag_guard_integrations.llama_index import GuardPostprocessor, MiniLMEmbedding  # noqa: PLC0415
    from rag_guard_integrations.llama_index.pushdown import constraint_filters  # noqa: PLC0415

    guard = Guard.from_policy("contracts")
    store = InMemoryVectorStore(MiniLMEmbeddings())
    store.add_documents([Document(c.text, metadata=dict(c.metadata), id=c.id) for c in corpus])
    naive = store.as_retriever(search_kwargs={"k": k})
    guarded = GuardedRetriever(retriever=naive, guard=guard)
    nodes = [TextNode(text=c.text, metadata=dict(c.metadata), id_=c.id) for c in corpus]
    index = VectorStoreIndex(nodes, embed_model=MiniLMEmbedding())

    def access(case: Case) -> AccessContext:
        return AccessContext(contract_type=case.allowed_types)

    def run_naive(case: Case, k: int) -> list[dict[str, Any]]:
        return [d.metadata for d in naive.invoke(case.query, k=k)]

    def run_langchain(case: Case, k: int) -> list[dict[str, Any]]:
        return [d.metadata for d in guarded.invoke(case.query, k=k, access=access(case))]

    def run_llama_index(case: Case, k: int) -> list[dict[str, Any]]:
        ctx = access(case)
        constraints = guard.prefilter(case.query, ctx)
        if constraints is None:
            return []
        retriever = index.as_retriever(
            similarity_top_k=4 * k, filters=constraint_filters(constraints)
        )
        found = GuardPostprocessor(guard=guard, access=ctx).postprocess_nodes(
            retriever.retrieve(case.query), query_str=case.query
        )
        return [n.node.metadata for n in found[:k]]

    return {"naive": run_naive, "langchain": run_langchain, "llamaindex": run_llama_index}


def evaluate_leakage(
    contracts: int, cases: int, k: int, seed: int, track: Track = untracked
) -> dict[str, Any]:
    """Run every case through every pipeline and report the three rates per pipeline."""
    corpus = generate_corpus(contracts, seed)
    pipelines = build_pipelines(corpus, k)
    counts: dict[tuple[str, str], int] = {}
    for chunk in corpus:
        key = (chunk.metadata["clause_id"], chunk.metadata["contract_type"])
        counts[key] = counts.get(key, 0) + 1
    scores: dict[str, list[dict[str, bool]]] = {name: [] for name in pipelines}
    for case in track(generate_cases(cases, seed + 1), cases, "eval leakage"):
        available = sum(counts.get((case.clause_id, t), 0) for t in case.allowed_types)
        for name, pipeline in pipelines.items():
            scores[name].append(score_case(case, pipeline(case, k), k, available))
    return {
        "cases": cases,
        "contracts": contracts,
        "chunks": len(corpus),
        "k": k,
        "pipelines": {name: summarise(s) for name, s in scores.items()},
    }
