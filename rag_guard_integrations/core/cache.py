"""A small thread-safe bounded cache for per-text work that the same chunks bring back."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sized
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class BoundedCache(Generic[K, V]):
    """A dict that forgets its oldest entries beyond ``maxsize``.

    Example:
        >>> cache: BoundedCache[str, int] = BoundedCache(2)
        >>> cache.put("a", 1), cache.get("a"), cache.get("b")
        (1, 1, None)
    """

    def __init__(self, maxsize: int, max_key_len: int | None = None) -> None:
        self.maxsize = maxsize
        self.max_key_len = max_key_len
        self._data: dict[K, V] = {}
        self._lock = threading.Lock()

    def get(self, key: K) -> V | None:
        """The cached value, or None."""
        return self._data.get(key)

    def put(self, key: K, value: V) -> V:
        """Store ``value`` (evicting the oldest entry when full) and return it."""
        if self.maxsize <= 0:
            return value
        with self._lock:
            if key not in self._data and len(self._data) >= self.maxsize:
                del self._data[next(iter(self._data))]
            self._data[key] = value
        return value

    def remember(self, key: K, compute: Callable[[], V]) -> V:
        """The cached value, else ``compute()``, stored unless the key is longer than
        ``max_key_len`` (a huge query must not stay in memory)."""
        value = self._data.get(key)
        if value is not None:
            return value
        value = compute()
        too_long = (
            self.max_key_len is not None and isinstance(key, Sized) and len(key) > self.max_key_len
        )
        return value if too_long else self.put(key, value)

    def __len__(self) -> int:
        return len(self._data)
