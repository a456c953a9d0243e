"""Turn pydantic validation errors into one-line messages: file, key path, line, and the fix."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import yaml

from rag_guard_integrations.core.arguments import a_type, did_you_mean

if TYPE_CHECKING:
    from collections.abc import Iterable

    from pydantic import ValidationError

_FIXES = {
    "extra_forbidden": "is an unknown key; remove it or check its spelling",
    "missing": "is missing; add it",
    "too_short": "is empty; list at least one label",
    "string_too_short": "is empty; write the text",
}


def key_path(loc: tuple[int | str, ...]) -> str:
    """``("rules", 2, "trigger")`` -> ``rules[2].trigger``."""
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def line_at(
    root: yaml.Node | None, loc: tuple[int | str, ...], *, or_root: bool = False
) -> int | None:
    """The 1-based line of the YAML node at ``loc``, or of its nearest existing parent; when
    the document holds no part of ``loc``, the root's line if ``or_root``, else None."""
    if root is None:
        return None
    node: yaml.Node = root
    line = root.start_mark.line + 1 if or_root else None
    for part in loc:
        if isinstance(node, yaml.MappingNode):
            match = next(((k, v) for k, v in node.value if k.value == str(part)), None)
            if match is None:
                break
            node = match[1]
            line = match[0].start_mark.line + 1
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int):
            if part >= len(node.value):
                break
            node = node.value[part]
            line = node.start_mark.line + 1
        else:
            break
    return line


def _describe(error: dict[str, Any]) -> str:
    kind = error["type"]
    if kind == "value_error":
        return str(error["msg"]).removeprefix("Value error, ")
    if kind in {"greater_than_equal", "less_than_equal"}:
        return f"must be between -1 and 1, got {error.get('input')!r}"
    if kind == "too_short" and error["loc"][-1] == "intents":
        return "is empty; list at least one intent regex"
    if kind == "literal_error":
        expected = error.get("ctx", {}).get("expected", "")
        return f"is {error.get('input')!r}; use one of {expected}"
    if kind in _FIXES:
        return _FIXES[kind]
    return f"is {a_type(error.get('input'))}: {error['msg'].lower()}; fix its type"


def describe_errors(
    error: ValidationError, source: str, root: yaml.Node | None, top_keys: Iterable[str] = ()
) -> list[str]:
    """One line per problem: ``x.yaml: rules[2].trigger.all_present is empty (line 14); ...``;
    an unknown top-level key names the one of ``top_keys`` it most likely meant."""
    problems = []
    for item in error.errors(include_url=False, include_input=True):
        loc = tuple(
            p for p in item["loc"] if not isinstance(p, str) or not p.startswith("function-")
        )
        # A whole-policy check (empty loc) has no line of its own; the root's would mislead.
        line = line_at(root, loc, or_root=True) if loc else None
        text = _describe(dict(item))
        where = f" (line {line})" if line is not None else ""
        head, _, fix = text.partition("; ")
        path = f"{key_path(loc)} " if loc else ""
        if item["type"] == "extra_forbidden" and len(loc) == 1:
            fix += did_you_mean(str(loc[0]), top_keys)
        problems.append(f"{source}: {path}{head}{where}" + (f"; {fix}" if fix else ""))
    return problems
