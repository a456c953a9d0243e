"""Regexes on RE2: linear-time matching for every pattern a policy or an index supplies."""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any

import re2

from rag_guard_integrations.core.errors import PatternCompileError, PatternTooLargeError
from rag_guard_integrations.core.normalize import CACHED_CHARS, normalize

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence


def _options(max_mem: int) -> Any:
    options = re2.Options()
    options.case_sensitive = False
    options.log_errors = False
    options.max_mem = max_mem
    return options


_OPTIONS = _options(64 << 20)
# Patterns from the index are untrusted, and a short one such as ``\pL{1000}`` takes a second
# and megabytes to compile: they get a small memory budget, and RE2 refuses them beyond it.
_UNTRUSTED_OPTIONS = _options(1 << 20)
# RE2 is linear in the text, but its per-character cost grows with the program once the DFA's
# cache thrashes: a 21 KB alternation took 19 s on 17 KB of text. Measured on 1 MB of words,
# alternations of program size 1,200 cost 0.03 s and of 1,800 already 1.1 s; untrusted patterns
# stay below 1,000 characters and 1,000 instructions.
MAX_UNTRUSTED_CHARS = 1000
MAX_UNTRUSTED_PROGRAM = 1000


@lru_cache(maxsize=4096)
def compile_pattern(pattern: str) -> Any:
    """Compile ``pattern`` case-insensitively with RE2 (cached), or raise PatternCompileError."""
    return _compile(pattern, _OPTIONS)


def compile_untrusted(pattern: str) -> Any:
    """Like :func:`compile_pattern` for index-supplied patterns, within a 1 MiB RE2 budget, at
    most ``MAX_UNTRUSTED_CHARS`` long and ``MAX_UNTRUSTED_PROGRAM`` RE2 instructions.

    Raises:
        PatternTooLargeError: the pattern is over either bound.
        PatternCompileError: RE2 refuses it.
    """
    if isinstance(pattern, str) and len(pattern) > MAX_UNTRUSTED_CHARS:
        raise PatternTooLargeError(
            f"pattern has {len(pattern)} characters, more than {MAX_UNTRUSTED_CHARS}"
        )
    regex = _compile_untrusted(pattern)
    if regex.programsize > MAX_UNTRUSTED_PROGRAM:
        raise PatternTooLargeError(
            f"pattern compiles to {regex.programsize} RE2 instructions, more than "
            f"{MAX_UNTRUSTED_PROGRAM}"
        )
    return regex


@lru_cache(maxsize=256)
def _compile_untrusted(pattern: str) -> Any:
    return _compile(pattern, _UNTRUSTED_OPTIONS)


def _compile(pattern: str, options: Any) -> Any:
    if not isinstance(pattern, str):
        raise PatternCompileError(f"a pattern must be a string, got {type(pattern).__name__}")
    try:
        return re2.compile(pattern, options=options)
    except re2.error as error:
        detail = error.args[0] if error.args else error
        if isinstance(detail, bytes):
            detail = detail.decode("utf-8", "replace")
        raise PatternCompileError(f"RE2 cannot compile {pattern!r}: {detail}") from None


class PatternSet:
    """Many patterns matched in one RE2 pass; ``matching(text)`` gives the indices that match.

    Example:
        >>> PatternSet([r"\\bnotice\\b", r"\\bterminat"]).matching("termination notice")
        [0, 1]
    """

    def __init__(self, patterns: Sequence[str]) -> None:
        self.patterns = tuple(patterns)
        self._set: Any = None
        if self.patterns:
            for pattern in self.patterns:
                compile_pattern(pattern)
            self._set = re2.Set.SearchSet(_OPTIONS)
            for pattern in self.patterns:
                self._set.Add(pattern)
            self._set.Compile()
        # RE2's own set where the wrapper exposes it (it takes UTF-8 bytes): the wrapper's
        # method is a Python frame around it on every text.
        raw: Any = getattr(self._set, "_set", None)
        self.match_utf8: Callable[[bytes], list[int]] = (
            self._match_wrapped if raw is None else raw.Match
        )
        """A new list of the indices (in no order) of the patterns that occur in UTF-8
        ``data``: the cheapest call for a hot loop."""

    def matching(self, text: str | bytes) -> list[int]:
        """Return the sorted indices of the patterns that occur in ``text`` (str, or UTF-8)."""
        return sorted(self.match_utf8(text.encode("utf-8") if isinstance(text, str) else text))

    def _match_wrapped(self, data: bytes) -> list[int]:
        if self._set is None:
            return []
        return list(self._set.Match(data) or ())  # Match gives None when nothing matches


_UNANCHORED = getattr(getattr(re2, "_Anchor", None), "UNANCHORED", None)


def span_finder(regex: Any) -> Callable[[bytes, int], list[tuple[int, int]]]:
    """A function giving the non-empty, non-overlapping match spans of a compiled pattern in
    UTF-8 ``data`` (byte offsets) that start before ``stop`` (``len(data)``: all of them; the
    text after ``stop`` is still read, for ``\\b`` and ``$``), for a hot loop: RE2's matcher
    is looked up once.

    It calls RE2's matcher directly where the wrapper exposes it (on short texts the
    wrapper's generator and match objects cost more than the match itself), else
    ``finditer``.

    Example:
        >>> spans = span_finder(compile_pattern(r"\\d+"))
        >>> spans(b"a 12 b 345", 10), spans(b"a 12 b 345", 5)
        ([(2, 4), (7, 10)], [(2, 4)])
    """
    low = getattr(regex, "_regexp", None)
    if low is None or _UNANCHORED is None:
        return lambda data, stop: [
            m.span() for m in regex.finditer(data) if m.start() < stop and m.end() > m.start()
        ]
    match, anchor = low.Match, _UNANCHORED

    def spans(data: bytes, stop: int) -> list[tuple[int, int]]:
        out: list[tuple[int, int]] = []
        position, size = 0, len(data)
        while position < stop:  # a non-empty match cannot start at the end
            start, end = span = match(anchor, data, position, size)[0]
            if start < 0 or start >= stop:
                break
            if end > start:
                out.append(span)
                position = end
            else:
                position = end + 1  # an empty match: step past it
        return out

    return spans


def trie_pattern(keys: list[str]) -> str:
    """One RE2 alternation of sorted, distinct ``keys``, factored by common prefixes (a
    key that is a prefix of another matches only where the longer one does not).

    Example:
        >>> trie_pattern(["bank", "banker", "bar"])
        'ba(?:nk(?:er)?|r)'
    """

    def build(low: int, high: int, depth: int) -> str:
        ends = len(keys[low]) == depth  # sorted: a key that ends here comes first
        index = low + ends
        branches = []
        while index < high:
            char, last = keys[index][depth], index + 1
            while last < high and keys[last][depth] == char:
                last += 1
            branches.append(re2.escape(char) + build(index, last, depth + 1))
            index = last
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        if ends:
            return f"(?:{body})?" if len(body) > 1 else f"{body}?"
        return body

    return build(0, len(keys), 0) if keys else "(?!)"


def char_spans(spans: Sequence[tuple[int, int]], data: bytes) -> list[tuple[int, int]]:
    """Byte spans of a :func:`span_finder` in UTF-8 ``data`` as character offsets into the text
    ``data`` encodes; ``spans`` in order and not overlapping, each on character boundaries (as
    RE2 reports them). One pass over the bytes, however many spans.

    Example:
        >>> data = "né 1234".encode()
        >>> char_spans([(4, 8)], data)
        [(3, 7)]
    """
    out: list[tuple[int, int]] = []
    byte = char = 0
    for low, high in spans:
        start = char + len(data[byte:low].decode("utf-8"))
        char = start + len(data[low:high].decode("utf-8"))
        byte = high
        out.append((start, char))
    return out


def union_spans(spans: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """Overlapping spans joined into one, in order (one value found by several readings of a
    text with slightly different spans is one value).

    Example:
        >>> union_spans([(3, 16), (3, 15), (20, 24)])
        [(3, 16), (20, 24)]
    """
    out: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if out and start < out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


def first_finder(regex: Any) -> Callable[[str], tuple[int, int] | None]:
    """A function giving the span of the first match of a compiled pattern in a text, or
    None, for a hot loop: RE2's matcher is looked up once.

    ASCII text goes to RE2's matcher directly as bytes (its offsets are then character
    offsets): the wrapper's ``search`` translates offsets and builds a match object, several
    times the cost of the match on the short values validators look at.

    Example:
        >>> first_finder(compile_pattern(r"\\d+"))("ab 12")
        (3, 5)
    """
    low = getattr(regex, "_regexp", None)

    def search(text: str) -> tuple[int, int] | None:
        match = regex.search(text)
        return None if match is None else match.span()

    if low is None or _UNANCHORED is None:
        return search
    match, anchor = low.Match, _UNANCHORED

    def first(text: str) -> tuple[int, int] | None:
        if not text.isascii():
            return search(text)
        data = text.encode("ascii")
        span: tuple[int, int] = match(anchor, data, 0, len(data))[0]
        return None if span[0] < 0 else span

    return first


def matches(pattern: str, text: str, *, untrusted: bool = False) -> bool:
    """True when ``pattern`` occurs in the normalised ``text``.

    Cached for texts of chunk size, because one RE2 call from Python costs microseconds and the
    same chunk comes back on many queries. ``untrusted`` compiles with
    :func:`compile_untrusted`. Raises PatternCompileError for a pattern RE2 refuses.
    """
    if len(text) > CACHED_CHARS:
        return _search(pattern, text, untrusted)
    return _cached_search(pattern, text, untrusted)


@lru_cache(maxsize=65536)
def _cached_search(pattern: str, text: str, untrusted: bool) -> bool:
    return _search(pattern, text, untrusted)


def _search(pattern: str, text: str, untrusted: bool) -> bool:
    regex = compile_untrusted(pattern) if untrusted else compile_pattern(pattern)
    return regex.search(normalize(text)) is not None
