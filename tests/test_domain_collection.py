"""Identifiers a collection holds, learned from chunks' metadata: the lookup the domain guard's
tier 2 calls for an identifier the query names."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rag_guard_integrations import Chunk, Guard, parse_policy
from rag_guard_integrations.data import load_corpus
from rag_guard_integrations.guards.domain import collection_identifiers
from rag_guard_integrations.guards.domain_collection import CollectionIdentifiers
from rag_guard_integrations.guards.domain_identifiers import canonical_identifier


def test_learning_reads_the_policy_keys_and_the_identifier_inside_a_value() -> None:
    """``standard`` and ``id`` values are learned, and "IS 1239 (Part 1)" also as "IS 1239"."""
    known = CollectionIdentifiers.for_policy("bis")
    assert len(known) == 0
    new = known.learn([Chunk("tubes", {"standard": "IS 1239 (Part 1)"}),
                       Chunk("rules", {"id": ["AIS 140", "AIS 140"]})])  # fmt: skip
    assert new == 3
    assert known(canonical_identifier("IS 1239"))
    assert known(canonical_identifier("IS 1239 (Part 1)"))
    assert known(canonical_identifier("AIS-140"))
    assert known.spelling("is1239") == "IS 1239 (Part 1)"
    assert known.learn([Chunk("again", {"standard": "IS 1239 (Part 1)"})]) == 0


def test_text_and_other_metadata_teach_nothing() -> None:
    """An identifier in a chunk's text or under another key is not one the collection holds."""
    known = CollectionIdentifiers.for_policy("bis")
    known.learn([Chunk("IS 2062 covers structural steel", {"title": "IS 2062"})])
    assert not known("is2062")
    assert len(known) == 0


def test_the_whole_catalogue_is_learned_like_collection_identifiers() -> None:
    """Learning the catalogue knows every value ``collection_identifiers`` lists."""
    corpus = load_corpus("bis")
    known = CollectionIdentifiers.for_policy("bis")
    known.learn(corpus)
    for value in collection_identifiers(corpus, ["standard", "id"]):
        assert known(canonical_identifier(value)), value


def test_a_guard_accepts_what_it_has_learned_as_it_learns_it() -> None:
    """Passed as ``identifiers=``, the set is read at each query: learning later counts."""
    known = CollectionIdentifiers.for_policy("bis")
    guard = Guard.from_policy("bis", identifiers=known)
    assert guard.check("IS 2062 requirements", []).query.tier != "identifier"
    known.learn([Chunk("Structural steel", {"standard": "IS 2062"})])
    decision = guard.check("IS 2062 requirements", []).query
    assert (decision.tier, decision.allowed) == ("identifier", True)
    assert guard.check("what is 2062 divided by two", []).query.tier != "identifier"


def test_without_a_pattern_the_whole_value_is_the_identifier() -> None:
    """A policy without ``identifier_pattern`` learns each value in canonical form."""
    known = CollectionIdentifiers(keys=["sku"])
    known.learn([Chunk("x", {"sku": "AB-12"}), Chunk("y", {"sku": " "})])
    assert known("ab12")
    assert len(known) == 1
    assert len(CollectionIdentifiers.for_policy("contracts")) == 0


@given(st.lists(st.integers(1, 99_999), min_size=1, max_size=60))
def test_learning_from_many_threads_loses_nothing(numbers: list[int]) -> None:
    """Chunks learned concurrently by several threads are all known afterwards."""
    known = CollectionIdentifiers.for_policy("bis")
    chunks = [Chunk("x", {"standard": f"IS {n}"}) for n in numbers]
    with ThreadPoolExecutor(max_workers=4) as pool:
        list(pool.map(lambda c: known.learn([c]), chunks))
    assert all(known(f"is{n}") for n in numbers)
    assert len(known) == len(set(numbers))


@pytest.mark.parametrize("value", [["IS 269", "IS 8112"], ("IS 269",), "IS 269"])
def test_list_and_scalar_metadata_are_both_read(value: object) -> None:
    """Metadata holding one identifier or several is read the same way."""
    known = CollectionIdentifiers.for_policy("bis")
    known.learn([Chunk("cement", {"standard": value})])
    assert known("is269")


def test_the_gate_never_decides_on_a_chunk_the_caller_may_not_see() -> None:
    """A retrieved chunk of another tenant that carries the identifier a question names does
    not let the question through the gate: the gate judges only what access let through, so
    which answer a caller gets never tells them what others' chunks hold."""
    policy = parse_policy(
        "version: 1\nname: tenants\nextends: [bis]\naccess: {attributes: [tenant]}\n"
    )
    guard = Guard(policy)
    theirs = Chunk("Mild steel wire", {"standard": "IS 4711", "tenant": "other"})
    mine = Chunk("Mild steel wire", {"standard": "IS 4711", "tenant": "mine"})
    assert guard.check("IS 4711 summary", [theirs], {"tenant": ["mine"]}).query.tier != (
        "identifier"
    )
    assert guard.check("IS 4711 summary", [mine], {"tenant": ["mine"]}).query.tier == ("identifier")
