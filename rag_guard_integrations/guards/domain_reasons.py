"""What the domain guard says about a decision: one readable reason and the evidence behind it.

Example:
    >>> from rag_guard_integrations import load_policy
    >>> from rag_guard_integrations.guards.domain import DomainSignals
    >>> spec = load_policy("bis").domain
    >>> reason("blocklist", DomainSignals(term="bitcoin"), spec)
    "The query mentions 'bitcoin', which the policy lists as out of domain."
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Sequence

    from rag_guard_integrations.core.chunk import Chunk
    from rag_guard_integrations.guards.domain import DomainSignals
    from rag_guard_integrations.policy.schema import DomainSpec


def reason(tier: str, signals: DomainSignals, spec: DomainSpec) -> str:
    """One readable sentence saying why ``tier`` decided as it did."""
    score = signals.similarity
    if tier == "blocklist":
        return f"The query mentions {signals.term!r}, which the policy lists as out of domain."
    if signals.identifier is not None:
        value, key, position = signals.identifier
        where = (
            "an identifier of the collection"
            if position is None
            else (f"which retrieved chunk {position} carries as {key!r}")
        )
        return f"The query names {value}, {where}."
    if score is None:
        return "Nothing was retrieved to compare the query with, so it counts as out of domain."
    if signals.root is not None and tier in {"root", "below_threshold"}:
        root, context = signals.root
        verdict = "reaches" if tier == "root" else "is below"
        where = "a term only this domain uses" if root == context else f"next to {context!r}"
        return (
            f"The query uses the domain term {root!r} {where}, and its best "
            f"similarity {score:.2f} {verdict} the floor {spec.root_min_similarity:.2f}."
        )
    if tier in {"kind", "everyday"}:
        return _kind_reason(tier, signals, score, spec)
    verdict = "reaches" if tier == "dense" else "is below"
    return (
        f"The query's best similarity {score:.2f} to the retrieved chunks {verdict} the "
        f"threshold {spec.min_similarity:.2f}."
    )


def _kind_reason(tier: str, signals: DomainSignals, score: float, spec: DomainSpec) -> str:
    """Why the kind margin accepted the query (``kind``) or kept the dense tier from it."""
    margin = signals.kind if signals.kind is not None else float("nan")
    if tier == "kind":
        floor = spec.kinds.min_margin if spec.kinds is not None else float("nan")
        return (
            f"The query uses {signals.cue!r} and reads as a question the collection answers "
            f"(margin {margin:+.2f} over everyday questions, at least {floor:.2f}), with best "
            f"similarity {score:.2f}."
        )
    ceiling = -spec.kinds.everyday_margin if spec.kinds is not None else float("nan")
    return (
        f"The query reads as an everyday question (margin {margin:+.2f}, at most "
        f"{ceiling:.2f}), so its similarity {score:.2f} does not accept it."
    )


def evidence(tier: str, signals: DomainSignals, chunks: Sequence[Chunk]) -> dict[str, Any]:
    """The values behind the decision, for the audit record (no chunk text)."""
    if tier == "blocklist":
        return {"term": signals.term}
    if tier == "identifier" and signals.identifier is not None:
        value, key, position = signals.identifier
        chunk_id = None if position is None else chunks[position].id
        return {"identifier": value, "key": key, "chunk": position, "chunk_id": chunk_id}
    out: dict[str, Any] = {"score": signals.similarity}
    if signals.root is not None:
        out["root"], out["context"] = signals.root
    if signals.kind is not None:
        out["margin"], out["cue"] = signals.kind, signals.cue
    return out
