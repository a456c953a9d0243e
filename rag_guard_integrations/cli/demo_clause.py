"""The clause part of ``rag-guard demo``: the three termination-notice cases, naive top-k
against what the clause guard passes."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rag_guard_integrations.cli.console import heading, snippet, table

if TYPE_CHECKING:
    from rag_guard_integrations.core.chunk import Chunk
    from rag_guard_integrations.core.decisions import GuardResult
    from rag_guard_integrations.embeddings import Embedder

QUERY = "What is the termination notice period?"
TOP_K = 5
CASES: tuple[tuple[str, frozenset[str]], ...] = (
    ("MSA", frozenset({"MSA"})),
    ("SOW", frozenset({"SOW"})),
    ("nothing", frozenset()),
)


def clause_section(embedder: Embedder) -> None:
    """The three termination-notice cases: naive top-k against what the clause guard passes."""
    from rag_guard_integrations import AccessContext, Guard  # noqa: PLC0415
    from rag_guard_integrations.data import load_corpus  # noqa: PLC0415
    from rag_guard_integrations.vector_index import VectorIndex  # noqa: PLC0415

    heading(f"Clause guard: {QUERY!r} over {len(load_corpus('contracts'))} contract clauses")
    index = VectorIndex(load_corpus("contracts"), embedder)
    guard = Guard.from_policy("contracts")
    candidates = index.search(QUERY, k=4 * TOP_K)
    for name, allowed in CASES:
        access = AccessContext(principal=f"user-{name}", contract_type=allowed) if allowed else None
        result = guard.check(QUERY, candidates, access=access)
        print(
            f"\n-- caller may see: {name}   (intents detected: {', '.join(result.query.intents)})"
        )
        print(decision_table(result, candidates[:TOP_K]))
        print(context_line(result))


def decision_table(result: GuardResult, shown: list[Chunk]) -> str:
    """Naive top-k rows with the guard's verdict, plus any chunk that passed from the over-fetch."""
    rows = []
    for decision in result.decisions:
        if decision.chunk not in shown and not decision.allowed:
            continue
        meta = decision.chunk.metadata
        rank = shown.index(decision.chunk) + 1 if decision.chunk in shown else "-"
        verdict = "PASS" if decision.allowed else f"drop ({decision.stage})"
        why = "" if decision.allowed else decision.reason
        rows.append(
            [
                rank,
                f"{decision.chunk.score:.3f}",
                meta.get("contract_type"),
                meta.get("clause_id"),
                verdict,
                snippet(why, 58),
            ]
        )
    return table(["naive rank", "score", "type", "clause", "guard", "why dropped"], rows)


def context_line(result: GuardResult) -> str:
    """What reaches the LLM: the allowed text, or the refusal."""
    if result.refusal is not None:
        return f"   LLM context: (none) -> answer: {result.refusal!r}"
    return "   LLM context: " + " | ".join(snippet(c.text, 100) for c in result.allowed)
