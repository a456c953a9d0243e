"""Match modes per access attribute (``match: all | any``): the policy option, the guard's
verdict, the constraint type that carries it, and how each store's pushdown writes it."""

from __future__ import annotations

import importlib
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from langchain_core.structured_query import Comparator, Comparison, Operation, Operator
from llama_index.core.vector_stores.types import FilterOperator, MetadataFilters

from rag_guard_integrations import Chunk, Guard, PolicyError, parse_policy
from rag_guard_integrations.core.constraints import Allowed, Constraints
from rag_guard_integrations.langchain.pushdown import store_directive
from rag_guard_integrations.langchain.stores import STORES as LANGCHAIN_STORES
from rag_guard_integrations.langchain.stores import Translated
from rag_guard_integrations.llama_index.pushdown import constraint_filters, filters_for
from rag_guard_integrations.llama_index.stores import STORES as LLAMA_STORES
from rag_guard_integrations.llama_index.stores import StoreOperators

ANY_POLICY = "access: {attributes: [groups], match: {groups: any}}"
ALL_POLICY = "access: {attributes: [groups]}"
HR_FINANCE = {"groups": ["hr", "finance"]}


@pytest.mark.parametrize(
    ("policy", "access", "allowed"),
    [
        (ANY_POLICY, {"groups": ["hr"]}, True),
        (ANY_POLICY, {"groups": ["legal"]}, False),
        (ALL_POLICY, {"groups": ["hr"]}, False),
        (ALL_POLICY, {"groups": ["hr", "finance"]}, True),
        (ANY_POLICY, {}, False),
    ],
)
def test_a_shared_document_is_visible_per_match_mode(
    policy: str, access: Any, allowed: bool
) -> None:
    """A document shared with hr and finance: any one group suffices under `any`, every group
    is needed under `all` (the default), and no grant still denies."""
    result = Guard(parse_policy(policy)).check("q", [Chunk("text", HR_FINANCE)], access=access)
    assert bool(result.allowed) is allowed


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("access: {attributes: [groups], match: {groups: some}}", "match.groups"),
        ("access: {attributes: [groups], match: {team: any}}", "list it there too"),
    ],
)
def test_bad_match_option_is_a_policy_error(text: str, message: str) -> None:
    """An unknown mode, or a mode for an attribute the section does not control, fails to load."""
    with pytest.raises(PolicyError, match=message):
        parse_policy(text)


def test_prefilter_carries_the_match_mode() -> None:
    """Guard.prefilter gives each attribute its allowlist together with its match mode."""
    constraints = Guard(parse_policy(ANY_POLICY)).prefilter("q", {"groups": ["hr"]})
    assert constraints == Constraints({"groups": Allowed(frozenset({"hr"}), "any")})


values = st.lists(st.sampled_from(["hr", "finance", "legal", ""]), max_size=3)


@given(
    stored=st.one_of(st.none(), st.sampled_from(["hr", "legal", ""]), values),
    granted=values,
    mode=st.sampled_from(["all", "any"]),
)
def test_constraints_agree_with_the_guard(stored: Any, granted: list[str], mode: str) -> None:
    """For any stored value and grant, the constraint admits a chunk exactly when the guard does,
    so a store filtering by it never withholds what the guard would allow."""
    policy = ANY_POLICY if mode == "any" else ALL_POLICY
    guard = Guard(parse_policy(policy))
    metadata = {} if stored is None else {"groups": stored}
    allowed = bool(guard.check("q", [Chunk("t", metadata)], access={"groups": granted}).allowed)
    constraints = guard.prefilter("q", {"groups": granted})
    assert (constraints is not None and constraints.admits(metadata)) is allowed


def _eq(value: str) -> Comparison:
    return Comparison(comparator=Comparator.EQ, attribute="groups", value=value)


def _comparison(comparator: Comparator, value: Any) -> Comparison:
    return Comparison(comparator=comparator, attribute="groups", value=value)


ANY_HR_LEGAL = Constraints({"groups": Allowed(frozenset({"hr", "legal"}), "any")})


@pytest.mark.parametrize(
    ("store", "expected"),
    [
        (
            "langchain_qdrant.qdrant.QdrantVectorStore",
            _comparison(Comparator.IN, ["hr", "legal"]),
        ),
        (
            "langchain_chroma.vectorstores.Chroma",
            Operation(
                operator=Operator.OR,
                arguments=[
                    _comparison(Comparator.IN, ["hr", "legal"]),
                    _comparison(Comparator.CONTAIN, "hr"),
                    _comparison(Comparator.CONTAIN, "legal"),
                ],
            ),
        ),
        (
            "langchain_milvus.vectorstores.milvus.Milvus",
            Operation(
                operator=Operator.OR,
                arguments=[
                    _comparison(Comparator.CONTAIN, "hr"),
                    _comparison(Comparator.CONTAIN, "legal"),
                ],
            ),
        ),
    ],
)
def test_match_any_in_each_langchain_store(store: str, expected: Any) -> None:
    """`any` is written in each store's own operators: an OR of equalities where equality looks
    inside lists, else one-of or the list holds one, without one-of where it raises on lists."""
    support = LANGCHAIN_STORES[store]
    assert isinstance(support, Translated)
    assert store_directive(ANY_HR_LEGAL, support) == expected


@pytest.mark.parametrize("store", sorted(LLAMA_STORES))
@pytest.mark.parametrize("mode", ["all", "any"])
def test_llama_index_filters_use_only_the_stores_operators(store: str, mode: str) -> None:
    """Every filter emitted for a LlamaIndex store uses an operator its registry entry lists,
    nested only where the store takes nested filters."""
    operators: StoreOperators = LLAMA_STORES[store]
    constraints = Constraints({"groups": Allowed(frozenset({"hr"}), mode)})  # type: ignore[arg-type]
    made = filters_for(constraints, operators)
    listed = operators.any_of if mode == "any" else operators.all_of
    assert set(listed) <= {FilterOperator.IN, FilterOperator.ANY, FilterOperator.CONTAINS}
    if not listed:
        assert made is None
        return
    assert made is not None
    leaves = _leaves(made)
    assert {f.operator for f in leaves} <= set(listed)
    assert all(f.value == ["hr"] for f in leaves)
    nested = any(isinstance(f, MetadataFilters) for f in made.filters)
    assert not nested or operators.nests


def _leaves(filters: MetadataFilters) -> list[Any]:
    out: list[Any] = []
    for f in filters.filters:
        out.extend(_leaves(f) if isinstance(f, MetadataFilters) else [f])
    return out


def test_simple_store_default_keeps_the_old_call_shape() -> None:
    """constraint_filters without a store still gives IN for plain allowlists."""
    made = constraint_filters({"contract_type": frozenset({"MSA"})})
    assert made is not None
    assert [(f.key, f.operator, f.value) for f in made.filters] == [  # type: ignore[union-attr]
        ("contract_type", FilterOperator.IN, ["MSA"])
    ]


@pytest.mark.parametrize("mode", ["all", "any"])
@pytest.mark.parametrize("store", sorted(LANGCHAIN_STORES))
def test_no_negation_is_ever_emitted(store: str, mode: str) -> None:
    """Only positive tests reach a store: a negation (``$nin`` on a Chroma or PostgreSQL list
    answers with every document) could fail open if a store misread it."""
    support = LANGCHAIN_STORES[store]
    if not isinstance(support, Translated):
        return
    constraints = Constraints(
        {
            "groups": Allowed(frozenset({"hr", "legal"}), mode),  # type: ignore[arg-type]
            "contract_type": Allowed(frozenset({"MSA"})),
        }
    )
    directive = store_directive(constraints, support)
    assert directive is not None
    assert _comparators(directive) <= {Comparator.IN, Comparator.EQ, Comparator.CONTAIN}
    assert _operators(directive) <= {Operator.AND, Operator.OR}


def _comparators(directive: Any) -> set[Comparator]:
    if isinstance(directive, Comparison):
        return {directive.comparator}
    return set().union(*(_comparators(a) for a in directive.arguments))


def _operators(directive: Any) -> set[Operator]:
    if isinstance(directive, Comparison):
        return set()
    return {directive.operator}.union(*(_operators(a) for a in directive.arguments))


@pytest.mark.parametrize("path", sorted({*LANGCHAIN_STORES, *LLAMA_STORES}))
def test_every_registered_store_class_exists(path: str) -> None:
    """Each registry key names a real class at that import path, so a store moved by its
    package shows up here rather than silently losing pushdown."""
    module, _, name = path.rpartition(".")
    assert isinstance(getattr(importlib.import_module(module), name), type)


def test_a_single_string_is_one_allowed_value() -> None:
    """A plain mapping's string value is one value, not a set of characters."""
    assert Constraints.of({"contract_type": "MSA"})["contract_type"].values == {"MSA"}


ODD_NAME = Constraints(
    {"team') or ('1": Allowed(frozenset({"hr"})), "groups": Allowed(frozenset({"hr"}))}
)


@pytest.mark.parametrize(
    "store", sorted(p for p, s in LANGCHAIN_STORES.items() if isinstance(s, Translated))
)
def test_langchain_never_writes_an_odd_attribute_name(store: str) -> None:
    """An attribute name that is not a plain identifier is left out of every translated
    filter (the guard still checks it); the plain one is still pushed down."""
    support = LANGCHAIN_STORES[store]
    assert isinstance(support, Translated)
    assert _attributes(store_directive(ODD_NAME, support)) == {"groups"}


def _attributes(directive: Any) -> set[str]:
    if isinstance(directive, Comparison):
        return {directive.attribute}
    return set().union(*(_attributes(a) for a in directive.arguments))


def test_llama_index_postgres_never_gets_an_odd_attribute_name() -> None:
    """PostgreSQL's LlamaIndex store pastes keys into SQL: an odd key is not sent."""
    made = filters_for(
        ODD_NAME, LLAMA_STORES["llama_index.vector_stores.postgres.base.PGVectorStore"]
    )
    assert made is not None
    assert [f.key for f in _leaves(made)] == ["groups"]
