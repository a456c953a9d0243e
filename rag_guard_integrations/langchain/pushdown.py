"""Pushdown: what the guard requires of every chunk (:meth:`Guard.prefilter`: the caller's
allowlists with their match modes, the clause ids the query asks for) as the vector store's own
filter, so the store returns only candidates the guard can allow and the over-fetch counts.

The filter is written store-neutrally as a ``langchain_core.structured_query`` directive and
translated by the store's entry in :mod:`rag_guard_integrations.langchain.stores` (the
store's maintained translator where one exists). Per attribute: ``match: all`` becomes
"the value is one of the allowed" (exact for single values; a stored list is not fetched by
stores whose ``IN`` does not look inside lists), ``match: any`` becomes "the value is one of
them, or the list holds one of them", and is not pushed down where the store cannot say
that. A filter the caller already set is kept: both must hold. Stores with no entry get no
pushdown. The guard re-checks every fetched chunk either way: pushdown only saves work and
recall, it is never the only line of defence.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from langchain_core.structured_query import Comparator, Comparison, Operation, Operator

from rag_guard_integrations.core.constraints import MATCH_ANY, Allowed, Constraints, is_plain_name
from rag_guard_integrations.langchain.stores import Predicate, Translated, store_support

if TYPE_CHECKING:
    from collections.abc import Mapping

    from langchain_core.structured_query import FilterDirective
    from langchain_core.vectorstores import VectorStore


@dataclass(frozen=True, slots=True)
class Pushdown:
    """What to hand the store: ``search_kwargs`` (the filter, already merged with the caller's
    own, under the store's argument name, plus any argument the filter needs).

    ``filter`` is the merged filter itself; ``admits_nothing`` is True when no chunk could pass
    (default deny, or a query that asks for no clause of a clause policy), so nothing is fetched.
    """

    store: str
    filter: Any
    admits_nothing: bool = False
    search_kwargs: Mapping[str, Any] = field(default_factory=dict)


def plan_pushdown(
    vectorstore: VectorStore,
    constraints: Mapping[str, Any] | None,
    user_filter: Any = None,
    *,
    search_kwargs: Mapping[str, Any] | None = None,
) -> Pushdown | None:
    """The pushdown of ``constraints`` (from :meth:`Guard.prefilter`) for ``vectorstore``, or None
    when the store has no pushdown or nothing can be pushed down.

    The caller's own filter is ``user_filter``, else what ``search_kwargs`` (the retriever's
    effective search arguments) holds under the store's filter argument.

    Example:
        >>> from langchain_core.embeddings import FakeEmbeddings
        >>> from langchain_core.vectorstores import InMemoryVectorStore
        >>> store = InMemoryVectorStore(FakeEmbeddings(size=8))
        >>> plan = plan_pushdown(store, {"contract_type": frozenset({"MSA"})})
        >>> plan.store, plan.admits_nothing, sorted(plan.search_kwargs)
        ('in_memory', False, ['filter'])
    """
    support = store_support(vectorstore)
    if support is None or (constraints is not None and not constraints):
        return None
    if constraints is None:
        return Pushdown(support.name, None, admits_nothing=True)
    wanted = Constraints.of(constraints)
    given = dict(search_kwargs or {})
    if isinstance(support, Predicate):
        user = user_filter if user_filter is not None else given.get("filter")
        kwargs = support.search_kwargs(vectorstore, wanted, user)
        return Pushdown(support.name, kwargs["filter"], search_kwargs=kwargs)
    directive = store_directive(wanted, support)
    if directive is None:
        return None
    key = support.filter_key
    user = user_filter if user_filter is not None else given.get(key)
    kwargs = support.search_kwargs(vectorstore, directive, user)
    return Pushdown(support.name, kwargs[key], search_kwargs=kwargs)


def store_directive(constraints: Constraints, support: Translated) -> FilterDirective | None:
    """The AND of each attribute's test in the store's operators; an attribute the store cannot
    test exactly, or whose name is not a plain identifier (several stores write names into
    query text), is left out (the guard still checks it); None when none is left."""
    parts = [
        part
        for attribute, allowed in constraints.items()
        if is_plain_name(attribute)
        and (part := _attribute_test(attribute, allowed, support)) is not None
    ]
    if not parts:
        return None
    return parts[0] if len(parts) == 1 else Operation(operator=Operator.AND, arguments=parts)


def _attribute_test(
    attribute: str, allowed: Allowed, support: Translated
) -> FilterDirective | None:
    values = sorted(allowed.values)
    one_of: list[FilterDirective] = (
        [Comparison(comparator=Comparator.IN, attribute=attribute, value=values)]
        if support.has_in
        else [Comparison(comparator=Comparator.EQ, attribute=attribute, value=v) for v in values]
    )
    if allowed.match != MATCH_ANY or support.in_holds:
        return _any_of(one_of)
    if support.holds is None:
        return None
    if support.holds is Comparator.EQ and not support.has_in:
        return _any_of(one_of)  # those EQs already look inside lists
    holds: list[FilterDirective] = [
        Comparison(comparator=support.holds, attribute=attribute, value=v) for v in values
    ]
    return _any_of([*one_of, *holds] if support.one_of_on_lists else holds)


def _any_of(parts: list[FilterDirective]) -> FilterDirective:
    return parts[0] if len(parts) == 1 else Operation(operator=Operator.OR, arguments=parts)
