"""``langchain_core.structured_query`` translators for the filters pushdown emits, where a store's
maintained translator lacks an operator the store honours (Chroma ``$in``/``$contains``, Milvus
``json_contains``, Qdrant ``MatchAny``) or no translator exists (LanceDB SQL). Each extends,
never replaces, what the store's own translator does; values are quoted by the store's rules,
never pasted raw."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from langchain_community.query_constructors.chroma import ChromaTranslator
from langchain_community.query_constructors.milvus import MilvusTranslator
from langchain_community.query_constructors.qdrant import QdrantTranslator
from langchain_core.structured_query import (
    Comparator,
    Comparison,
    Operation,
    Operator,
    StructuredQuery,
    Visitor,
)

if TYPE_CHECKING:
    from collections.abc import Mapping


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


class QdrantPushdownTranslator(QdrantTranslator):
    """``QdrantTranslator`` plus ``IN`` as one ``MatchAny`` condition (which also matches a
    stored list holding one of the values), instead of an OR of one condition per value: a
    scope of 1,000 ids is one condition, not 1,000.

    Example:
        >>> f = Comparison(comparator=Comparator.IN, attribute="doc_id", value=["d1", "d2"])
        >>> f.accept(QdrantPushdownTranslator("metadata")).match.any
        ['d1', 'd2']
    """

    # The base class types its tuple by length: one more comparator is still a tuple of them.
    allowed_comparators = (*QdrantTranslator.allowed_comparators, Comparator.IN)  # type: ignore[assignment]

    def visit_comparison(self, comparison: Comparison) -> Any:
        if comparison.comparator is not Comparator.IN:
            return super().visit_comparison(comparison)
        from qdrant_client.http import models  # noqa: PLC0415 (only with a Qdrant store)

        key = f"{self.metadata_key}.{comparison.attribute}"
        return models.FieldCondition(key=key, match=models.MatchAny(any=list(comparison.value)))


class LanceDBTranslator(Visitor):
    """Filters as the SQL ``where`` of a LangChain ``LanceDB`` store, whose metadata is one
    typed struct column: ``EQ``, ``IN`` and ``CONTAIN`` under ``AND``/``OR``/``NOT``.

    LanceDB refuses a comparison of the wrong type, so each is written for its field's type:
    on a list field ``IN`` is ``array_has_any`` and ``EQ``/``CONTAIN`` are ``array_has``; on a
    single-valued field ``CONTAIN`` is ``=``; a field no row has is ``false``.

    Example:
        >>> f = Comparison(comparator=Comparator.IN, attribute="contract_type", value=["MSA"])
        >>> t = LanceDBTranslator(fields={"contract_type": False})
        >>> t.visit_structured_query(StructuredQuery(query="", filter=f, limit=None))
        ('', {'filter': "metadata.`contract_type` IN ('MSA')"})
    """

    allowed_operators = (Operator.AND, Operator.OR, Operator.NOT)
    allowed_comparators = (Comparator.EQ, Comparator.IN, Comparator.CONTAIN)

    def __init__(self, fields: Mapping[str, bool], metadata_column: str = "metadata") -> None:
        self.fields = dict(fields)
        self.metadata_column = metadata_column

    @classmethod
    def for_table(cls, schema: Any, metadata_column: str = "metadata") -> LanceDBTranslator:
        """A translator for a table's pyarrow ``schema`` (which metadata fields hold lists)."""
        import pyarrow as pa  # noqa: PLC0415 (LanceDB brings it)

        struct = schema.field(metadata_column).type
        fields = {
            f.name: pa.types.is_list(f.type) or pa.types.is_large_list(f.type) for f in struct
        }
        return cls(fields, metadata_column)

    def visit_operation(self, operation: Operation) -> str:
        self._validate_func(operation.operator)
        args = [f"({arg.accept(self)})" for arg in operation.arguments]
        if operation.operator is Operator.NOT:
            return f"NOT {args[0]}"
        return f" {operation.operator.value.upper()} ".join(args)

    def visit_comparison(self, comparison: Comparison) -> str:
        self._validate_func(comparison.comparator)
        name = comparison.attribute
        if name not in self.fields:
            return "false"
        column = f"{self.metadata_column}.`{name.replace('`', '``')}`"
        values = comparison.value if comparison.comparator is Comparator.IN else [comparison.value]
        literals = ", ".join(_sql(v) for v in values)
        if self.fields[name]:
            if comparison.comparator is Comparator.IN:
                return f"array_has_any({column}, [{literals}])"
            return f"array_has({column}, {literals})"
        if comparison.comparator is Comparator.IN:
            return f"{column} IN ({literals})"
        return f"{column} = {literals}"

    def visit_structured_query(
        self, structured_query: StructuredQuery
    ) -> tuple[str, dict[str, Any]]:
        if structured_query.filter is None:
            return structured_query.query, {}
        return structured_query.query, {"filter": structured_query.filter.accept(self)}


def _sql(value: object) -> str:
    return "'" + str(value).replace("'", "''") + "'"
