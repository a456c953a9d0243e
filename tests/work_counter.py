"""Counting work instead of timing it: how many Python lines a call executes in chosen modules.

Wall-clock asserts are flaky on a shared machine; the number of executed lines is exact and
shows growth just as well: linear work doubles when the input doubles, quadratic quadruples.
"""

from __future__ import annotations

import sys
import threading
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable
    from types import FrameType, ModuleType


def lines_run(call: Callable[[], Any], *modules: ModuleType) -> int:
    """Line events ``call()`` executes inside ``modules`` (all of the package when none given)."""
    files = {str(m.__file__) for m in modules}
    count = 0

    def watched(frame: FrameType) -> bool:
        name = frame.f_code.co_filename
        return name in files if files else "rag_guard_integrations" in name

    def local(frame: FrameType, event: str, arg: Any) -> Any:
        nonlocal count
        if event == "line":
            count += 1
        return local

    def tracer(frame: FrameType, event: str, arg: Any) -> Any:
        return local if watched(frame) else None

    previous = sys.gettrace()
    sys.settrace(tracer)
    try:
        call()
    finally:
        sys.settrace(previous)
        threading.settrace(previous)  # type: ignore[arg-type]
    return count


def growth(work: Callable[[int], int], size: int) -> float:
    """``work(2 * size) / work(size)``: about 2 for linear work, about 4 for quadratic."""
    return work(2 * size) / max(1, work(size))


class CountedText(str):
    """A text that counts the characters read out of it by indexing and slicing (``copied``).

    Python lines do not show work done inside one line, such as slicing a long text; handing
    the code a ``CountedText`` where it would get the plain one (a real text, only counted)
    shows that work: a slice of the whole text per match makes ``copied`` grow with matches x
    length, a bounded read per match with the matches alone.
    """

    copied: int

    def __new__(cls, text: str) -> CountedText:
        counted = super().__new__(cls, text)
        counted.copied = 0
        return counted

    def __getitem__(self, key: Any) -> str:  # type: ignore[override]
        part = str.__getitem__(self, key)
        self.copied += len(part)
        return part


def calls_of(call: Callable[[], Any], *functions: Callable[..., Any]) -> list[list[dict[str, Any]]]:
    """For each Python function of ``functions``, the arguments of every call ``call()`` makes
    to it, in order.

    Counting calls instead of lines shows how often one step runs per request (the query
    normalised, the clause patterns matched), whatever caches sit in front of it.
    """
    codes = {getattr(function, "__code__", None): index for index, function in enumerate(functions)}
    assert None not in codes, f"not all of {functions!r} are Python functions"
    found: list[list[dict[str, Any]]] = [[] for _ in functions]

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        if event == "call" and (index := codes.get(frame.f_code)) is not None:
            found[index].append(dict(frame.f_locals))

    previous = sys.getprofile()
    sys.setprofile(profile)
    try:
        call()
    finally:
        sys.setprofile(previous)
    return found
