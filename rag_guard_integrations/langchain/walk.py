"""Walking everything a LangChain payload holds: what a callback handler, an event consumer or
the next step of a graph could read from it, however deep (mappings, sequences, pydantic models
such as Documents and messages, dataclasses such as ``Command``, slotted objects)."""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Iterator, Mapping
from typing import Any

from langchain_core.documents import Document
from pydantic import BaseModel

_ATOMS = (str, bytes, int, float, bool, uuid.UUID, type(None))


def walk(value: Any) -> Iterator[tuple[Any, bool]]:
    """``value`` and everything reachable inside it, each object once, with whether it was
    entered; objects of any other kind (functions, clients, locks) are not entered.

    Example:
        >>> from langchain_core.messages import ToolMessage
        >>> message = ToolMessage("ok", tool_call_id="1", artifact={"hits": (Document("x"),)})
        >>> sum(isinstance(v, Document) for v, _ in walk([message]))
        1
    """
    pending: list[Any] = [value]
    seen: set[int] = set()
    while pending:
        item = pending.pop()
        if isinstance(item, _ATOMS):
            yield item, False
            continue
        if id(item) in seen:
            continue
        seen.add(id(item))
        members = _members(item)
        yield item, members is not None
        pending.extend(members or ())


def documents_in(value: Any) -> list[Any]:
    """Every LangChain Document inside ``value``, wherever it sits, and every mapping shaped
    like one (a ``page_content`` string: a Document dumped or built by hand)."""
    return [
        item
        for item, _ in walk(value)
        if isinstance(item, Document)
        or (isinstance(item, Mapping) and isinstance(item.get("page_content"), str))
    ]


def _members(item: Any) -> list[Any] | None:
    if isinstance(item, Mapping):
        return [*item.keys(), *item.values()]
    if isinstance(item, list | tuple | set | frozenset):
        # A subclass may carry more (a tool artifact with its ``result``).
        return [*item, *getattr(item, "__dict__", {}).values()]
    if isinstance(item, BaseModel):
        return [*vars(item).values(), *(item.__pydantic_extra__ or {}).values()]
    if dataclasses.is_dataclass(item) and not isinstance(item, type):
        return [getattr(item, f.name) for f in dataclasses.fields(item)]
    names: list[str] = []
    for cls in type(item).__mro__:
        slots = getattr(cls, "__slots__", ())
        names.extend([slots] if isinstance(slots, str) else slots)
    if not names:
        return None
    return [getattr(item, n) for n in names if n != "__weakref__" and hasattr(item, n)]
