"""The domain evaluation (``rag-guard eval domain``): how well the domain guard passes
in-domain queries and blocks other queries.

Each query retrieves its top ``k`` chunks from the bundled corpus with real MiniLM embeddings
(an exact in-process cosine index), then :meth:`DomainGuard.decide` runs on them with the
retrieval scores as the similarity. In-domain queries should pass; out-of-domain ones (the
bundled ones, or CLINC150 with ``--clinc``) should be refused. The guard knows the corpus's
identifiers (its ``identifier_keys`` metadata), as an application's guard built over its own
collection would. ``rag_guard_integrations/data/bis_products_queries.jsonl`` holds 224
in-domain product questions, about three for every product of the catalogue (``--queries``);
``bis_everyday_queries.jsonl`` questions as people type them, with everyday questions that name
the same products; ``bis_fresh_queries.jsonl`` and ``bis_final_queries.jsonl`` two sets written
apart from the policy's tuning, kept to measure it, and ``bis_families_check_queries.jsonl`` ten
product questions for every family and four everyday ones, written after the last tuning. A
query file whose lines carry a ``family`` (the product family, or ``everyday``) is also reported
family by family.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

from rag_guard_integrations.core.errors import ArgumentError
from rag_guard_integrations.evaluation.tracking import untracked

if TYPE_CHECKING:
    from collections.abc import Sequence

    from rag_guard_integrations.embeddings import Embedder
    from rag_guard_integrations.evaluation.tracking import Track
    from rag_guard_integrations.guards.domain import DomainGuard, DomainSignals
    from rag_guard_integrations.policy.schema import DomainSpec, Policy

K = 5
TARGET_PASS_RATE = 0.97
TARGET_BLOCK_RATE = 0.999
BATCH = 64  # queries embedded per call while the progress bar advances


def guard_for(
    policy: Policy, embedder: Embedder | None = None, corpus: str | None = None
) -> DomainGuard:
    """The policy's domain guard, knowing the identifiers of ``corpus`` when one is given, or a
    ValueError when the policy has no ``domain:`` section."""
    from rag_guard_integrations.evaluation.datasets import load_chunks  # noqa: PLC0415
    from rag_guard_integrations.guards.domain import (  # noqa: PLC0415
        DomainGuard,
        collection_identifiers,
    )

    identifiers: list[str] = []
    if corpus is not None and policy.domain is not None:
        identifiers = collection_identifiers(load_chunks(corpus), policy.domain.identifier_keys)
    guard = DomainGuard.from_policy(policy, embedder, identifiers)
    if guard is None:
        raise ArgumentError(
            f"policy {policy.name!r} has no domain: section; use one that has (bis)"
        )
    return guard


def collect_signals(
    guard: DomainGuard,
    corpus: str,
    queries: Sequence[str],
    k: int,
    track: Track = untracked,
    *,
    complete: bool = False,
) -> list[DomainSignals]:
    """Retrieve the top ``k`` chunks of ``corpus`` for each query and read the guard's signals
    (every signal with ``complete``, for re-judging at other thresholds)."""
    from rag_guard_integrations.evaluation.datasets import load_chunks  # noqa: PLC0415
    from rag_guard_integrations.vector_index import VectorIndex  # noqa: PLC0415

    if k < 1:
        raise ArgumentError(f"k={k!r} must be at least 1")
    index = VectorIndex(load_chunks(corpus), guard.embedder)
    batches = [queries[i : i + BATCH] for i in range(0, len(queries), BATCH)]
    return [
        guard.signals(q, chunks, complete=complete)
        for batch in track(batches, len(batches), "retrieve")
        for q, chunks in zip(batch, index.search_many(batch, k), strict=True)
    ]


def summarise(
    queries: Sequence[str],
    signals: Sequence[DomainSignals],
    guard: DomainGuard,
    *,
    in_domain: bool,
    families: Sequence[str | None] = (),
) -> dict[str, Any]:
    """Counts per tier and the rate of correct decisions for one set of queries, and per
    family when ``families`` (one per query) names any."""
    from rag_guard_integrations.guards.domain import REJECTING, TIERS, tier_for  # noqa: PLC0415

    spec = guard.spec
    tiers = [
        tier_for(s, spec.root_min_similarity, spec.min_similarity, spec.kinds) for s in signals
    ]
    right = [(tier not in REJECTING) == in_domain for tier in tiers]
    counts = Counter(tiers)
    rate = "pass_rate" if in_domain else "block_rate"
    out: dict[str, Any] = {
        "queries": len(tiers),
        "passed" if in_domain else "blocked": sum(right),
        rate: sum(right) / len(tiers) if tiers else None,
        "tiers": {tier: counts.get(tier, 0) for tier in TIERS},
        "rejected" if in_domain else "leaked": [
            _miss(queries[i], tiers[i], signals[i]) for i, ok in enumerate(right) if not ok
        ],
    }
    if any(family is not None for family in families):
        grouped: dict[str, list[bool]] = {}
        for family, ok in zip(families, right, strict=True):
            grouped.setdefault(family or "-", []).append(ok)
        out["families"] = {
            name: {"queries": len(oks), rate: sum(oks) / len(oks)} for name, oks in grouped.items()
        }
    return out


def _miss(query: str, tier: str, signals: DomainSignals) -> dict[str, Any]:
    root = list(signals.root) if signals.root is not None else None
    return {
        "query": query,
        "tier": tier,
        "similarity": signals.similarity,
        "root": root,
        "margin": signals.kind,
    }


def evaluate(
    policy_ref: str = "bis",
    *,
    corpus: str | None = None,
    queries_path: str | None = None,
    clinc_path: str | None = None,
    k: int = K,
    track: Track = untracked,
) -> dict[str, Any]:
    """The whole evaluation as a JSON-ready dict (the ``--json`` output)."""
    from rag_guard_integrations.evaluation import datasets  # noqa: PLC0415
    from rag_guard_integrations.policy.loader import load_policy  # noqa: PLC0415

    policy = load_policy(policy_ref)
    corpus = corpus or datasets.default_corpus(policy.name)
    guard = guard_for(policy, corpus=corpus)
    labelled = (
        datasets.read_labelled(queries_path) if queries_path else datasets.bundled_labelled(corpus)
    )
    inside = [q for q in labelled if q.in_domain]
    outside = [q for q in labelled if not q.in_domain]
    subsets: dict[str, int] = {}
    if clinc_path:
        splits = datasets.read_clinc(clinc_path)
        outside = [datasets.LabelledQuery(q, in_domain=False) for s in splits.values() for q in s]
        subsets = {name: len(items) for name, items in splits.items()}
    queries = [q.query for q in inside + outside]
    signals = collect_signals(guard, corpus, queries, k, track)
    parts = []
    for group, part, is_in in ((inside, signals[: len(inside)], True),
                               (outside, signals[len(inside) :], False)):  # fmt: skip
        texts, families = [q.query for q in group], [q.family for q in group]
        parts.append(summarise(texts, part, guard, in_domain=is_in, families=families))
    result_in, result_out = parts
    result_in["source"] = queries_path or f"bundled {corpus}_queries"
    result_out["source"] = clinc_path or result_in["source"]
    if subsets:
        result_out["subsets"] = subsets
    met = (result_in["pass_rate"] or 0.0) >= TARGET_PASS_RATE and (
        result_out["block_rate"] or 0.0
    ) >= TARGET_BLOCK_RATE
    return {
        "policy": policy.name,
        "corpus": corpus,
        "k": k,
        "thresholds": _thresholds(guard.spec),
        "in_domain": result_in,
        "out_of_domain": result_out,
        "targets": {"pass_rate": TARGET_PASS_RATE, "block_rate": TARGET_BLOCK_RATE, "met": met},
    }


def _thresholds(spec: DomainSpec) -> dict[str, float]:
    out = {"root_min_similarity": spec.root_min_similarity, "min_similarity": spec.min_similarity}
    if spec.kinds is not None:
        kinds = spec.kinds
        out |= {"kind_min_margin": kinds.min_margin, "kind_min_similarity": kinds.min_similarity,
                "everyday_margin": kinds.everyday_margin}  # fmt: skip
    return out
