"""Terminal output of the CLI: JSON or a plain table, and a progress bar on stderr.
Everything printed goes through :func:`printable`: control characters from chunk ids or
metadata are escaped, never sent to the terminal raw."""

from __future__ import annotations

import json
import sys
import textwrap
import time
from typing import TYPE_CHECKING, Any, TypeVar

from rag_guard_integrations.core.printable import printable

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator, Sequence

T = TypeVar("T")


def print_json(data: Any) -> None:
    """Write ``data`` as indented JSON to stdout, control characters in strings as ``\\u``
    escapes (JSON escapes C0 itself; the line breaks left are the layout's)."""
    text = json.dumps(data, indent=2, ensure_ascii=False, default=str)
    print("\n".join(map(printable, text.split("\n"))))


def print_line(text: str) -> None:
    """Write one line of text to stdout, control characters escaped."""
    print(printable(text))


def table(headers: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    r"""A plain-text table with columns padded to their widest cell; every cell printable.

    Example:
        >>> print(table(["id", "n"], [["a\x1b[2J", 1.5]]))
        id          n
        ----------  -----
        a\u001b[2J  1.500
    """
    cells = [[printable(str(h)) for h in headers]] + [[_cell(v) for v in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) for row in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(line.rstrip() for line in lines)


def _cell(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.3f}"
    return printable(str(value))


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
    print(f"\n{'=' * 78}\n{printable(text)}\n{'=' * 78}")


def snippet(text: str, width: int = 60) -> str:
    """One printable line of at most ``width`` characters (before escaping)."""
    return printable(textwrap.shorten(" ".join(text.split()), width=width, placeholder="..."))
