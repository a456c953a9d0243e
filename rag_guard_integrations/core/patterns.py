"""Regexes on RE2: linear-time matching for every pattern a policy or an index supplies."""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any

import re2

from rag_guard_integrations.core.normalize import CACHED_CHARS, normalize

if TYPE_CHECKING:
    from collections.abc import Sequence


class PatternCompileError(ValueError):
    """RE2 refused a pattern (a syntax error, or a feature such as a backreference)."""


def _options() -> Any:
    options = re2.Options()
    options.case_sensitive = False
    options.log_errors = False
    options.max_mem = 64 << 20
    return options


_OPTIONS = _options()


@lru_cache(maxsize=4096)
def compile_pattern(pattern: str) -> Any:
    """Compile ``pattern`` case-insensitively with RE2 (cached), or raise PatternCompileError."""
    if not isinstance(pattern, str):
        raise PatternCompileError(f"a pattern must be a string, got {type(pattern).__name__}")
    try:
        return re2.compile(pattern, options=_OPTIONS)
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

    def matching(self, text: str) -> list[int]:
        """Return the sorted indices of the patterns that occur in ``text``."""
        if self._set is None:
            return []
        return sorted(self._set.Match(text) or ())  # Match gives None when nothing matches


def matches(pattern: str, text: str) -> bool:
    """True when ``pattern`` occurs in the normalised ``text``.

    Cached for texts of chunk size, because one RE2 call from Python costs microseconds and the
    same chunk comes back on many queries. Raises PatternCompileError for a pattern RE2 refuses.
    """
    if len(text) > CACHED_CHARS:
        return _search(pattern, text)
    return _cached_search(pattern, text)


@lru_cache(maxsize=65536)
def _cached_search(pattern: str, text: str) -> bool:
    return _search(pattern, text)


def _search(pattern: str, text: str) -> bool:
    return compile_pattern(pattern).search(normalize(text)) is not None
