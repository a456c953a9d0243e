"""Framework-free recording helpers of ``rag-guard eval prompt``: log capture and canary scans."""

from __future__ import annotations

import logging
import re
from contextlib import contextmanager
from typing import TYPE_CHECKING

from rag_guard_integrations.evaluation.prompt.corpus import CANARY_PREFIX

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator

CANARY = re.compile(re.escape(CANARY_PREFIX) + r"[0-9a-f]{8}")
# Attributes every LogRecord has; anything else was passed as ``extra=`` and is part of the record.
_STANDARD = frozenset(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {"message"}


def canaries_in(texts: Iterable[str]) -> set[str]:
    """Every canary token that occurs in ``texts``."""
    found: set[str] = set()
    for text in texts:
        found.update(CANARY.findall(text))
    return found


class _Keep(logging.Handler):
    def __init__(self, into: list[str]) -> None:
        super().__init__(logging.DEBUG)
        self.into = into

    def emit(self, record: logging.LogRecord) -> None:
        extra = {k: v for k, v in vars(record).items() if k not in _STANDARD}
        self.into.append(f"{record.name} {record.levelname} {record.getMessage()} {extra!r}")


@contextmanager
def capture_logs() -> Iterator[list[str]]:
    """Every log record of every logger, at DEBUG and above, as text, while the block runs.

    Example:
        >>> with capture_logs() as lines:
        ...     logging.getLogger("x").warning("hello")
        >>> "hello" in lines[0]
        True
    """
    lines: list[str] = []
    handler = _Keep(lines)
    root = logging.getLogger()
    level = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    try:
        yield lines
    finally:
        root.removeHandler(handler)
        root.setLevel(level)
