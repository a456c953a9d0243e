"""``langchain_core.structured_query`` translators for the filters pushdown emits, where a store's
maintained translator lacks an operator the store honours (Chroma ``$in``/``$contains``, Milvus
``json_contains``) or no translator exists (LanceDB SQL). Each extends, never replaces, what the
store's own translator does; values are quoted by the store's rules, never pasted raw."""

from __future__ import annotations

import json
from typing import Any

from langchain_community.query_constructors.chroma import ChromaTranslator
from langchain_community.query_constructors.milvus import MilvusTranslator
from langchain_core.structured_query import (
    Comparator,
    Comparison,
    Operation,
    Operator,
    StructuredQuery,
    Visitor,
)


class ChromaPushdownTranslator(ChromaTranslator):
    """``ChromaTranslator`` plus ``IN`` (``$in``) and ``CONTAIN`` (``$contains``: a list holds
    the value), both honoured by Chroma's ``where`` filter.

    Example:
        >>> f = Comparison(comparator=Comparator.CONTAIN, attribute="groups", value="hr")
        >>> f.accept(ChromaPushdownTranslator())
        {'groups': {'$contains': 'hr'}}
    """

    allowed_comparators = [  # noqa: RUF012 (the base class declares a list)
        *ChromaTranslator.allowed_comparators,
        Comparator.IN,
        Comparator.CONTAIN,
    ]

    def _format_func(self, func: Operator | Comparator) -> str:
        if func is Comparator.CONTAIN:
            self._validate_func(func)
            return "$contains"
        return str(super()._format_func(func))


class MilvusPushdownTranslator(MilvusTranslator):
    """``MilvusTranslator`` plus ``CONTAIN`` (``json_contains``: a list holds the value), with
    values written as JSON literals so a quote inside a value cannot change the expression.

    Example:
        >>> f = Comparison(comparator=Comparator.IN, attribute="contract_type", value=["MSA"])
        >>> f.accept(MilvusPushdownTranslator())
        '(contract_type in ["MSA"])'
    """

    allowed_comparators = [  # noqa: RUF012 (the base class declares a list)
        *MilvusTranslator.allowed_comparators,
        Comparator.CONTAIN,
    ]

    def visit_comparison(self, comparison: Comparison) -> str:
        self._validate_func(comparison.comparator)
        value = json.dumps(comparison.value)
        if comparison.comparator is Comparator.CONTAIN:
            return f"json_contains({comparison.attribute}, {value})"
        return f"({comparison.attribute} {self._format_func(comparison.comparator)} {value})"


class LanceDBTranslator(Visitor):
    """Filters as the SQL ``where`` of a LangChain ``LanceDB`` store, whose metadata is one
    struct column: ``EQ``, ``IN`` and ``CONTAIN`` (``array_has``) under ``AND``/``OR``/``NOT``.

    Example:
        >>> f = Comparison(comparator=Comparator.IN, attribute="contract_type", value=["MSA"])
        >>> LanceDBTranslator().visit_structured_query(StructuredQuery("", f))
        ('', {'filter': "metadata.`contract_type` IN ('MSA')"})
    """

    allowed_operators = (Operator.AND, Operator.OR, Operator.NOT)
    allowed_comparators = (Comparator.EQ, Comparator.IN, Comparator.CONTAIN)

    def __init__(self, metadata_column: str = "metadata") -> None:
        self.metadata_column = metadata_column

    def visit_operation(self, operation: Operation) -> str:
        self._validate_func(operation.operator)
        args = [f"({arg.accept(self)})" for arg in operation.arguments]
        if operation.operator is Operator.NOT:
            return f"NOT {args[0]}"
        return f" {operation.operator.value.upper()} ".join(args)

    def visit_comparison(self, comparison: Comparison) -> str:
        self._validate_func(comparison.comparator)
        column = f"{self.metadata_column}.`{comparison.attribute.replace('`', '``')}`"
        if comparison.comparator is Comparator.IN:
            return f"{column} IN ({', '.join(_sql(v) for v in comparison.value)})"
        if comparison.comparator is Comparator.CONTAIN:
            return f"array_has({column}, {_sql(comparison.value)})"
        return f"{column} = {_sql(comparison.value)}"

    def visit_structured_query(
        self, structured_query: StructuredQuery
    ) -> tuple[str, dict[str, Any]]:
        if structured_query.filter is None:
            return structured_query.query, {}
        return structured_query.query, {"filter": structured_query.filter.accept(self)}


def _sql(value: object) -> str:
    return "'" + str(value).replace("'", "''") + "'"
