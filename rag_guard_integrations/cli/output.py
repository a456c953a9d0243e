"""Shared output helpers: JSON or a plain table, and a progress bar on stderr."""

from __future__ import annotations

import json
import sys
import textwrap
import time
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator, Sequence
    from pathlib import Path

T = TypeVar("T")
# Records nested deeper than this are refused as input: no corpus needs it, and recursive code
# downstream (JSON output, linking) would fail on them.
MAX_DEPTH = 64


def print_json(data: Any) -> None:
    """Write ``data`` as indented JSON to stdout."""
    print(json.dumps(data, indent=2, ensure_ascii=False, default=str))


def table(headers: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """A plain-text table with columns padded to their widest cell."""
    cells = [[str(h) for h in headers]] + [[_cell(v) for v in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) for row in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(line.rstrip() for line in lines)


def _cell(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)


def progress(items: Iterable[T], total: int | None, label: str) -> Iterator[T]:
    """Yield ``items`` while drawing a progress bar on stderr (only when it is a terminal)."""
    show = sys.stderr.isatty()
    start = time.monotonic()
    for done, item in enumerate(items, start=1):
        yield item
        if show and (done % 25 == 0 or done == total):
            elapsed = time.monotonic() - start
            share = f"{done}/{total}" if total else str(done)
            bar = "#" * int(30 * done / total) if total else ""
            print(f"\r{label} [{bar:<30}] {share} {elapsed:.1f}s", end="", file=sys.stderr)
    if show:
        print(file=sys.stderr)


def heading(text: str) -> None:
    """A section heading."""
    print(f"\n{'=' * 78}\n{text}\n{'=' * 78}")


def snippet(text: str, width: int = 60) -> str:
    """One line of at most ``width`` characters."""
    return textwrap.shorten(" ".join(text.split()), width=width, placeholder="...")


def read_jsonl(path: Path) -> list[tuple[int, Any]]:
    """``(line number, value)`` for every non-blank line of ``path``; a bad line is a one-line
    error naming file and line."""
    records = []
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if line.strip():
                records.append((number, parse_line(line, f"{path} line {number}")))
    return records


def parse_line(line: str | bytes, where: str) -> Any:
    """One JSON value from one line, at most ``MAX_DEPTH`` levels deep.

    Raises:
        InputError: not JSON, or nested too deep (one line naming ``where`` and the fix).
    """
    from rag_guard_integrations.core.errors import InputError  # noqa: PLC0415

    try:
        value = json.loads(line)
    except RecursionError:
        value = None
        too_deep = True
    except ValueError as error:
        detail = error.msg if isinstance(error, json.JSONDecodeError) else str(error)
        raise InputError(
            f"{where}: not valid JSON ({detail}); write one JSON object per line"
        ) from None
    else:
        too_deep = _deeper_than(value, MAX_DEPTH)
    if too_deep:
        raise InputError(
            f"{where}: JSON nested more than {MAX_DEPTH} levels deep; flatten the record"
        )
    return value


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
