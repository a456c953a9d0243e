"""``rag-guard demo``: the guards at work on the bundled corpora, offline, with real embeddings."""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING, Any

from rag_guard_integrations.cli.output import table

if TYPE_CHECKING:
    import argparse

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
DOMAIN_QUERIES = (
    "Which standard applies to TMT rebar for construction?",
    "IS 2062 requirements",
    "BIS certification for packaged drinking water bottles",
    "What is the price of bitcoin today?",
    "ＢＩＴ\u200bCOIN trading tips",
    "Recommend a good movie for tonight",
    "what color is water",
)


def register(commands: argparse._SubParsersAction[Any]) -> None:
    """Add the ``demo`` sub-command."""
    parser = commands.add_parser("demo", help="run every guard on the bundled corpora (offline)")
    parser.add_argument(
        "--section",
        choices=("all", "clause", "langchain", "llamaindex", "domain", "combination"),
        default="all",
        help="run one section only",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Print each section; the embedder loads once, from the installed package."""
    from rag_guard_integrations.embeddings import default_embedder  # noqa: PLC0415

    embedder = default_embedder()
    wanted = args.section
    if wanted in ("all", "clause"):
        clause_section(embedder)
    if wanted in ("all", "langchain"):
        from rag_guard_integrations.cli.demo_frameworks import langchain_section  # noqa: PLC0415

        langchain_section()
    if wanted in ("all", "llamaindex"):
        from rag_guard_integrations.cli.demo_frameworks import llama_index_section  # noqa: PLC0415

        llama_index_section()
    if wanted in ("all", "domain"):
        domain_section(embedder)
    if wanted in ("all", "combination"):
        from rag_guard_integrations.cli.demo_combination import combination_section  # noqa: PLC0415

        combination_section()
    return 0


def heading(text: str) -> None:
    """A section heading."""
    print(f"\n{'=' * 78}\n{text}\n{'=' * 78}")


def snippet(text: str, width: int = 60) -> str:
    """One line of at most ``width`` characters."""
    return textwrap.shorten(" ".join(text.split()), width=width, placeholder="...")


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


def domain_section(embedder: Embedder) -> None:
    """In-domain and out-of-domain queries over the BIS catalogue, with the deciding tier."""
    from rag_guard_integrations import Guard  # noqa: PLC0415
    from rag_guard_integrations.data import load_corpus  # noqa: PLC0415
    from rag_guard_integrations.vector_index import VectorIndex  # noqa: PLC0415

    catalogue = load_corpus("bis")
    heading(f"Domain guard: four tiers over {len(catalogue)} BIS/AIS standards")
    index = VectorIndex(catalogue, embedder)
    guard = Guard.from_policy("bis", embedder=embedder)
    rows = []
    for query in DOMAIN_QUERIES:
        result = guard.check(query, index.search(query, k=TOP_K))
        decision = result.query
        verdict = "accept" if decision.allowed else "reject"
        score = "-" if decision.similarity is None else f"{decision.similarity:.2f}"
        rows.append(
            [snippet(query, 44), verdict, decision.tier, score, snippet(decision.reason, 60)]
        )
    print(table(["query", "verdict", "tier", "sim", "why"], rows))
    refusal = guard.policy.domain.refusal if guard.policy.domain else ""
    print(f"\nRefusal shown for a rejected query:\n   {refusal}")
