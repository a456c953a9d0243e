"""Tier 2's identifier reading: a prefix that is also a word counts only in identifier form."""

from __future__ import annotations

import pickle

import pytest

from rag_guard_integrations import Chunk, Guard, load_policy
from rag_guard_integrations.data import load_corpus
from rag_guard_integrations.guards.domain import DomainGuard, collection_identifiers
from rag_guard_integrations.guards.domain_identifiers import IdentifierReader, canonical_identifier

POLICY = load_policy("bis")
assert POLICY.domain is not None
SPEC = POLICY.domain.model_copy(update={"retriever_scores": "cosine"})
READER = IdentifierReader(SPEC.identifier_pattern or "", SPEC.identifier_word_prefixes)
# Far below every threshold: only tier 2 can accept a query over these chunks.
LOW = [Chunk("catalogue entry", {"standard": "IS 99"}, score=0.05)]


@pytest.fixture(scope="module")
def knowing() -> DomainGuard:
    """The ``bis`` domain guard told the catalogue's identifiers (IS 269, IS 2062, IS 1239...)."""
    identifiers = collection_identifiers(load_corpus("bis"), SPEC.identifier_keys)
    return DomainGuard(SPEC, identifiers=identifiers)


VERB_IS = [
    "x is 269",
    "Tell me why 300 is 269 more than 31",
    "What is 269 plus 1?",
    "what is 2062 divided by two",
    "This is 2062 all over again",
    "this is 1239 too many",
    "Is 2062 a leap year?",
    "is 2062 a leap year",
    "The deadline is 2026.",
    "2062 is 2000 plus 62",
    "WHAT IS 269 PLUS 1?",
    "IS 269 PLUS 1 EVEN?",
    "what ｉｓ ２６９ plus 1",  # full-width lower case
    "what \u0456\u0455 269 plus 1",  # Cyrillic lower-case look-alikes of "is"
    "my score is\u00a0269",
]


@pytest.mark.parametrize("query", VERB_IS)
def test_the_verb_is_before_a_number_names_no_identifier(query: str) -> None:
    """Lower-case, sentence-case and all-capitals "is" before a number is read as the verb."""
    assert READER.typed(query) == {}


@pytest.mark.parametrize("query", VERB_IS)
def test_the_verb_is_does_not_pass_tier_two_of_a_knowing_guard(
    knowing: DomainGuard, query: str
) -> None:
    """Even when the collection holds IS 269, IS 2062 and IS 1239, such queries are refused."""
    decision = knowing.decide(query, LOW)
    assert decision.tier == "below_threshold"
    assert not decision.allowed


@pytest.mark.parametrize(
    ("query", "canonical"),
    [
        ("IS 2062 requirements", "is2062"),
        ("IS 1239 pipes", "is1239"),
        ("IS 2062", "is2062"),
        ("IS:2062 scope", "is2062"),
        ("IS-2062 grades", "is2062"),
        ("is:2062 grades", "is2062"),
        ("is-2062 grades", "is2062"),
        ("is2062 grades", "is2062"),
        ("what is IS 269?", "is269"),
        ("ＩＳ ２０６２ requirements", "is2062"),  # full-width capitals and digits
        ("IS ２０６２ requirements", "is2062"),
        ("\u0406\u0405 2062 requirements", "is2062"),  # Cyrillic capital look-alikes
        ("scope of is 2062", "is2062"),
        ("pipes under is 1239", "is1239"),
        ("grades (is 1786)", "is1786"),
        ("what does is 2062 cover", "is2062"),
        ("WHAT DOES IS 2062 COVER?", "is2062"),
        ("what is is 694 about", "is694"),
        ("the is 456 code", "is456"),
        ("ais 140 devices", "ais140"),
        ("IS 2062 and IS 1786", "is2062"),
    ],
)
def test_identifier_forms_are_read(query: str, canonical: str) -> None:
    """Joined, capital, folded and after-a-preposition forms, and non-word prefixes, count."""
    assert canonical in READER.typed(query)


@pytest.mark.parametrize("query", ["IS 2062 requirements", "IS 1239 pipes", "is:2062 grades"])
def test_collection_identifiers_pass_tier_two(knowing: DomainGuard, query: str) -> None:
    """An identifier of the collection in identifier form passes, whatever was retrieved."""
    decision = knowing.decide(query, LOW)
    assert decision.tier == "identifier"
    assert decision.evidence["key"] == "collection"


def test_the_reason_quotes_the_identifier_as_the_query_writes_it() -> None:
    """A lookup has no spelling of its own, so the decision quotes what the query typed."""
    guard = DomainGuard(SPEC, identifiers=lambda canonical: canonical == "is2062")
    decision = guard.decide("Scope of ＩＳ ２０６２?", LOW)
    assert decision.evidence["identifier"] == "ＩＳ ２０６２"


def test_a_prefix_not_listed_as_a_word_counts_in_every_form() -> None:
    """Without ``identifier_word_prefixes`` a lower-case "is 2062" is read as before."""
    reader = IdentifierReader(SPEC.identifier_pattern or "")
    assert reader.typed("what is 2062 divided by two") == {"is2062": "is 2062"}


def test_canonical_identifier_ignores_case_and_punctuation() -> None:
    """``IS 2062``, ``is-2062``, ``IS:2062`` and ``IS2062`` compare equal."""
    assert {canonical_identifier(v) for v in ("IS 2062", "is-2062", "IS:2062", "IS2062")} == {
        "is2062"
    }


# --- a lookup the retriever or index provides ---------------------------------------------


def test_lookup_accepts_what_the_index_holds() -> None:
    """The guard asks the lookup with the canonical form and accepts what it holds."""
    asked: list[str] = []

    def holds(canonical: str) -> bool:
        asked.append(canonical)
        return canonical == "is1239"

    guard = DomainGuard(SPEC, identifiers=holds)
    decision = guard.decide("IS 1239 pipes", LOW)
    assert (decision.tier, decision.evidence["key"]) == ("identifier", "collection")
    assert guard.decide("IS 4000 pipes", LOW).tier == "below_threshold"
    assert asked == ["is1239", "is4000"]


def test_lookup_is_not_asked_about_the_verb_is() -> None:
    """A query with no identifier in identifier form never reaches the lookup."""
    asked: list[str] = []
    guard = DomainGuard(SPEC, identifiers=lambda c: asked.append(c) is None)
    assert not guard.decide("What is 269 plus 1?", LOW).allowed
    assert asked == []


def test_lookup_that_raises_rejects_the_query_in_the_guard() -> None:
    """A broken lookup fails closed: the Guard refuses the query and passes no chunk."""

    def broken(canonical: str) -> bool:
        raise ConnectionError("index unavailable")

    guard = Guard(POLICY.model_copy(update={"domain": SPEC}), identifiers=broken)
    result = guard.check("IS 2062 requirements", [{"text": "steel", "meta": {}, "score": 0.9}])
    assert result.allowed == []
    assert result.query.tier == "error"
    assert "ConnectionError" in result.query.reason


def holds_is_1239(canonical: str) -> bool:
    """A module-level lookup, so that a guard built with it pickles."""
    return canonical == "is1239"


def test_guard_passes_a_lookup_to_tier_two_and_keeps_it_when_copied() -> None:
    """``Guard(identifiers=lookup)`` accepts what the lookup holds, also after a pickle copy."""
    guard = Guard(POLICY.model_copy(update={"domain": SPEC}), identifiers=holds_is_1239)
    for copy in (guard, pickle.loads(pickle.dumps(guard))):
        result = copy.check("IS 1239 pipes", [{"text": "pipes", "meta": {}, "score": 0.05}])
        assert result.query.tier == "identifier"
        assert copy.check("IS 4000 pipes", [{"text": "x", "score": 0.05}]).query.allowed is False
