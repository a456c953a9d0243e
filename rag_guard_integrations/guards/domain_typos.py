"""Misspelt domain roots: a word one edit from a root, that is no English word, counts as the root.

"cemnt", "helmat", "geysar" and "tyers" are one deletion, substitution, insertion or swap
of two neighbouring letters away from "cement", "helmet", "geyser" and "tyres". English
words as near to a root ("charge" to "charger", "pocket" to "socket", "battle" to "bottle")
are kept apart by a word list: the whole words of the MiniLM tokenizer's vocabulary, which
ships with the embedding model. Without the embeddings extra there is no list, and no word
counts as a misspelling.

Matching is symmetric deletion: a root's forms and each of their one-letter deletions are
indexed once; a word is looked up with its own one-letter deletions, so a query costs work
linear in its length (words longer than :data:`MAX_LENGTH` letters are not looked up).
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from rag_guard_integrations.core.errors import EmbedderUnavailableError
from rag_guard_integrations.embeddings import model_path

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator

MIN_ROOT = 4  # letters of a root that misspellings are read for ("tyre", not "tv")
MIN_WORD = 5  # letters of a query word read as a possible misspelling
MAX_LENGTH = 30
_LETTERS = re.compile(r"[^\W\d_]+")


@lru_cache(maxsize=1)
def english_words() -> frozenset[str]:
    """The whole words of the embedding model's vocabulary; empty when it is not installed."""
    try:
        vocabulary = Path(model_path()) / "vocab.txt"
        text = vocabulary.read_text(encoding="utf-8")
    except (EmbedderUnavailableError, OSError):
        return frozenset()
    return frozenset(word for word in text.split() if word.isalpha())


def _deletions(word: str) -> Iterator[str]:
    return (word[:i] + word[i + 1 :] for i in range(len(word)))


class Typos:
    """Finds misspellings of ``forms`` (a root's forms -> the root) in normalised text.

    Example:
        >>> typos = Typos({"cement": "cement", "helmet": "helmet"}, frozenset({"comment"}))
        >>> typos.find("cemnt and helmat test, no comment", [])
        [(0, 5, 'cement'), (10, 16, 'helmet')]
    """

    def __init__(self, forms: dict[str, str], words: frozenset[str]) -> None:
        self._words = words
        self._index: dict[str, str] = {}
        for form, root in forms.items():
            if len(root) >= MIN_ROOT and form.isalpha():
                for variant in (form, *_deletions(form)):
                    self._index.setdefault(variant, root)

    def find(self, text: str, taken: Iterable[tuple[int, int]]) -> list[tuple[int, int, str]]:
        """``(start, end, root)`` of each misspelt root in ``text``, outside the ``taken`` spans
        (the exact matches), in order."""
        if not self._index or not self._words:
            return []
        spans = iter(sorted(taken))
        next_span = next(spans, None)
        found = []
        for match in _LETTERS.finditer(text):
            while next_span is not None and next_span[1] <= match.start():
                next_span = next(spans, None)
            if next_span is not None and next_span[0] < match.end():
                continue  # inside an exact match
            word = match.group()
            if not MIN_WORD <= len(word) <= MAX_LENGTH or word in self._words:
                continue
            root = self._root_of(word)
            if root is not None:
                found.append((match.start(), match.end(), root))
        return found

    def _root_of(self, word: str) -> str | None:
        for variant in (word, *_deletions(word)):
            if (root := self._index.get(variant)) is not None:
                return root
        return None
