"""MkDocs hook: pages that hold ``<!-- generated: NAME -->`` get that reference written in at
build time, from the code itself: ``cli`` from the ``rag-guard`` parser, ``policy`` from the
policy schema's ``Field(description=...)``."""

from __future__ import annotations

import re
import types
import typing
from typing import TYPE_CHECKING, Any, Literal, get_args, get_origin

from pydantic import BaseModel
from pydantic_core import PydanticUndefined

from rag_guard_integrations.cli import build_parser
from rag_guard_integrations.cli.help import leaves
from rag_guard_integrations.policy.schema import Policy

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

MARKER = re.compile(r"^<!-- generated: (\w+) -->$", re.MULTILINE)


def cli_reference() -> str:
    """Every sub-command's ``--help``, under a heading of its own."""
    sections = []
    for words, parser in leaves(build_parser()):
        title = " ".join(("rag-guard", *words))
        sections.append(f"## `{title}`\n\n```text\n{parser.format_help().rstrip()}\n```\n")
    return "\n".join(sections)


def policy_reference() -> str:
    """One table row per policy key: its path, type, default and description."""
    rows = ["| key | type | default | description |", "| --- | --- | --- | --- |"]
    for path, kind, default, description in policy_keys(Policy):
        rows.append(f"| `{path}` | {kind} | {default} | {_cell(description)} |")
    return "\n".join(rows) + "\n"


def policy_keys(model: type[BaseModel], prefix: str = "") -> Iterator[tuple[str, str, str, str]]:
    """``(key path, type, default, description)`` for every field of ``model``, nested models
    walked in place (``rules[].trigger.scope``, ``clauses.NAME.intents``)."""
    for name, field in model.model_fields.items():
        if field.exclude:
            continue  # set by loading, never written in a policy file
        path = f"{prefix}{name}"
        annotation = field.annotation
        yield path, _type_name(annotation), _default(field), field.description or ""
        for inner, suffix in _nested(annotation):
            yield from policy_keys(inner, f"{path}{suffix}.")


def _nested(annotation: Any) -> Iterator[tuple[type[BaseModel], str]]:
    """The models inside ``annotation`` and how a key path reaches into them."""
    origin, args = get_origin(annotation), get_args(annotation)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        yield annotation, ""
    elif origin is list and args:
        for inner, suffix in _nested(args[0]):
            yield inner, "[]" + suffix
    elif origin is dict and len(args) == 2:
        for inner, suffix in _nested(args[1]):
            yield inner, ".NAME" + suffix
    elif origin in (typing.Union, types.UnionType):
        for arg in args:
            yield from _nested(arg)


def _type_name(annotation: Any) -> str:
    origin, args = get_origin(annotation), get_args(annotation)
    if origin is typing.Annotated:
        return _type_name(args[0])
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return "section"
    names: dict[Any, Callable[[], str]] = {
        Literal: lambda: " \\| ".join(f"`{a}`" for a in args),
        typing.Union: lambda: _optional(args),
        types.UnionType: lambda: _optional(args),
        list: lambda: f"list of {_type_name(args[0])}",
        dict: lambda: f"map of {_type_name(args[0])} to {_type_name(args[1])}",
    }
    if origin in names:
        return names[origin]()
    return getattr(annotation, "__name__", str(annotation))


def _optional(args: tuple[Any, ...]) -> str:
    return " or ".join(_type_name(a) for a in args if a is not type(None)) + " (optional)"


def _default(field: Any) -> str:
    if field.default_factory is not None:
        value = field.default_factory()
        return "empty" if not value or isinstance(value, BaseModel) else f"`{value}`"
    if field.default is PydanticUndefined:
        return "required"
    if field.default is None:
        return "none"
    if field.default == "":
        return "empty"
    return f"`{field.default}`" if len(str(field.default)) < 40 else "see description"


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


GENERATORS: dict[str, Callable[[], str]] = {"cli": cli_reference, "policy": policy_reference}


def on_page_markdown(markdown: str, **_: Any) -> str:
    """Replace each ``<!-- generated: NAME -->`` line with the reference it names."""
    return MARKER.sub(lambda match: GENERATORS[match.group(1)](), markdown)
