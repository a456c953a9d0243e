"""The domain guard: four tiers that decide whether a query belongs to the collection's domain.

Vector search always returns a nearest neighbour, even for "price of bitcoin", so the guard
decides on the normalised query, in order, stopping at the first tier that decides:

1. ``blocklist``: a listed out-of-domain term as a word, plural or compound -> reject;
2. ``identifier``: a standard identifier in the query, in identifier form (a prefix that is
   also a word, such as "is", counts only as :mod:`.domain_identifiers` says), that is one of
   the collection's (given when the guard is built, see :func:`collection_identifiers`, or
   answered by a lookup the retriever or index provides) or that a retrieved chunk carries in
   its metadata (not merely its text) -> accept. A match of the pattern with an empty group 1
   is no identifier: a policy can use that to exclude look-alikes;
3. ``root``: a domain root within ``root_window`` words of a regulatory context word, or a
   ``signature_terms`` entry (a term only this domain uses, such as "vltd") on its own, with
   similarity at least ``root_min_similarity`` -> accept;
4. ``dense``: similarity at least ``min_similarity`` -> accept; otherwise ``below_threshold``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rag_guard_integrations.core.cache import BoundedCache
from rag_guard_integrations.core.decisions import QueryDecision
from rag_guard_integrations.core.metadata import metadata_values
from rag_guard_integrations.core.normalize import CACHED_CHARS, normalize
from rag_guard_integrations.embeddings import cosine, unit
from rag_guard_integrations.guards.domain_identifiers import IdentifierReader
from rag_guard_integrations.guards.domain_terms import TermMatcher, near_pair
from rag_guard_integrations.policy.loader import load_policy

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

    from rag_guard_integrations.core.chunk import Chunk
    from rag_guard_integrations.embeddings import Embedder
    from rag_guard_integrations.guards.domain_identifiers import IdentifierLookup
    from rag_guard_integrations.policy.loader import PolicyRef
    from rag_guard_integrations.policy.schema import DomainSpec

TIERS = ("blocklist", "identifier", "root", "dense", "below_threshold")
REJECTING = frozenset({"blocklist", "below_threshold"})


@dataclass(frozen=True, slots=True)
class _Lexical:
    """What the terms of one normalised query say, before any chunk is looked at."""

    text: str  # the normalised query
    term: str | None
    root: tuple[str, str] | None


@dataclass(frozen=True, slots=True)
class DomainReading:
    """What the query alone says, read once per request: its terms, the identifiers it names
    (canonical form -> the query's spelling) and the first of them the collection holds."""

    lexical: _Lexical
    typed: Mapping[str, str]
    known: str | None


@dataclass(frozen=True, slots=True)
class DomainSignals:
    """Everything the tiers need about one query and its chunks; thresholds are applied later.

    ``identifier`` is ``(identifier as the query writes it, metadata key, chunk position)``, or
    ``(identifier as the query writes it, "collection", None)`` for one of the identifiers the
    guard was given or its lookup holds. A chunk's own spelling is never quoted: the decision
    goes into records whole, and nothing a chunk holds may.

    Example:
        >>> tier_for(DomainSignals(root=("water", "isi"), similarity=0.3), 0.20, 0.48)
        'root'
    """

    term: str | None = None
    identifier: tuple[str, str, int | None] | None = None
    root: tuple[str, str] | None = None
    similarity: float | None = None
    similarity_source: str | None = None


def tier_for(signals: DomainSignals, root_min_similarity: float, min_similarity: float) -> str:
    """The tier that decides, given the signals and the two thresholds (pure; used by calibrate)."""
    if signals.term is not None:
        return "blocklist"
    if signals.identifier is not None:
        return "identifier"
    score = signals.similarity
    if score is not None and signals.root is not None and score >= root_min_similarity:
        return "root"
    if score is not None and score >= min_similarity:
        return "dense"
    return "below_threshold"


class DomainGuard:
    """Accepts or rejects a query for the collection's domain (see the module for the tiers).

    ``identifiers`` are the collection's identifiers: the values themselves (for instance
    :func:`collection_identifiers` over the corpus), or a lookup called with an identifier's
    :func:`canonical_identifier` form that says whether the collection holds it (a retriever or
    index answering from its own metadata). A lookup that raises rejects the query in
    :class:`~rag_guard_integrations.Guard` (fail closed).

    Example:
        >>> from rag_guard_integrations import load_policy
        >>> from rag_guard_integrations.data import load_corpus
        >>> guard = DomainGuard.from_policy(load_policy("bis"))
        >>> chunks = load_corpus("bis")[:5]
        >>> guard.decide("what is the price of bitcoin", chunks).tier
        'blocklist'
        >>> guard.decide("Scope of IS 2062?", load_corpus("bis")).evidence["identifier"]
        'IS 2062'
        >>> from rag_guard_integrations.guards.domain_identifiers import canonical_identifier
        >>> held = {canonical_identifier("IS 1239")}
        >>> DomainGuard.from_policy("bis", identifiers=held.__contains__).decide(
        ...     "IS 1239 pipes", []).tier
        'identifier'
    """

    def __init__(
        self,
        spec: DomainSpec,
        embedder: Embedder | None = None,
        identifiers: Iterable[str] | IdentifierLookup = (),
    ) -> None:
        self.spec = spec
        self._embedder = embedder
        self._blocklist = TermMatcher(spec.blocklist, compounds=True)
        self._roots = TermMatcher(spec.roots, compounds=True)
        self._context = TermMatcher(spec.root_context, compounds=False)
        self._signature = TermMatcher(spec.signature_terms, compounds=False)
        self._reader = (
            IdentifierReader(spec.identifier_pattern, spec.identifier_word_prefixes)
            if spec.identifier_pattern
            else None
        )
        self._lookup = identifiers if callable(identifiers) else None
        # The canonical forms of the collection's identifiers.
        self.identifiers: frozenset[str] = frozenset(
            found
            for value in (() if callable(identifiers) else identifiers)
            for found in self._identifiers_of_value(value)
        )
        self._lexical: BoundedCache[str, _Lexical] = BoundedCache(8192, max_key_len=CACHED_CHARS)
        self._identifiers: BoundedCache[str, tuple[str, ...]] = BoundedCache(
            8192, max_key_len=CACHED_CHARS
        )
        self._vectors: BoundedCache[str, Any] = BoundedCache(16384)
        self._queries: BoundedCache[str, Any] = BoundedCache(4096, max_key_len=CACHED_CHARS)

    @classmethod
    def from_policy(
        cls,
        policy: PolicyRef,
        embedder: Embedder | None = None,
        identifiers: Iterable[str] | IdentifierLookup = (),
    ) -> DomainGuard | None:
        """The guard for ``policy.domain``, or None when the policy has no domain section."""
        policy = load_policy(policy)
        return None if policy.domain is None else cls(policy.domain, embedder, identifiers)

    @property
    def embedder(self) -> Embedder:
        """The embedder, loaded on first use (only tiers 3 and 4 on unscored chunks need it)."""
        if self._embedder is None:
            from rag_guard_integrations.embeddings import default_embedder  # noqa: PLC0415

            self._embedder = default_embedder()
        return self._embedder

    def read(self, query: str, normalized: str | None = None) -> DomainReading:
        """What ``query`` alone says (``normalized``: its normal form, when already made)."""
        text = normalize(query) if normalized is None else normalized
        lexical = self._lexical.remember(text, lambda: self._read(text))
        if lexical.term is not None:
            return DomainReading(lexical, {}, None)
        typed = self._reader.typed(query, text) if self._reader is not None else {}
        return DomainReading(lexical, typed, self._known(typed) if typed else None)

    def decide(
        self, query: str, chunks: Sequence[Chunk], *, reading: DomainReading | None = None
    ) -> QueryDecision:
        """Decide whether ``query`` is in the domain, given the chunks retrieved for it
        (``reading``: :meth:`read` of it, when already made)."""
        signals = self.signals(query, chunks, reading=reading)
        tier = tier_for(signals, self.spec.root_min_similarity, self.spec.min_similarity)
        allowed = tier not in REJECTING
        return QueryDecision(
            allowed=allowed,
            tier=tier,
            reason=self._reason(tier, signals),
            evidence=_evidence(tier, signals, chunks),
            similarity=signals.similarity,
            similarity_source=signals.similarity_source,
            refusal=None if allowed else self.spec.refusal,
        )

    def signals(
        self, query: str, chunks: Sequence[Chunk], *, reading: DomainReading | None = None
    ) -> DomainSignals:
        """Evaluate the tiers' inputs, stopping early when tier 1 or 2 already decides."""
        if reading is None:
            reading = self.read(query)
        lexical, typed = reading.lexical, reading.typed
        if lexical.term is not None:
            return DomainSignals(term=lexical.term)
        if reading.known is not None:
            return DomainSignals(identifier=(reading.known, "collection", None))
        if typed and (found := self._carried(typed, chunks)) is not None:
            return DomainSignals(identifier=found)
        similarity, source = self._similarity(lexical.text, chunks)
        return DomainSignals(root=lexical.root, similarity=similarity, similarity_source=source)

    def _read(self, text: str) -> _Lexical:
        term = self._blocklist.first(text)
        if term is not None:
            return _Lexical(text, term, None)
        root = near_pair(
            text, self._roots.find(text), self._context.find(text), self.spec.root_window
        )
        if root is None and (signature := self._signature.first(text)) is not None:
            root = (signature, signature)
        return _Lexical(text, None, root)

    def _known(self, typed: Mapping[str, str]) -> str | None:
        """The query's spelling of the first typed identifier the collection holds, else None."""
        lookup = self._lookup
        for canonical, written in typed.items():
            if canonical in self.identifiers or (lookup is not None and lookup(canonical)):
                return written
        return None

    def _identifiers_of_value(self, value: str) -> tuple[str, ...]:
        return () if self._reader is None else self._reader.in_value(value)

    def _carried(
        self, typed: Mapping[str, str], chunks: Sequence[Chunk]
    ) -> tuple[str, str, int | None] | None:
        """The query's spelling of the first identifier it names that a chunk carries in its
        metadata, the key and the chunk's position; None when no chunk carries one."""
        for position, chunk in enumerate(chunks):
            for key in self.spec.identifier_keys:
                for value in metadata_values(chunk.metadata.get(key)):
                    cached = self._identifiers.get(value)
                    if cached is None:
                        cached = self._identifiers.put(value, self._identifiers_of_value(value))
                    hit = next((canonical for canonical in cached if canonical in typed), None)
                    if hit is not None:
                        return typed[hit], key, position
        return None

    def _similarity(self, text: str, chunks: Sequence[Chunk]) -> tuple[float | None, str | None]:
        if not chunks:
            return None, None
        if (scores := self._cosine_scores(chunks)) is not None:
            return max(scores), "retriever"
        query_vector = self._queries.remember(text, lambda: unit(self.embedder.embed_query(text)))
        vectors = [self._vectors.get(chunk.text) for chunk in chunks]
        missing = list(
            dict.fromkeys(c.text for c, v in zip(chunks, vectors, strict=True) if v is None)
        )
        if missing:
            embedded = self.embedder.embed_documents(missing)
            fresh = {
                t: self._vectors.put(t, unit(v)) for t, v in zip(missing, embedded, strict=True)
            }
            vectors = [
                fresh[c.text] if v is None else v for c, v in zip(chunks, vectors, strict=True)
            ]
        return max(cosine(query_vector, vector) for vector in vectors), "embedder"

    def _cosine_scores(self, chunks: Sequence[Chunk]) -> list[float] | None:
        """The retriever's scores when the policy declares them cosine similarities and every
        chunk has one in [-1, 1]; None otherwise (a BM25 score of 7.3 is no similarity)."""
        if self.spec.retriever_scores != "cosine":
            return None
        scores = [chunk.score for chunk in chunks]
        if all(score is not None and -1.0 <= score <= 1.0 for score in scores):
            return [score for score in scores if score is not None]
        return None

    def _reason(self, tier: str, signals: DomainSignals) -> str:
        """One readable sentence saying why the tier decided as it did."""
        score, spec = signals.similarity, self.spec
        if tier == "blocklist":
            return f"The query mentions {signals.term!r}, which the policy lists as out of domain."
        if signals.identifier is not None:
            value, key, position = signals.identifier
            if position is None:
                return f"The query names {value}, an identifier of the collection."
            return f"The query names {value}, which retrieved chunk {position} carries as {key!r}."
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
        verdict = "reaches" if tier == "dense" else "is below"
        return (
            f"The query's best similarity {score:.2f} to the retrieved chunks {verdict} the "
            f"threshold {spec.min_similarity:.2f}."
        )


def _evidence(tier: str, signals: DomainSignals, chunks: Sequence[Chunk]) -> dict[str, Any]:
    if tier == "blocklist":
        return {"term": signals.term}
    if tier == "identifier" and signals.identifier is not None:
        value, key, position = signals.identifier
        chunk_id = None if position is None else chunks[position].id
        return {"identifier": value, "key": key, "chunk": position, "chunk_id": chunk_id}
    out: dict[str, Any] = {"score": signals.similarity}
    if signals.root is not None:
        out["root"], out["context"] = signals.root
    return out


def collection_identifiers(chunks: Iterable[Chunk], keys: Sequence[str]) -> list[str]:
    """Every value the ``keys`` metadata of ``chunks`` holds: the collection's identifiers.

    Example:
        >>> from rag_guard_integrations.data import load_corpus
        >>> "IS 2062" in collection_identifiers(load_corpus("bis"), ["standard"])
        True
    """
    found = (
        v for chunk in chunks for key in keys for v in metadata_values(chunk.metadata.get(key))
    )
    return list(dict.fromkeys(found))
