"""The question-kind signal of the domain guard: masking, the margin, the kind tier and the
everyday veto, with real MiniLM retrieval over the bundled BIS catalogue."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from rag_guard_integrations import Chunk, PolicyError, load_policy, parse_policy
from rag_guard_integrations.data import load_corpus
from rag_guard_integrations.embeddings import unit
from rag_guard_integrations.guards.domain import REJECTING, DomainGuard, DomainSignals, tier_for
from rag_guard_integrations.guards.domain_kinds import KindScorer
from rag_guard_integrations.guards.domain_terms import TermMatcher
from rag_guard_integrations.policy.schema import DomainSpec, KindSpec
from rag_guard_integrations.vector_index import VectorIndex

if TYPE_CHECKING:
    from rag_guard_integrations.embeddings import MiniLMEmbedder

SPEC = load_policy("bis").domain
assert SPEC is not None
assert SPEC.kinds is not None
KINDS: KindSpec = SPEC.kinds
COSINE = SPEC.model_copy(update={"retriever_scores": "cosine"})


class CountingEmbedder:
    """The real embedder, counting the texts the guard asks it to embed."""

    def __init__(self, inner: MiniLMEmbedder) -> None:
        self.inner = inner
        self.texts: list[str] = []

    def embed_query(self, text: str) -> list[float]:
        self.texts.append(text)
        return self.inner.embed_query(text)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.texts.extend(texts)
        return self.inner.embed_documents(texts)


@pytest.fixture(scope="module")
def index(embedder: MiniLMEmbedder) -> VectorIndex:
    """An exact cosine index over the bundled catalogue."""
    return VectorIndex(load_corpus("bis"), embedder)


@pytest.fixture(scope="module")
def guard(embedder: MiniLMEmbedder) -> DomainGuard:
    """The built-in ``bis`` domain guard, its retriever scores declared cosine."""
    return DomainGuard(COSINE, embedder)


def scored(score: float) -> list[Chunk]:
    """One synthetic retrieved chunk with a cosine score."""
    return [Chunk("catalogue entry", {"standard": "IS 269"}, score=score)]


@pytest.mark.parametrize(
    ("query", "masked"),
    [
        ("is my pressure cooker safe to import", "is my product safe to import"),
        ("GI sheets and TMT bars", "product and product"),  # "bars" is a product word too
        ("import mixer grinders", "import product"),
        ("waterbottles for a school trip", "product for a school trip"),
        ("which fe 500d saria", "which product"),
        ("is toyota a good brand", "is toyota a good brand"),
    ],
)
def test_product_terms_plurals_and_compounds_are_masked(query: str, masked: str) -> None:
    """Roots (plural, compound) and signature terms become the placeholder; words that merely
    contain a root ("toyota") stay."""
    scorer = KindScorer(KINDS, (TermMatcher(SPEC.roots, compounds=True),
                                TermMatcher(SPEC.signature_terms, compounds=False)))  # fmt: skip
    assert scorer.masked(query.lower()) == masked


def test_the_margin_is_best_in_domain_minus_best_everyday(embedder: MiniLMEmbedder) -> None:
    """The margin equals the difference of the best cosines to each set of prototypes."""
    kinds = KindSpec(in_domain=["which standard covers this product", "is this product safe"],
                     everyday=["where can I buy this product"])  # fmt: skip
    scorer = KindScorer(kinds, (TermMatcher(["kettle"], compounds=True),))

    def vector_of(text: str) -> object:
        return unit(embedder.embed_query(text))

    masked = vector_of("which standard covers my product")
    inside = max(float(masked @ vector_of(p)) for p in kinds.in_domain)  # type: ignore[operator]
    everyday = float(masked @ vector_of(kinds.everyday[0]))  # type: ignore[operator]
    margin = scorer.margin("which standard covers my kettle", vector_of, embedder)
    assert margin == pytest.approx(inside - everyday, abs=1e-5)
    assert margin > 0
    assert scorer.margin("where can i buy a kettle", vector_of, embedder) < 0


@pytest.mark.parametrize(
    "query",
    [
        "can shops sell helmets that were never tested",
        "is it legal to import ceiling fans for resale",
        "what thickness do lpg cylinder walls need",
        "are toys for toddlers checked for small parts",
        "does a power bank sold in india need registration",
    ],
)
def test_product_questions_without_a_regulatory_word_nearby_pass(
    guard: DomainGuard, index: VectorIndex, query: str
) -> None:
    """A product named with no regulatory word beside it passes: the question reads as one the
    catalogue answers (tier ``kind``), or its similarity carries it."""
    decision = guard.decide(query, index.search(query, k=5))
    assert decision.allowed, decision.reason


@pytest.mark.parametrize(
    "query",
    [
        "how long should i pressure cook chickpeas",
        "my ceiling fan wobbles when it spins fast",
        "which helmet colour suits a black scooter",
        "how do i get the smell out of a new water bottle",
        "cheap tmt bars rate per kg in chennai",
        "how to remove rust from steel almirah",
    ],
)
def test_everyday_questions_naming_a_product_are_refused(
    guard: DomainGuard, index: VectorIndex, query: str
) -> None:
    """Cooking, repairs, looks, cleaning and prices are refused though a product is named."""
    decision = guard.decide(query, index.search(query, k=5))
    assert decision.tier in REJECTING, decision.reason
    assert decision.refusal == SPEC.refusal


def test_the_everyday_veto_keeps_the_dense_tier_from_accepting(guard: DomainGuard) -> None:
    """An everyday question scored above the dense threshold is refused as ``everyday``."""
    decision = guard.decide("best pressure cooker brand for a big family", scored(0.9))
    assert (decision.tier, decision.allowed) == ("everyday", False)
    assert decision.evidence["margin"] <= -KINDS.everyday_margin
    assert "everyday question" in decision.reason


def test_the_kind_tier_explains_itself(guard: DomainGuard) -> None:
    """A kind decision names the cue and the margin, and records both as evidence."""
    decision = guard.decide("can i import mixer grinders to sell here", scored(0.5))
    assert decision.tier == "kind"
    assert decision.evidence["cue"] == "mixer"
    assert decision.evidence["margin"] >= KINDS.min_margin
    assert "'mixer'" in decision.reason
    assert "reads as a question the collection answers" in decision.reason


@pytest.mark.parametrize(
    "query",
    ["can i import these things to sell here",
     "what are the certification requirements for a yoga teacher"],
)  # fmt: skip
def test_the_kind_tier_needs_a_product(guard: DomainGuard, query: str) -> None:
    """A question that names no product is not accepted by its wording, even with regulatory
    words in it: they say nothing of which collection it is about."""
    signals = guard.signals(query, scored(0.5), complete=True)
    assert signals.cue is None
    assert signals.kind is not None
    assert tier_for(signals, 0.16, 0.58, KINDS) == "below_threshold"


def test_the_kind_tier_needs_its_floor(guard: DomainGuard) -> None:
    """Below ``kinds.min_similarity`` the kind tier does not accept."""
    low = guard.decide("can i import mixer grinders to sell here", scored(0.3))
    assert low.tier == "below_threshold"


@pytest.mark.parametrize(
    ("signals", "tier"),
    [
        (DomainSignals(similarity=0.5, cue="fan", kind=0.2), "kind"),
        (DomainSignals(similarity=0.5, cue=None, kind=0.2), "below_threshold"),
        (DomainSignals(similarity=0.3, cue="fan", kind=0.2), "below_threshold"),
        (DomainSignals(similarity=0.5, cue="fan", kind=0.05), "below_threshold"),
        (DomainSignals(similarity=0.7, cue="fan", kind=-0.3), "everyday"),
        (DomainSignals(similarity=0.7, cue="fan", kind=-0.1), "dense"),
        (DomainSignals(similarity=0.5, cue="fan", kind=-0.3), "below_threshold"),
        (DomainSignals(root=("fan", "isi"), similarity=0.3, cue="fan", kind=-0.5), "root"),
        (DomainSignals(similarity=0.7, cue="fan", kind=None), "dense"),
    ],
)
def test_tier_for_applies_the_kind_thresholds_in_order(signals: DomainSignals, tier: str) -> None:
    """Root first; then the kind tier (cue, margin, floor); then the everyday veto; then dense."""
    kinds = KINDS.model_copy(update={"min_margin": 0.1, "min_similarity": 0.35,
                                     "everyday_margin": 0.2})  # fmt: skip
    assert tier_for(signals, 0.16, 0.58, kinds) == tier


def test_without_a_kinds_section_the_margin_is_ignored() -> None:
    """A policy without ``kinds`` decides by the root and dense tiers alone."""
    signals = DomainSignals(similarity=0.7, cue="fan", kind=-0.9)
    assert tier_for(signals, 0.16, 0.58, None) == "dense"
    plain = DomainGuard(SPEC.model_copy(update={"kinds": None}))
    assert plain.signals("best ceiling fan brand", scored(0.7)).kind is None


def test_the_margin_is_computed_only_where_it_can_decide(embedder: MiniLMEmbedder) -> None:
    """Root and context together, or a low score with no cue, embed nothing; a product alone
    above the kind floor embeds its masked text once, and a repeat hits the cache."""
    counting = CountingEmbedder(embedder)
    fresh = DomainGuard(COSINE, counting)
    assert fresh.signals("ISI mark for water bottles", scored(0.9)).kind is None
    assert fresh.signals("how do i train a puppy", scored(0.3)).kind is None
    assert counting.texts == []
    first = fresh.signals("can i import mixer grinders to sell here", scored(0.5))
    assert first.kind is not None
    prototypes = len(KINDS.in_domain) + len(KINDS.everyday)
    assert counting.texts[prototypes:] == ["can i import product to sell here"]
    again = fresh.signals("can i import mixer grinders to sell here", scored(0.5))
    assert again.kind == first.kind
    assert len(counting.texts) == prototypes + 1
    complete = fresh.signals("how do i train a puppy", scored(0.3), complete=True)
    assert complete.kind is not None


@pytest.mark.parametrize(
    ("kinds", "message"),
    [
        ("{in_domain: [], everyday: [x]}", "in_domain"),
        ("{in_domain: [x]}", "everyday"),
        ("{in_domain: [x], everyday: [y], min_margin: 2}", "min_margin"),
        ("{in_domain: [x], everyday: [y], placeholder: ''}", "placeholder"),
        ("{in_domain: [x], everyday: [y], prototypes: 3}", "prototypes"),
    ],
)
def test_a_bad_kinds_section_is_a_policy_error(kinds: str, message: str) -> None:
    """Empty prototype lists, thresholds outside [-1, 1], a blank placeholder and unknown keys
    fail at load time, naming the key."""
    with pytest.raises(PolicyError, match=message):
        parse_policy(f"version: 1\ndomain:\n  kinds: {kinds}\n")


def test_the_default_spec_has_no_kind_signal() -> None:
    """A domain section without ``kinds`` keeps the guard as it was: no kind tier."""
    assert DomainSpec().kinds is None
