"""A small thread-safe LRU cache for per-text work that the same chunks bring back."""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Sized
from typing import Generic, TypeVar

from rag_guard_integrations.core.errors import ArgumentError

K = TypeVar("K")
V = TypeVar("V")


class BoundedCache(Generic[K, V]):
    """A map that forgets its least recently used entries beyond ``maxsize`` (0 disables it).

    Example:
        >>> cache: BoundedCache[str, int] = BoundedCache(2)
        >>> cache.put("a", 1), cache.get("a"), cache.get("b")
        (1, 1, None)
    """

    def __init__(self, maxsize: int, max_key_len: int | None = None) -> None:
        if maxsize < 0:
            raise ArgumentError(f"cache_size={maxsize!r} is negative; use 0 to disable the cache")
        self.maxsize = maxsize
        self.max_key_len = max_key_len
        self._data: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: K) -> V | None:
        """The cached value (now the most recently used), or None."""
        with self._lock:
            value = self._data.get(key)
            if value is not None:
                self._data.move_to_end(key)
            return value

    def put(self, key: K, value: V) -> V:
        """Store ``value`` (evicting the least recently used entry when full) and return it."""
        if self.maxsize == 0:
            return value
        with self._lock:
            self._data[key] = value
            self._data.move_to_end(key)
            while len(self._data) > self.maxsize:
                self._data.popitem(last=False)
        return value

    def remember(self, key: K, compute: Callable[[], V]) -> V:
        """The cached value, else ``compute()``, stored unless the key is longer than
        ``max_key_len`` (a huge query must not stay in memory)."""
        value = self.get(key)
        if value is not None:
            return value
        value = compute()
        too_long = (
            self.max_key_len is not None and isinstance(key, Sized) and len(key) > self.max_key_len
        )
        return value if too_long else self.put(key, value)

    def __len__(self) -> int:
        with self._lock:
            return len(self._data)


def text_key(text: str) -> str:
    """A fixed-size cache key for a text (its sha256), so long chunks are not kept twice."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
