"""Classification labels read from chunk metadata, cleaned so that rules compare them reliably."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from rag_guard_integrations.core.arguments import a_type
from rag_guard_integrations.core.normalize import normalize
from rag_guard_integrations.core.reasons import Reason

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

UNCLASSIFIED = "unclassified"
LABEL_KEYS = ("classification", "classifications")


def clean_label(label: str) -> str:
    """Case-fold and squeeze a label: ``" Financial  Data"`` -> ``"financial_data"``.

    A label with no letter or digit left (``" "``, ``"-"``, a zero-width space) is blank and
    comes back as ``""``: blank is missing.
    """
    return _clean_cached(label) if len(label) <= _CACHED_LABEL_CHARS else _clean(label)


_CACHED_LABEL_CHARS = 128


@lru_cache(maxsize=4096)
def _clean_cached(label: str) -> str:
    return _clean(label)


def _clean(label: str) -> str:
    cleaned = "_".join(normalize(label).replace("-", " ").split())
    return cleaned if any(char.isalnum() for char in cleaned) else ""


# Label metadata repeats a small vocabulary across every chunk: each distinct raw value is
# cleaned once. The cache is emptied when full, and long values are not kept, so odd metadata
# cannot pin memory.
_LABEL_SETS: dict[str, frozenset[str]] = {}
_JOINED = re.compile(r"[,;|]")
PLACEHOLDERS = frozenset(
    {"none", "null", "nil", "na", "n/a", "nan", "unknown", "tbd", "undefined", "unset", "0"}
)
"""Values that stand for "no label" in exported metadata: missing, like blank ones, so that
the classifier still labels the chunk."""
_LABEL_SETS_MAX = 4096


def _label_set(label: str) -> frozenset[str]:
    """The labels one metadata string holds: several when joined by ``,``, ``;`` or ``|`` (as
    stores that refuse lists force), none when blank or a placeholder (``none``, ``N/A``)."""
    found = _LABEL_SETS.get(label)
    if found is None:
        cleaned = (clean_label(part) for part in _JOINED.split(label))
        found = frozenset(c for c in cleaned if c and c not in PLACEHOLDERS)
        if len(label) <= _CACHED_LABEL_CHARS:
            if len(_LABEL_SETS) >= _LABEL_SETS_MAX:
                _LABEL_SETS.clear()
            _LABEL_SETS[label] = found
    return found


def metadata_labels(metadata: Mapping[str, Any]) -> tuple[frozenset[str], Reason | None]:
    """Labels from ``classification`` (a string) and ``classifications`` (a list of strings).

    Returns ``(labels, problem)``. Malformed values (non-strings, nested lists) give the label
    ``unclassified`` and a one-line problem: a chunk whose labels cannot be read is not safe.
    """
    single = metadata.get(LABEL_KEYS[0])
    if type(single) is str and metadata.get(LABEL_KEYS[1]) is None:
        return _label_set(single), None  # the common case: one label as a string
    labels: set[str] = set()
    problem: Reason | None = None
    for key in LABEL_KEYS:
        value = metadata.get(key)
        if value is None:
            continue
        items = [value] if isinstance(value, str) else value
        if not isinstance(items, list | tuple | set | frozenset):
            problem = Reason(
                f"metadata {key!r} is {a_type(value)}, not a string or list",
                f"metadata {key!r} is not a string or list",
            )
            continue
        for item in items:
            if isinstance(item, str):
                labels.update(_label_set(item))
            else:
                problem = Reason(
                    f"metadata {key!r} holds a {type(item).__name__}, not a string",
                    f"metadata {key!r} holds an item that is not a string",
                )
    if problem is not None:
        labels.add(UNCLASSIFIED)
    return frozenset(labels), problem


def labels_many(
    metadata: Sequence[Mapping[str, Any]],
) -> tuple[list[frozenset[str]], dict[int, Reason]]:
    """:func:`metadata_labels` of each mapping: the labels in order, and the problem of each
    position that has one."""
    out: list[frozenset[str]] = []
    problems: dict[int, Reason] = {}
    single_key, list_key = LABEL_KEYS
    cached = _LABEL_SETS.get
    for position, meta in enumerate(metadata):
        # The common case first: one label as a string, seen before.
        single = meta.get(single_key)
        if (
            type(single) is str
            and (found := cached(single)) is not None
            and meta.get(list_key) is None
        ):
            out.append(found)
            continue
        labels, problem = metadata_labels(meta)
        out.append(labels)
        if problem is not None:
            problems[position] = problem
    return out, problems


def has_label_metadata(metadata: Mapping[str, Any]) -> bool:
    """True when the chunk brings a label of its own: blank labels (``" "``, ``[""]``) do not
    count, and unreadable ones count as ``unclassified``."""
    return bool(metadata_labels(metadata)[0])
