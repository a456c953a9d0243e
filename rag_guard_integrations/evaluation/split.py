"""The fixed split of the evaluation data: a tune half to choose patterns and thresholds on,
and a held-back half that measures them on what they were not chosen with."""

from __future__ import annotations

import hashlib

SPLITS = ("tune", "held_back")


def half_of(key: str) -> str:
    """``tune`` when the first byte of the SHA-256 of ``key`` (UTF-8) is even, else ``held_back``.

    Example:
        >>> half_of("ACME-EX-10.1-SUPPLY AGREEMENT")
        'held_back'
    """
    return SPLITS[hashlib.sha256(key.encode("utf-8")).digest()[0] % 2]
