"""The domain guard's four tiers, with real MiniLM retrieval over the bundled BIS catalogue."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from work_counter import growth, lines_run

from rag_guard_integrations import Chunk, PolicyError, load_policy, parse_policy
from rag_guard_integrations import embeddings as embeddings_module
from rag_guard_integrations.data import load_corpus, load_queries
from rag_guard_integrations.embeddings import cosine
from rag_guard_integrations.guards import domain as domain_module
from rag_guard_integrations.guards import domain_terms
from rag_guard_integrations.guards.domain import TIERS, DomainGuard, collection_identifiers
from rag_guard_integrations.policy.schema import DomainSpec
from rag_guard_integrations.vector_index import VectorIndex

if TYPE_CHECKING:
    from collections.abc import Callable

    from rag_guard_integrations.embeddings import MiniLMEmbedder

POLICY = load_policy("bis")
assert POLICY.domain is not None
SPEC: DomainSpec = POLICY.domain
# The synthetic chunks below carry cosine scores, as the vector index does: declared so.
COSINE = SPEC.model_copy(update={"retriever_scores": "cosine"})
ZERO_WIDTH = ("\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad")


class CountingEmbedder:
    """The real embedder, counting how often the guard asks it for vectors."""

    def __init__(self, inner: MiniLMEmbedder) -> None:
        self.inner = inner
        self.queries = 0
        self.documents = 0

    def embed_query(self, text: str) -> list[float]:
        self.queries += 1
        return self.inner.embed_query(text)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.documents += len(texts)
        return self.inner.embed_documents(texts)


@pytest.fixture(scope="session")
def index(embedder: MiniLMEmbedder) -> VectorIndex:
    """An exact cosine index over the bundled catalogue."""
    return VectorIndex(load_corpus("bis"), embedder)


@pytest.fixture(scope="session")
def guard(embedder: MiniLMEmbedder) -> DomainGuard:
    """The built-in ``bis`` domain guard on the real embedder."""
    return DomainGuard(COSINE, embedder)


def retrieve(index: VectorIndex, query: str) -> list[Chunk]:
    """The top five chunks for ``query``, scored by cosine."""
    return index.search(query, k=5)


def scored(*standards: str, score: float = 0.3) -> list[Chunk]:
    """Synthetic retrieved chunks carrying ``standards`` in their metadata."""
    return [Chunk(f"catalogue entry {s}", {"standard": s}, score=score) for s in standards]


@pytest.mark.parametrize(
    ("query", "tier", "allowed"),
    [
        ("what is the price of bitcoin today", "blocklist", False),
        ("IS 2062 structural steel grades", "identifier", True),
        ("ISI mark for packaged water bottles", "root", True),
        ("sulphate resisting cement for foundations", "kind", True),
        ("Frontal impact protection for passenger cars", "dense", True),
        ("best pressure cooker brand", "everyday", False),
        ("how do I train a puppy to sit", "below_threshold", False),
    ],
)
def test_each_tier_decides_a_real_query(
    guard: DomainGuard, index: VectorIndex, query: str, tier: str, allowed: bool
) -> None:
    """Each tier is the one that decides for a query written to reach it."""
    decision = guard.decide(query, retrieve(index, query))
    assert (decision.tier, decision.allowed) == (tier, allowed)
    assert decision.tier in TIERS
    assert decision.intents == ()


@pytest.mark.parametrize(
    "query",
    [
        "crypt\u200bo wallet for beginners",
        "ＢＩＴＣＯＩＮ news",
        "bіtсоіn exchange rates",  # Cyrillic і, с, о
        "Bitcoins for sale",
        "cryptotrading tips",
        "best social-media apps",
        "socialmedia marketing",
        "where to buy ISI helmets",
    ],
)
def test_obfuscated_and_inflected_blocklist_terms_are_rejected(
    guard: DomainGuard, query: str
) -> None:
    """Zero-width, full-width, homoglyph, plural, compound and hyphen spellings hit tier 1."""
    decision = guard.decide(query, scored("IS 4151", score=0.9))
    assert decision.tier == "blocklist"
    assert not decision.allowed
    assert decision.evidence["term"] in SPEC.blocklist
    assert decision.refusal == SPEC.refusal


@settings(max_examples=60, deadline=None)
@given(
    term=st.sampled_from(["bitcoin", "cryptocurrency", "lottery", "horoscope"]),
    cuts=st.lists(st.tuples(st.integers(1, 8), st.sampled_from(ZERO_WIDTH)), max_size=4),
)
def test_format_characters_inside_a_term_never_evade_tier_one(
    guard: DomainGuard, term: str, cuts: list[tuple[int, str]]
) -> None:
    """Format characters inserted anywhere inside a blocklisted term are removed first."""
    spelled = term
    for position, char in cuts:
        at = min(position, len(spelled) - 1)
        spelled = spelled[:at] + char + spelled[at:]
    assert guard.decide(f"tell me about {spelled} now", scored("IS 269")).tier == "blocklist"


def test_terms_inside_other_words_are_not_blocklisted(guard: DomainGuard) -> None:
    """``soda`` inside ``sodalite`` or ``song`` inside ``songbird`` is no blocklist hit."""
    assert guard.decide("sodalite and songbird tests", scored("IS 269")).tier != "blocklist"


@pytest.mark.parametrize(
    ("query", "standards"),
    [
        ("a black suit under $100", ("IS 100",)),
        ("what happened in 2019", ("IS 2019",)),
        ("call 2062 for help", ("IS 2062",)),
    ],
)
def test_bare_numbers_are_not_identifiers(
    guard: DomainGuard, query: str, standards: tuple[str, ...]
) -> None:
    """A number without a standard prefix never counts, even when a chunk carries it."""
    signals = guard.signals(query, scored(*standards))
    assert signals.identifier is None
    assert guard.decide(query, scored(*standards)).tier != "identifier"


@pytest.mark.parametrize(
    ("query", "standard", "written"),
    [
        ("IS 2019 scope", "IS 2019", "IS 2019"),
        ("is:2062 grades", "IS 2062", "is:2062"),
        ("ＩＳ　２０６２ grades", "IS 2062", "ＩＳ　２０６２"),
        ("AIS-140 tracking", "AIS 140", "AIS-140"),
        ("iec 60898 breakers", "IS/IEC 60898-1", "iec 60898"),
    ],
)
def test_prefixed_identifier_carried_in_metadata_is_accepted(
    guard: DomainGuard, query: str, standard: str, written: str
) -> None:
    """A prefixed identifier that a retrieved chunk carries in metadata decides at tier 2; the
    decision quotes it as the query writes it, never the chunk's own value."""
    chunks = [*scored("IS 269", score=0.05), *scored(standard, score=0.05)]
    decision = guard.decide(query, chunks)
    assert decision.tier == "identifier"
    assert decision.evidence == {"identifier": written, "key": "standard", "chunk": 1,
                                 "chunk_id": None}  # fmt: skip
    assert f"The query names {written}, which retrieved chunk 1" in decision.reason


@pytest.fixture(scope="session")
def knowing(embedder: MiniLMEmbedder) -> DomainGuard:
    """The ``bis`` domain guard told the catalogue's identifiers when it was built."""
    identifiers = collection_identifiers(load_corpus("bis"), SPEC.identifier_keys)
    return DomainGuard(COSINE, embedder, identifiers)


@pytest.mark.parametrize("query", ["IS 2062 requirements", "is:2062 grades", "AIS-140 devices"])
def test_identifier_of_the_collection_passes_whatever_was_retrieved(
    knowing: DomainGuard, query: str
) -> None:
    """A typed identifier the collection holds decides at tier 2 with no chunk carrying it."""
    decision = knowing.decide(query, scored("IS 269", score=0.05))
    assert decision.tier == "identifier"
    assert decision.evidence["key"] == "collection"
    assert decision.evidence["chunk"] is None
    assert "an identifier of the collection" in decision.reason


@pytest.mark.parametrize(
    "query", ["What is 269 plus 1?", "what is 2062 divided by two", "the answer is 1786"]
)
def test_english_is_is_not_a_prefix(knowing: DomainGuard, query: str) -> None:
    """Lower-case "is" before a number is the verb, even when "IS 269" is in the collection."""
    chunks = scored("IS 269", "IS 2062", "IS 1786", score=0.05)
    assert knowing.signals(query, chunks).identifier is None
    assert not knowing.decide(query, chunks).allowed


def test_identifier_not_in_the_collection_needs_retrieval(knowing: DomainGuard) -> None:
    """An identifier the collection lacks still falls through to the later tiers."""
    assert knowing.decide("IS 99999 scope", scored("IS 269", score=0.05)).tier != "identifier"


def test_collection_identifiers_reads_every_listed_key() -> None:
    """Identifiers come from the metadata keys given, in order, without repeats."""
    chunks = [
        Chunk("a", {"standard": "IS 269", "id": "x"}),
        Chunk("b", {"standard": ["IS 269", "IS 8112"]}),
    ]
    assert collection_identifiers(chunks, ["standard"]) == ["IS 269", "IS 8112"]
    assert collection_identifiers(chunks, ["standard", "id"]) == ["IS 269", "x", "IS 8112"]


def test_identifier_only_in_chunk_text_does_not_count(guard: DomainGuard) -> None:
    """Tier 2 reads metadata under identifier_keys, never the chunk text."""
    chunks = [Chunk("IS 2062 covers structural steel.", {"title": "IS 2062"}, score=0.05)]
    assert guard.decide("IS 2062 grades", chunks).tier == "below_threshold"
    listed = [Chunk("steel", {"id": ["IS 1786", "IS 2062"]}, score=0.05)]
    assert guard.decide("IS 2062 grades", listed).evidence["key"] == "id"


@pytest.mark.parametrize(
    "query",
    ["safety standard for televisions", "Toyota safety standard", "tiredness certification"],
)
def test_root_inside_another_word_never_counts(query: str) -> None:
    """``ev`` in ``televisions``, ``toy`` in ``toyota``, ``tire`` in ``tiredness`` are no roots."""
    spec = DomainSpec(roots=["ev", "toy", "tire"], root_context=["standard", "certification"])
    signals = DomainGuard(spec).signals(query, scored("IS 9873", score=0.9))
    assert signals.root is None


@pytest.mark.parametrize(
    ("query", "root", "context"),
    [
        ("waterbottle isi certification", "water", "isi"),
        ("water bottles ISI standard", "water", "isi"),
        ("batteries safety norms", "battery", "safety"),
        ("standards for TMT bars", "tmt", "standard"),
        ("rechargeable cells safety requirements", "cell", "safety"),
        ("certification needed for vehicle headlamps", "headlamp", "certification"),
        ("is bromate limited in packaged water", "water", "limited"),
        ("ceiling fan minimum air delivery", "fan", "minimum"),
    ],
)
def test_root_forms_next_to_context_are_found(
    guard: DomainGuard, query: str, root: str, context: str
) -> None:
    """A root as a word, simple plural or two-root compound is found beside a context word."""
    assert guard.signals(query, scored("IS 14543")).root == (root, context)


@pytest.mark.parametrize("query", ["set top box registration", "settop box registration"])
def test_a_hyphenated_root_matches_when_written_with_a_space_or_joined(query: str) -> None:
    """A root listed as ``set-top box`` is found as ``set top box`` and ``settop box`` too."""
    spec = DomainSpec(roots=["set-top box"], root_context=["registration"])
    signals = DomainGuard(spec).signals(query, scored("IS 616", score=0.9))
    assert signals.root == ("set-top box", "registration")


def test_root_beyond_the_window_needs_the_dense_tier(guard: DomainGuard) -> None:
    """A context word more than root_window words away does not make tier 3 fire."""
    far = "standard answers for every single question about cement"
    assert guard.signals(far, scored("IS 269")).root is None
    assert guard.signals("standard answers about cement", scored("IS 269")).root is not None


def test_bare_root_without_context_falls_to_the_dense_tier(
    guard: DomainGuard, index: VectorIndex
) -> None:
    """A root with no regulatory word nearby is judged by similarity alone."""
    query = "what color is water"
    decision = guard.decide(query, retrieve(index, query))
    assert "root" not in decision.evidence
    assert decision.tier == "below_threshold"
    high = guard.decide(query, scored("IS 14543", score=0.9))
    assert high.tier == "dense"


def test_root_needs_the_similarity_floor(guard: DomainGuard) -> None:
    """Root and context alone do not accept when similarity is below root_min_similarity."""
    low = guard.decide("water bottle isi standard", scored("IS 14543", score=0.1))
    assert low.tier == "below_threshold"
    assert (low.evidence["root"], low.evidence["context"]) == ("water", "isi")
    ok = guard.decide("water bottle isi standard", scored("IS 14543", score=0.25))
    assert ok.tier == "root"


@pytest.mark.parametrize(
    "query", ["ISI mark for packaged water bottles", "IS 2062 structural steel", "pizza"]
)
def test_no_chunks_cannot_be_accepted_by_similarity(guard: DomainGuard, query: str) -> None:
    """With nothing retrieved, similarity is None and only tier 1 or a rejection remains."""
    decision = guard.decide(query, [])
    assert decision.similarity is None
    assert decision.similarity_source is None
    assert decision.tier == "below_threshold"
    assert not decision.allowed
    assert "Nothing was retrieved" in decision.reason


def test_similarity_source_is_retriever_when_every_chunk_is_scored(guard: DomainGuard) -> None:
    """Every chunk scored: the best score is the similarity, and no chunk is embedded."""
    chunks = [Chunk("a", {}, score=0.31), Chunk("b", {}, score=0.62)]
    decision = guard.decide("Frontal impact protection for passenger cars", chunks)
    assert (decision.similarity, decision.similarity_source) == (0.62, "retriever")
    assert decision.tier == "dense"
    assert decision.evidence["score"] == 0.62


def test_similarity_source_is_embedder_and_cached(embedder: MiniLMEmbedder) -> None:
    """An unscored chunk makes the guard embed; the cosine matches and repeats hit the cache."""
    counting = CountingEmbedder(embedder)
    fresh = DomainGuard(SPEC, counting)
    texts = [c.text for c in load_corpus("bis")[:3]]
    chunks = [Chunk(texts[0], {}, score=0.9), Chunk(texts[1]), Chunk(texts[2])]
    query = "Ordinary Portland cement grades"
    decision = fresh.decide(query, chunks)
    expected = max(
        cosine(embedder.embed_query(query.lower()), vector)
        for vector in embedder.embed_documents(texts)
    )
    assert decision.similarity_source == "embedder"
    assert decision.similarity == pytest.approx(expected, abs=1e-5)
    assert (counting.queries, counting.documents) == (1, 3)
    fresh.decide(query, chunks)
    fresh.decide("cement strength", chunks)
    assert (counting.queries, counting.documents) == (2, 3)


def test_pure_python_cosine_matches_numpy(
    embedder: MiniLMEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without numpy (a core-only install) the guard computes the same similarity."""
    chunks = [Chunk(c.text) for c in load_corpus("bis")[:4]]
    query = "white cement whiteness"
    with_numpy = DomainGuard(SPEC, embedder).decide(query, chunks).similarity
    monkeypatch.setattr(embeddings_module, "_numpy", lambda: None)
    without = DomainGuard(SPEC, embedder).decide(query, chunks)
    assert without.similarity == pytest.approx(with_numpy, abs=1e-5)
    assert without.similarity_source == "embedder"


def test_scored_chunks_never_touch_the_embedder(embedder: MiniLMEmbedder) -> None:
    """Blocklist, identifier and (declared cosine) retriever-scored decisions embed nothing."""
    counting = CountingEmbedder(embedder)
    fresh = DomainGuard(COSINE, counting)
    fresh.decide("bitcoin", [Chunk("unscored")])
    fresh.decide("IS 269 scope", [Chunk("unscored", {"standard": "IS 269"})])
    fresh.decide("cement", scored("IS 269"))
    assert (counting.queries, counting.documents) == (0, 0)


def test_decision_explains_itself(guard: DomainGuard, index: VectorIndex) -> None:
    """Reason is one sentence; refusal is the policy's text exactly when the query is rejected."""
    for query in ("ISI mark for packaged water bottles", "tell me a joke about cats", "bitcoin"):
        decision = guard.decide(query, retrieve(index, query))
        assert decision.reason.endswith(".")
        assert "\n" not in decision.reason
        assert decision.refusal == (None if decision.allowed else SPEC.refusal)
    assert "outside" in SPEC.refusal
    assert SPEC.refusal.startswith("Sorry")


def test_from_policy_without_a_domain_section_is_none() -> None:
    """A policy with no domain section yields no domain guard."""
    assert DomainGuard.from_policy(parse_policy("version: 1\n")) is None


def test_builtin_bis_policy_has_the_documented_shape() -> None:
    """The built-in bis policy: a broad blocklist, a prefixed identifier, roots and thresholds."""
    assert POLICY.name == "bis"
    assert len(SPEC.blocklist) >= 25
    assert {"bitcoin", "price", "music", "recipe", "weather", "dating"} <= set(SPEC.blocklist)
    assert {"water", "bottle", "cement", "rebar", "battery", "toy", "vltd"} <= set(SPEC.roots)
    assert {"standard", "bis", "isi", "certification", "safety", "grade"} <= set(SPEC.root_context)
    assert SPEC.identifier_keys == ["standard", "id"]
    assert 0.10 <= SPEC.root_min_similarity <= 0.20
    assert 0.45 <= SPEC.min_similarity <= 0.60
    assert SPEC.kinds is not None
    assert len(SPEC.kinds.in_domain) >= 20
    assert len(SPEC.kinds.everyday) >= 20


def test_bundled_catalogue_and_queries() -> None:
    """At least 55 standards with full metadata; at least 70 in- and 30 out-of-domain queries."""
    corpus = load_corpus("bis")
    assert len(corpus) >= 55
    assert len({c.id for c in corpus}) == len(corpus)
    for chunk in corpus:
        meta = chunk.metadata
        assert set(meta) == {"standard", "title", "product", "category", "year"}
        assert meta["standard"] == chunk.id
        assert str(chunk.id).startswith(("IS ", "IS/IEC ", "AIS "))
        assert chunk.text.startswith(meta["title"] + ". ")
        assert 1950 <= meta["year"] <= 2025
    queries = load_queries("bis")
    assert sum(q["in_domain"] is True for q in queries) >= 70
    assert sum(q["in_domain"] is False for q in queries) >= 30


@pytest.mark.parametrize(
    ("spec", "scores"),
    [
        (SPEC, [0.9, 0.8]),
        (COSINE, [7.3, 0.8]),
        (COSINE, [0.9, -1.5]),
        (COSINE, [float("nan"), 0.9]),
        (COSINE, [0.9, None]),
    ],
    ids=["undeclared", "bm25_score", "below_minus_one", "nan", "one_unscored"],
)
def test_retriever_scores_count_only_when_declared_cosine_in_range(
    embedder: MiniLMEmbedder, spec: DomainSpec, scores: list[float | None]
) -> None:
    """A BM25-style 7.3, a score outside [-1, 1] or undeclared scores are no similarity: the
    guard embeds, and an off-topic query is rejected."""
    counting = CountingEmbedder(embedder)
    guard = DomainGuard(spec, counting)
    texts = ["IS 269 ordinary Portland cement", "IS 2062 structural steel"]
    chunks = [Chunk(t, score=s) for t, s in zip(texts, scores, strict=True)]
    decision = guard.decide("how do I bake sourdough at home", chunks)
    assert decision.similarity_source == "embedder"
    assert counting.queries == 1
    assert decision.tier == "below_threshold"
    assert -1.0 <= (decision.similarity or 0.0) <= 1.0


def test_declared_cosine_scores_in_range_are_used() -> None:
    """Declared and in range, the best retriever score is the similarity (no embedder needed)."""
    chunks = [Chunk("a", score=-0.2), Chunk("b", score=0.62)]
    decision = DomainGuard(COSINE).decide("sulphate resisting cement", chunks)
    assert (decision.similarity, decision.similarity_source) == (0.62, "retriever")


def test_retriever_scores_key_is_validated() -> None:
    """``retriever_scores`` takes embed or cosine, and defaults to embed."""
    assert SPEC.retriever_scores == "embed"
    with pytest.raises(PolicyError, match="retriever_scores"):
        parse_policy("version: 1\ndomain: {retriever_scores: bm25}\n")


PAD = " ".join(["filler"] * 6)
LONG_QUERIES = {
    "roots_then_far_context": lambda n: f"water {PAD} " * n + f"standard {PAD} " * n,
    "compounds_then_context": lambda n: f"waterbottle {PAD} " * n + f"isi {PAD} " * n,
    "roots_only": lambda n: f"steel cement {PAD} " * n,
}


@pytest.mark.parametrize("build", LONG_QUERIES.values(), ids=LONG_QUERIES.keys())
def test_tier_three_work_grows_linearly_with_the_query(build: Callable[[int], str]) -> None:
    """Roots far from every context word are matched in work linear in the query: doubling the
    query at most doubles the lines run (matching every root against every context word, as
    before, quadrupled them)."""
    guard = DomainGuard(COSINE)
    chunks = scored("IS 269")

    def work(repeats: int) -> int:
        query = build(repeats)
        return lines_run(lambda: guard.signals(query, chunks), domain_terms, domain_module)

    assert growth(work, 300) < 2.3


def test_a_root_next_to_context_is_still_found_in_a_long_query() -> None:
    """The bisection finds the one pair in a long query of unpaired roots and context words."""
    query = f"water {PAD} " * 500 + "cement standard " + f"{PAD} standard " * 500
    signals = DomainGuard(COSINE).signals(query, scored("IS 269"))
    assert signals.root == ("cement", "standard")


@pytest.mark.parametrize(
    "query",
    [
        "What is 269 plus 1?",
        "The total is 269.",
        "what is 2062 divided by 2",
        "The answer is 1786, not 1787",
    ],
)
def test_the_verb_is_before_a_number_is_no_identifier(guard: DomainGuard, query: str) -> None:
    """The English "is" before a number is not the prefix IS, even when IS 269 is retrieved."""
    decision = guard.decide(query, scored("IS 269", "IS 2062", "IS 1786", score=0.05))
    assert decision.tier != "identifier"
    assert not decision.allowed


@pytest.mark.parametrize(
    ("query", "standard"),
    [
        ("IS 2062 structural steel grades", "IS 2062"),
        ("What does IS 2062 cover?", "IS 2062"),
        ("what is IS 269?", "IS 269"),
        ("requirements in IS 456", "IS 456"),
        ("conform to IS 456", "IS 456"),
        ("Scope of IS 1786, please", "IS 1786"),
        ("grades (IS 1786)", "IS 1786"),
        ("IS:2062 scope", "IS 2062"),
        ("is-2062 scope", "IS 2062"),
        ("IS2062 scope", "IS 2062"),
        ("AIS 140 devices", "AIS 140"),
    ],
)
def test_standard_identifiers_still_decide_at_tier_two(
    guard: DomainGuard, query: str, standard: str
) -> None:
    """The prefix IS still counts at the start, after punctuation or a word that introduces a
    name, and joined to its number."""
    decision = guard.decide(query, scored(standard, score=0.05))
    assert decision.tier == "identifier"


@pytest.mark.parametrize("query", ["VLTD for commercial vehicles", "RCCB for a new house"])
def test_signature_term_counts_without_a_regulatory_word(guard: DomainGuard, query: str) -> None:
    """A term only this domain uses decides tier 3 on its own, above the similarity floor."""
    decision = guard.decide(query, scored("AIS 140", score=0.3))
    assert decision.tier == "root"
    assert decision.evidence["root"] == decision.evidence["context"]
    assert "a term only this domain uses" in decision.reason
    assert guard.decide(query, scored("AIS 140", score=0.1)).tier == "below_threshold"


@pytest.mark.parametrize(
    "query",
    [
        "What is the credit rating of the big steel companies?",
        "Is it legal to carry a battery pack on a plane?",
        "Best quality water bottle for a hiking trip",
        "Which code editor runs well on an old laptop?",
        "Are pets allowed in the car on the ferry?",
        "What does the label on my phone box mean for recycling?",
        "Rules for the water polo league this season",
    ],
)
def test_everyday_words_beside_a_catalogue_noun_are_not_regulatory_context(
    guard: DomainGuard, query: str
) -> None:
    """Ratings, rules, codes, quality, labels and what is allowed are everyday words: beside a
    product noun they do not make tier 3 fire (the dense tier decides)."""
    assert guard.signals(query, scored("IS 1786")).root is None


@pytest.mark.parametrize(
    ("query", "root", "context"),
    [
        ("are mild steel bars still permitted in slabs", "mild steel", "permitted"),
        ("is selling this fancy dress for kids banned", "fancy dress", "banned"),
        ("costume flammability test for children", "costume", "flammability"),
    ],
)
def test_whether_a_product_is_allowed_and_dress_up_toys_are_product_questions(
    guard: DomainGuard, query: str, root: str, context: str
) -> None:
    """Bars of mild steel and costumes are products of the catalogue; whether one may be sold
    (allowed, permitted, banned) is a regulatory question."""
    assert guard.signals(query, scored("IS 1786")).root == (root, context)


@pytest.mark.parametrize(
    "query", ["are dogs allowed in the park", "fancy dress ideas for a birthday party"]
)
def test_permission_and_costumes_without_a_product_question_stay_out(
    guard: DomainGuard, index: VectorIndex, query: str
) -> None:
    """Permission with no product, and a costume with no regulatory word, are refused."""
    assert not guard.decide(query, retrieve(index, query)).allowed
