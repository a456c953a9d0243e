"""Classification labels read from chunk metadata, cleaned so that rules compare them reliably."""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any

from rag_guard_integrations.core.normalize import normalize

if TYPE_CHECKING:
    from collections.abc import Mapping

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


def metadata_labels(metadata: Mapping[str, Any]) -> tuple[frozenset[str], str | None]:
    """Labels from ``classification`` (a string) and ``classifications`` (a list of strings).

    Returns ``(labels, problem)``. Malformed values (non-strings, nested lists) give the label
    ``unclassified`` and a one-line problem: a chunk whose labels cannot be read is not safe.
    """
    labels: set[str] = set()
    problem: str | None = None
    for key in LABEL_KEYS:
        value = metadata.get(key)
        if value is None:
            continue
        items = [value] if isinstance(value, str) else value
        if not isinstance(items, list | tuple | set | frozenset):
            problem = f"metadata {key!r} is a {type(value).__name__}, not a string or list"
            continue
        for item in items:
            if isinstance(item, str):
                cleaned = clean_label(item)
                if cleaned:
                    labels.add(cleaned)
            else:
                problem = f"metadata {key!r} holds a {type(item).__name__}, not a string"
    if problem is not None:
        labels.add(UNCLASSIFIED)
    return frozenset(labels), problem


def has_label_metadata(metadata: Mapping[str, Any]) -> bool:
    """True when the chunk brings a label of its own: blank labels (``" "``, ``[""]``) do not
    count, and unreadable ones count as ``unclassified``."""
    return bool(metadata_labels(metadata)[0])
