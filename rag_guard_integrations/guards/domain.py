"""The domain guard: tiers that decide whether a query belongs to the collection's domain.

Vector search always returns a nearest neighbour, even for "price of bitcoin", so the guard
decides on the normalised query, in order, stopping at the first tier that decides:

1. ``blocklist``: a listed out-of-domain term as a word, plural or compound, also respelled
   (:mod:`.domain_respelling`: ``b1tcoin``, ``b-i-t-c-o-i-n``, ``bit coin``) -> reject;
2. ``identifier``: a standard identifier in the query, in identifier form (a prefix that is
   also a word, such as "is", counts only as :mod:`.domain_identifiers` says), that is one of
   the collection's (given when the guard is built, see :func:`collection_identifiers`, or
   answered by a lookup the retriever or index provides) or that a retrieved chunk carries in
   its metadata (not merely its text) -> accept. A match of the pattern with an empty group 1
   is no identifier: a policy can use that to exclude look-alikes;
3. ``root``: a domain root within ``root_window`` words of a regulatory context word, or a
   ``signature_terms`` entry (a term only this domain uses, such as "vltd") on its own, with
   similarity at least ``root_min_similarity`` -> accept;
4. ``kind`` (with a ``kinds`` section): the query names a product (a root or signature term)
   anywhere; it reads as the collection's kind of question (its
   :mod:`.domain_kinds` margin is at least ``kinds.min_margin``); and its similarity is at
   least ``kinds.min_similarity`` -> accept;
5. ``dense``: similarity at least ``min_similarity`` -> accept, unless the query reads as an
   everyday question (everyday prototypes ahead by ``kinds.everyday_margin`` or more), which
   rejects it as ``everyday``; otherwise ``below_threshold``.

The kind signal costs an embedding of the query with its product terms masked, only where it
can decide: when no earlier tier has, and the similarity reaches the kind tier's floor (for a
query that names a product) or the dense threshold.
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
from rag_guard_integrations.guards.domain_kinds import KindScorer
from rag_guard_integrations.guards.domain_reasons import evidence, reason
from rag_guard_integrations.guards.domain_respelling import respelled
from rag_guard_integrations.guards.domain_terms import TermMatcher, near_pair
from rag_guard_integrations.policy.loader import load_policy

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

    from rag_guard_integrations.core.chunk import Chunk
    from rag_guard_integrations.embeddings import Embedder
    from rag_guard_integrations.guards.domain_identifiers import IdentifierLookup
    from rag_guard_integrations.policy.loader import PolicyRef
    from rag_guard_integrations.policy.schema import DomainSpec, KindSpec

TIERS = ("blocklist", "identifier", "root", "kind", "dense", "everyday", "below_threshold")
REJECTING = frozenset({"blocklist", "everyday", "below_threshold"})


@dataclass(frozen=True, slots=True)
class _Lexical:
    """What the terms of one normalised query say, before any chunk is looked at."""

    text: str  # the normalised query
    term: str | None
    root: tuple[str, str] | None
    cue: str | None = None  # the first root or signature term anywhere


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
    ``cue`` is the first root or signature term anywhere in the query (the product it names);
    ``kind`` its question-kind margin (:mod:`.domain_kinds`), None where it was not needed.

    Example:
        >>> tier_for(DomainSignals(root=("water", "isi"), similarity=0.3), 0.20, 0.48)
        'root'
    """

    term: str | None = None
    identifier: tuple[str, str, int | None] | None = None
    root: tuple[str, str] | None = None
    similarity: float | None = None
    similarity_source: str | None = None
    cue: str | None = None
    kind: float | None = None


def tier_for(
    signals: DomainSignals,
    root_min_similarity: float,
    min_similarity: float,
    kinds: KindSpec | None = None,
) -> str:
    """The tier that decides, given the signals and the thresholds (pure; used by calibrate)."""
    if signals.term is not None:
        return "blocklist"
    if signals.identifier is not None:
        return "identifier"
    score = signals.similarity
    if score is None:
        return "below_threshold"
    if signals.root is not None and score >= root_min_similarity:
        return "root"
    return _by_similarity(signals, score, min_similarity, kinds)


def _by_similarity(
    signals: DomainSignals, score: float, min_similarity: float, kinds: KindSpec | None
) -> str:
    """Tiers 4 and 5: the kind tier, the everyday veto, then the dense threshold."""
    margin = signals.kind
    if kinds is not None and margin is not None:
        if signals.cue is not None and margin >= kinds.min_margin and score >= kinds.min_similarity:
            return "kind"
        if margin <= -kinds.everyday_margin and score >= min_similarity:
            return "everyday"
    return "dense" if score >= min_similarity else "below_threshold"


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
        self._roots = TermMatcher(spec.roots, compounds=True, typos=spec.root_typos)
        self._context = TermMatcher(spec.root_context, compounds=False)
        self._signature = TermMatcher(spec.signature_terms, compounds=False)
        self._kinds = (
            None if spec.kinds is None else KindScorer(spec.kinds, (self._roots, self._signature))
        )
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
        spec = self.spec
        tier = tier_for(signals, spec.root_min_similarity, spec.min_similarity, spec.kinds)
        allowed = tier not in REJECTING
        return QueryDecision(
            allowed=allowed,
            tier=tier,
            reason=reason(tier, signals, spec),
            evidence=evidence(tier, signals, chunks),
            similarity=signals.similarity,
            similarity_source=signals.similarity_source,
            refusal=None if allowed else self.spec.refusal,
        )

    def signals(
        self,
        query: str,
        chunks: Sequence[Chunk],
        *,
        reading: DomainReading | None = None,
        complete: bool = False,
    ) -> DomainSignals:
        """Evaluate the tiers' inputs, stopping early when tier 1 or 2 already decides
        (``reading``: :meth:`read` of the query, when already made).

        The kind margin is computed only where the policy's thresholds let it decide, or always
        with ``complete`` (calibration re-judges the signals at other thresholds)."""
        if reading is None:
            reading = self.read(query)
        lexical, typed = reading.lexical, reading.typed
        if lexical.term is not None:
            return DomainSignals(term=lexical.term)
        if reading.known is not None:
            return DomainSignals(identifier=(reading.known, "collection", None))
        if typed and (found := self._carried(typed, chunks)) is not None:
            return DomainSignals(identifier=found)
        text = lexical.text
        similarity, source = self._similarity(text, chunks)
        kind = None
        if (
            self._kinds is not None
            and similarity is not None
            and (complete or self._kind_decides(lexical, similarity))
        ):
            kind = self._kinds.margin(text, self._query_vector, self.embedder)
        return DomainSignals(
            root=lexical.root,
            similarity=similarity,
            similarity_source=source,
            cue=lexical.cue,
            kind=kind,
        )

    def _kind_decides(self, lexical: _Lexical, similarity: float) -> bool:
        """Whether the kind margin can change the decision at the policy's thresholds."""
        spec, kinds = self.spec, self.spec.kinds
        if kinds is None or (lexical.root is not None and similarity >= spec.root_min_similarity):
            return False
        has_cue = lexical.cue is not None and similarity >= kinds.min_similarity
        return has_cue or similarity >= spec.min_similarity

    def _query_vector(self, text: str) -> Any:
        return self._queries.remember(text, lambda: unit(self.embedder.embed_query(text)))

    def _read(self, text: str) -> _Lexical:
        term = self._blocklist.first(text)
        if term is None and (respelling := respelled(text)) is not None:
            term = self._blocklist.first(respelling)
        if term is not None:
            return _Lexical(text, term, None)
        roots, context = self._roots.find(text), self._context.find(text)
        root = near_pair(text, roots, context, self.spec.root_window)
        signature = self._signature.first(text)
        if root is None and signature is not None:
            root = (signature, signature)
        return _Lexical(text, None, root, next((t for _, t in roots), None) or signature)

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
        query_vector = self._query_vector(text)
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
