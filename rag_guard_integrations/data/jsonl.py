"""JSON Lines files, read one way for the bundled corpora, the evaluations and the CLI."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rag_guard_integrations.core.errors import DataError

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Mapping

# Records nested deeper than this are refused as input: no corpus needs it, and recursive code
# downstream (JSON output, linking) would fail on them.
MAX_DEPTH = 64


def read_jsonl(path: str | Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line number, object)`` for every non-blank line of ``path``, streamed.

    Raises:
        DataError: the file cannot be read, or a line is not one JSON object (the message
            names the file and the line); NaN and Infinity are not JSON.

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
    """One JSONL line as an object at most ``MAX_DEPTH`` levels deep, or a DataError naming
    ``source`` and the line ``number``."""
    where = f"{source} line {number}"
    try:
        record = json.loads(line, parse_constant=_not_json)
    except RecursionError:
        record = None
        too_deep = True
    except ValueError as error:
        reason = error.msg if isinstance(error, json.JSONDecodeError) else str(error)
        raise DataError(
            f"{where}: not valid JSON ({reason}); write one JSON object per line"
        ) from None
    else:
        too_deep = _deeper_than(record, MAX_DEPTH)
    if too_deep:
        raise DataError(f"{where}: JSON nested more than {MAX_DEPTH} levels deep; flatten it")
    if not isinstance(record, dict):
        raise DataError(
            f"{where}: expected a JSON object, got {type(record).__name__}; "
            "write one object per line"
        )
    return record


def _not_json(constant: str) -> None:
    # Python's json reads NaN and Infinity, which JSON has not: a record holding one could not
    # be written back as JSON that other tools read.
    raise DataError(f"{constant} is not a JSON number; write null or a string")


def _deeper_than(value: Any, limit: int) -> bool:
    """True when ``value`` nests lists and objects more than ``limit`` levels (no recursion)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            if depth > limit:
                return True
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
    return False


_SURROGATE = re.compile("[\ud800-\udfff]")


def json_line(record: Mapping[str, Any], *, default: Callable[[Any], Any] | None = None) -> str:
    r"""``record`` as one JSON line that any UTF-8 file can hold: text as written, except a
    lone surrogate (which JSON input may carry and UTF-8 cannot), kept as its ``\uXXXX`` escape;
    ``default`` as in :func:`json.dumps` (``str`` for Parquet's dates and decimals).

    Example:
        >>> json_line({"text": "Zürich \ud800"})
        '{"text": "Zürich \\ud800"}'
    """
    text = json.dumps(record, ensure_ascii=False, default=default)
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
