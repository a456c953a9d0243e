"""``rag-guard demo``: the guards at work on the bundled corpora, offline, with real embeddings."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rag_guard_integrations.cli.console import heading, snippet, table
from rag_guard_integrations.cli.help import CommandHelp, add_command

if TYPE_CHECKING:
    import argparse

    from rag_guard_integrations.embeddings import Embedder

DOMAIN_QUERIES = (
    "Which standard applies to TMT rebar for construction?",
    "IS 2062 requirements",
    "What is 269 plus 1?",
    "BIS certification for packaged drinking water bottles",
    "What is the price of bitcoin today?",
    "ＢＩＴ\u200bCOIN trading tips",
    "Recommend a good movie for tonight",
    "what color is water",
)


SECTIONS = {
    "clause": "the clause guard over the bundled contract clauses: one question, three callers "
    "with different contract types, a table of what each may see and why",
    "langchain": "a LangChain chain (retriever | prompt | chat model) behind a GuardedRetriever: "
    "what reaches the model per caller, and the refusal",
    "llamaindex": "a LlamaIndex query engine over a VectorStoreIndex with a GuardPostprocessor, "
    "sync and async, per caller",
    "domain": "the domain guard's four tiers over the BIS/AIS standards catalogue: in-domain and "
    "off-topic queries, the deciding tier and the refusal",
    "combination": "the built-in default pack's combination rules: chunks harmless alone, "
    "revealing together, with where each label came from (metadata, recogniser)",
}
HELP = CommandHelp(
    summary="run every guard on the bundled corpora (offline)",
    reads="nothing but the bundled corpora (contract clauses, the BIS/AIS catalogue) and the "
    "MiniLM weights installed with the embeddings extra; no network.",
    reads_example="--section clause",
    prints="one titled section after another, each a table of decisions with the reason for each.",
    sections={"sections (in order)": "\n".join(f"{n}: {t}" for n, t in SECTIONS.items())},
    example="rag-guard demo --section combination",
)


def register(commands: argparse._SubParsersAction[Any]) -> None:
    """Add the ``demo`` sub-command."""
    parser = add_command(commands, "demo", HELP)
    parser.add_argument(
        "--section",
        choices=("all", *SECTIONS),
        default="all",
        help="run one section only (listed below)",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Print each section; the embedder loads once, from the installed package."""
    from rag_guard_integrations.embeddings import default_embedder  # noqa: PLC0415

    embedder = default_embedder()
    wanted = args.section
    if wanted in ("all", "clause"):
        from rag_guard_integrations.cli.demo_clause import clause_section  # noqa: PLC0415

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


def domain_section(embedder: Embedder) -> None:
    """In-domain and out-of-domain queries over the BIS catalogue, with the deciding tier."""
    from rag_guard_integrations import Guard, load_policy  # noqa: PLC0415
    from rag_guard_integrations.data import load_corpus  # noqa: PLC0415
    from rag_guard_integrations.guards.domain import collection_identifiers  # noqa: PLC0415
    from rag_guard_integrations.vector_index import VectorIndex  # noqa: PLC0415

    catalogue = load_corpus("bis")
    heading(f"Domain guard: four tiers over {len(catalogue)} BIS/AIS standards")
    index = VectorIndex(catalogue, embedder)
    policy = load_policy("bis")
    keys = policy.domain.identifier_keys if policy.domain else ()
    guard = Guard(policy, embedder=embedder, identifiers=collection_identifiers(catalogue, keys))
    rows = []
    for query in DOMAIN_QUERIES:
        result = guard.check(query, index.search(query, k=5))
        decision = result.query
        verdict = "accept" if decision.allowed else "reject"
        score = "-" if decision.similarity is None else f"{decision.similarity:.2f}"
        rows.append(
            [snippet(query, 44), verdict, decision.tier, score, snippet(decision.reason, 60)]
        )
    print(table(["query", "verdict", "tier", "sim", "why"], rows))
    refusal = guard.policy.domain.refusal if guard.policy.domain else ""
    print(f"\nRefusal shown for a rejected query:\n   {refusal}")
