"""The corpus of ``rag-guard eval prompt``: synthetic contract clauses that each carry a unique
canary token in their text and in one metadata value, embedded once and shared by every
integration path, and the (query, caller) cases run through them."""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from rag_guard_integrations.core.access import AccessContext
from rag_guard_integrations.core.errors import ArgumentError
from rag_guard_integrations.core.normalize import normalize
from rag_guard_integrations.engine.guard import Guard
from rag_guard_integrations.evaluation.synthetic import CONTRACT_TYPES, QUESTIONS, generate_corpus

if TYPE_CHECKING:
    from collections.abc import Sequence

    from rag_guard_integrations.core.chunk import Chunk
    from rag_guard_integrations.embeddings import Embedder

POLICY = Path(__file__).with_name("policy.yaml")
CANARY_KEY = "reference"
CANARY_PREFIX = "CANARY-"
K = 4
OFF_TOPIC = (
    "What is the price of bitcoin today?",
    "Which pizza place delivers after midnight?",
    "Recommend a movie for tonight.",
    "What will the weather be tomorrow?",
)
# Without pushdown the candidates mix every caller's chunks: over-fetch enough that a caller
# who may see one contract type in six still finds theirs (4 x k misses about one in eight).
UNFILTERED_FETCH = 32


@dataclass(frozen=True, slots=True)
class PromptCase:
    """One request: a query, the caller's access, and what may and may not reach the model.

    ``authorised_ids`` are the chunks this caller may see that answer the query (the guard
    allows them); ``forbidden_canaries`` are the canaries of every other chunk. When
    ``expect_refusal`` is True nothing may pass and the policy's refusal must reach the user.
    """

    query: str
    access: dict[str, list[str]]
    principal: str
    authorised_ids: frozenset[str]
    forbidden_canaries: frozenset[str]
    expect_refusal: bool

    def access_context(self) -> AccessContext:
        """The case's access as the guard takes it (``{}`` is a caller with no access)."""
        return AccessContext(self.principal, **self.access)


class CachedEmbedder:
    """The real MiniLM embedder behind a table of vectors computed once for the whole run.

    Example:
        >>> embedder = CachedEmbedder({"a clause": [0.1, 0.2]})  # doctest: +SKIP
        >>> embedder.embed_query("a clause")  # doctest: +SKIP
        [0.1, 0.2]
    """

    def __init__(self, vectors: dict[str, list[float]], model: Embedder | None = None) -> None:
        self.vectors = vectors
        self._model = model

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Vectors for ``texts``: looked up, any text not seen yet embedded once and kept."""
        missing = [t for t in dict.fromkeys(texts) if t not in self.vectors]
        if missing:
            self.vectors.update(
                zip(missing, self._embedder().embed_documents(missing), strict=True)
            )
        return [self.vectors[t] for t in texts]

    def embed_query(self, text: str) -> list[float]:
        """The vector of one query."""
        return self.embed_documents([text])[0]

    def _embedder(self) -> Embedder:
        if self._model is None:
            from rag_guard_integrations.embeddings import default_embedder  # noqa: PLC0415

            self._model = default_embedder()
        return self._model


@dataclass(frozen=True)
class PromptCorpus:
    """Chunks (ids set, canaries in text and metadata), their shared embedder, guard and cases."""

    chunks: list[Chunk]
    canary_of: dict[str, str]
    embedder: CachedEmbedder
    guard: Guard
    cases: list[PromptCase]
    k: int = K
    policy: tuple[str, ...] = (str(POLICY),)
    refusals: frozenset[str] = field(default_factory=frozenset)

    @property
    def vectors(self) -> dict[str, list[float]]:
        """Text -> vector, computed once and shared by every path."""
        return self.embedder.vectors

    def is_refusal(self, answer: str) -> bool:
        """True when ``answer`` is one of the policy's refusals."""
        return answer.strip() in self.refusals


def build_prompt_corpus(
    seed: int = 0, *, cases: int = 100, contracts: int = 24, embedder: Embedder | None = None
) -> PromptCorpus:
    """The seeded corpus, its vectors (chunks and every case query embedded in one batch) and
    ``cases`` cases: 70% answerable, 15% from callers with no access, 15% off-topic."""
    rng = random.Random(seed)
    chunks = [_with_canary(chunk, rng) for chunk in generate_corpus(contracts, seed)]
    canary_of = {str(c.id): str(c.metadata[CANARY_KEY]) for c in chunks}
    if len(set(canary_of.values())) != len(chunks):
        raise ArgumentError(f"canaries collide for seed={seed}; pick another seed")
    shared = CachedEmbedder({}, embedder)
    queries = [*_questions(), *OFF_TOPIC]
    # The domain guard embeds the normalised query: both forms go into the one batch.
    shared.embed_documents([c.text for c in chunks] + queries + [normalize(q) for q in queries])
    guard = Guard.from_policy(POLICY, embedder=shared)
    built = [_case(number, rng, chunks, canary_of, guard) for number in range(cases)]
    domain = guard.policy.domain
    refusals = frozenset({guard.policy.no_context_refusal, *([domain.refusal] if domain else [])})
    return PromptCorpus(chunks, canary_of, shared, guard, built, refusals=refusals)


def _with_canary(chunk: Chunk, rng: random.Random) -> Chunk:
    canary = f"{CANARY_PREFIX}{rng.getrandbits(32):08x}"
    metadata = {**chunk.metadata, CANARY_KEY: canary}
    return replace(chunk, text=f"{chunk.text} Reference {canary}.", metadata=metadata)


def _case(
    number: int,
    rng: random.Random,
    chunks: Sequence[Chunk],
    canary_of: dict[str, str],
    guard: Guard,
) -> PromptCase:
    kind = rng.random()
    allowed = sorted(rng.sample(CONTRACT_TYPES, rng.choice((1, 1, 2))))
    everything = frozenset(canary_of.values())
    if kind < 0.15:
        return PromptCase(
            rng.choice(_questions()), {}, f"nobody-{number}", frozenset(), everything, True
        )
    if kind < 0.30:
        access = {"contract_type": allowed}
        return PromptCase(
            rng.choice(OFF_TOPIC), access, f"user-{number}", frozenset(), everything, True
        )
    clause_id = rng.choice(sorted(QUESTIONS))
    query = rng.choice(QUESTIONS[clause_id])
    access = {"contract_type": allowed}
    candidates = [
        c
        for c in chunks
        if c.metadata["clause_id"] == clause_id and c.metadata["contract_type"] in allowed
    ]
    result = guard.check(query, candidates, access)
    authorised = frozenset(str(c.id) for c in result.allowed)
    forbidden = everything - {canary_of[i] for i in authorised}
    return PromptCase(query, access, f"user-{number}", authorised, forbidden, not authorised)


def _questions() -> list[str]:
    return [q for clause in sorted(QUESTIONS) for q in QUESTIONS[clause]]
