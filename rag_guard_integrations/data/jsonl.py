"""JSON Lines files, read one way for the bundled corpora, the evaluations and the CLI."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rag_guard_integrations.core.errors import DataError

if TYPE_CHECKING:
    from collections.abc import Iterator


def read_jsonl(path: str | Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line number, object)`` for every non-blank line of ``path``, streamed.

    Raises:
        DataError: the file cannot be read, or a line is not one JSON object (the message
            names the file and the line).

    Example:
        >>> from rag_guard_integrations.data import DATA_DIR
        >>> number, record = next(read_jsonl(DATA_DIR / "contracts.jsonl"))
        >>> number, sorted(record)[:2]
        (1, ['id', 'metadata'])
    """
    source = Path(path)
    try:
        with source.open("rb") as handle:
            for number, line in enumerate(handle, start=1):
                if line.strip():
                    yield number, parse_line(line, source, number)
    except OSError as error:
        raise DataError(f"{source}: cannot read it ({error.strerror}); check the path") from None


def parse_line(line: bytes | str, source: str | Path, number: int) -> dict[str, Any]:
    """One JSONL line as an object, or a DataError naming ``source`` and the line ``number``."""
    try:
        record = json.loads(line)
    except ValueError as error:
        reason = error.msg if isinstance(error, json.JSONDecodeError) else str(error)
        raise DataError(
            f"{source} line {number}: not valid JSON ({reason}); write one JSON object per line"
        ) from None
    if not isinstance(record, dict):
        raise DataError(
            f"{source} line {number}: expected a JSON object, got {type(record).__name__}; "
            "write one object per line"
        )
    return record
