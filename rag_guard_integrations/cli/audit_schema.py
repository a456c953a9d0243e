"""Audit records checked against the JSON schema the package ships for their version, so that
``rag-guard audit`` names the first field that does not fit instead of failing on it later.

Only the JSON Schema keywords that schema uses are read (:data:`KEYWORDS`; a test holds the
shipped schema to them); ``format`` is an annotation, as JSON Schema 2020-12 says.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from rag_guard_integrations.core.audit import AUDIT_VERSION, READABLE_VERSIONS, audit_schema
from rag_guard_integrations.core.printable import printable

KEYWORDS = frozenset(
    {
        "$schema", "$id", "$defs", "$ref", "title", "description", "format",
        "type", "const", "enum", "required", "properties", "additionalProperties", "items",
        "pattern", "minimum", "minItems",
    }
)  # fmt: skip
_TYPES: dict[str, type | tuple[type, ...]] = {
    "string": str,
    "integer": int,
    "number": (int, float),
    "boolean": bool,
    "array": list,
    "object": dict,
    "null": type(None),
}


@cache
def _schema(version: int) -> dict[str, Any]:
    return audit_schema(version)


def record_problem(record: object) -> str | None:
    """Where ``record`` first departs from the schema of its version (v2, or v1), as
    ``"chunks[2].rule is a number, expected string or null"``; None when it fits.

    Example:
        >>> from rag_guard_integrations import Guard
        >>> record = Guard.from_policy("default").check("q", []).audit()
        >>> record_problem(record) is None
        True
        >>> record_problem({**record, "rules": "oops"})
        'rules is a string, expected array'
        >>> record_problem({"version": 2, "request_id": "x" * 32})[:40]
        'the record lacks time, principal, access'
    """
    version = record.get("version") if isinstance(record, dict) else None
    known = type(version) is int and version in READABLE_VERSIONS  # True == 1: no bools
    schema = _schema(version if known else AUDIT_VERSION)
    return _problem(record, schema, "", schema)


def _problem(value: Any, schema: dict[str, Any], path: str, root: dict[str, Any]) -> str | None:
    if "$ref" in schema:
        name = schema["$ref"].removeprefix("#/$defs/")
        return _problem(value, root["$defs"][name], path, root)
    where = path or "the record"
    for check in _CHECKS:
        if problem := check(value, schema):
            return f"{where} {problem}"
    if isinstance(value, list) and (items := schema.get("items")) is not None:
        for index, item in enumerate(value):
            if problem := _problem(item, items, f"{path}[{index}]", root):
                return problem
    if isinstance(value, dict):
        return _object_problem(value, schema, path, root)
    return None


def _type(value: Any, schema: dict[str, Any]) -> str | None:
    types = schema.get("type")
    names = [] if types is None else [types] if isinstance(types, str) else list(types)
    if names and not any(_is(value, name) for name in names):
        return f"is {_kind(value)}, expected {' or '.join(names)}"
    return None


def _const(value: Any, schema: dict[str, Any]) -> str | None:
    if "const" in schema and not _same(value, schema["const"]):
        return f"is {_shown(value)}, expected {schema['const']!r}"
    if "enum" in schema and not any(_same(value, option) for option in schema["enum"]):
        return f"is {_shown(value)}, expected one of {', '.join(map(repr, schema['enum']))}"
    return None


def _bounds(value: Any, schema: dict[str, Any]) -> str | None:
    if isinstance(value, str) and "pattern" in schema and not re.search(schema["pattern"], value):
        return f"is {_shown(value)}, which does not match {schema['pattern']}"
    if _is(value, "number") and "minimum" in schema and value < schema["minimum"]:
        return f"is {value}, below the minimum {schema['minimum']}"
    if isinstance(value, list) and len(value) < schema.get("minItems", 0):
        return f"has {len(value)} items, fewer than {schema['minItems']}"
    return None


_CHECKS = (_type, _const, _bounds)


def _object_problem(
    value: dict[str, Any], schema: dict[str, Any], path: str, root: dict[str, Any]
) -> str | None:
    prefix = f"{path}." if path else ""
    where = path or "the record"
    if missing := [key for key in schema.get("required", ()) if key not in value]:
        return f"{where} lacks {', '.join(prefix + key for key in missing)}"
    properties = schema.get("properties", {})
    extra = schema.get("additionalProperties", True)
    for key, item in value.items():
        below = properties.get(key, extra)
        if below is False:
            return f"{where} has the unknown field {_shown(prefix + key)}"
        if isinstance(below, dict) and (problem := _problem(item, below, prefix + key, root)):
            return problem
    return None


def _is(value: Any, name: str) -> bool:
    """JSON Schema's types: a bool is no number, and 2.0 is an integer."""
    if isinstance(value, bool) and name in {"integer", "number"}:
        return False
    if name == "integer" and isinstance(value, float):
        return value.is_integer()
    return isinstance(value, _TYPES[name])


def _same(value: Any, expected: Any) -> bool:
    """JSON equality: numbers by value, a bool only equal to a bool."""
    if _is(value, "number") and _is(expected, "number"):
        return bool(value == expected)
    return type(value) is type(expected) and bool(value == expected)


def _kind(value: Any) -> str:
    for name in ("null", "boolean", "integer", "number", "string", "array", "object"):
        if _is(value, name):
            return "null" if name == "null" else f"a{'n' if name[0] in 'aeiou' else ''} {name}"
    return type(value).__name__


def _shown(value: Any) -> str:
    text = printable(repr(value))
    return text if len(text) <= 40 else text[:37] + "..."
