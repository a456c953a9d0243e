"""The deployment key that records hash content and queries with (HMAC-SHA256).

A plain hash of a short secret is no secret: whoever reads ``sha256("PIN: 4821")`` in a record
finds the PIN by hashing the 10,000 candidates. Records therefore hash chunk text and the query
with HMAC-SHA256 under a key that never enters a record; a record names the key only by its
id, a fingerprint, so that records of one deployment can be matched with each other (the same
text, the same hash) while nobody without the key can test a guess.

The key comes from ``Guard(..., audit_key=...)``, else from the ``RAG_GUARD_AUDIT_KEY``
environment variable: at least 16 bytes, for instance ``python -c "import secrets;
print(secrets.token_hex(32))"``. Without either, the process draws a random key once (forked
workers share it) and every guard built on it says so in a notice: hashes are then still
unguessable, but match only records of the same process.
"""

from __future__ import annotations

import hashlib
import hmac
import os
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Literal

from rag_guard_integrations.core.errors import ArgumentError

AUDIT_KEY_ENV = "RAG_GUARD_AUDIT_KEY"
MIN_KEY_BYTES = 16
KeySource = Literal["argument", "environment", "process"]
_ID_MESSAGE = b"rag-guard-integrations audit key id"


@dataclass(frozen=True, slots=True)
class AuditKey:
    """A secret that record hashes are keyed with; its ``repr`` and records show only ``id``.

    Example:
        >>> key = AuditKey(b"0123456789abcdef0123456789abcdef", "argument")
        >>> len(key.digest("PIN: 4821")), len(key.id), "0123" in repr(key)
        (64, 16, False)
    """

    secret: bytes = field(repr=False)
    source: KeySource
    id: str = field(init=False)
    """The key's fingerprint (16 hex digits of an HMAC under the key itself): it names the key
    in records and says nothing of it."""

    def __post_init__(self) -> None:
        if len(self.secret) < MIN_KEY_BYTES:
            raise ArgumentError(
                f"audit key ({self.source}) has {len(self.secret)} bytes, fewer than "
                f'{MIN_KEY_BYTES}; use a random one: python -c "import secrets; '
                'print(secrets.token_hex(32))"'
            )
        fingerprint = hmac.new(self.secret, _ID_MESSAGE, hashlib.sha256).hexdigest()[:16]
        object.__setattr__(self, "id", fingerprint)

    def digest(self, text: str) -> str:
        """The hex HMAC-SHA256 of ``text`` (UTF-8) under this key."""
        data = text.encode("utf-8", "surrogatepass")
        return hmac.new(self.secret, data, hashlib.sha256).hexdigest()

    def __reduce__(self) -> tuple[type[AuditKey], tuple[bytes, KeySource]]:
        return (AuditKey, (self.secret, self.source))


AuditKeyLike = AuditKey | bytes | str | None
"""What ``audit_key=`` takes: a key, its bytes, a string (UTF-8), or None (the environment's
key, else the process's)."""


def audit_key(given: AuditKeyLike = None) -> AuditKey:
    """The key records are hashed with: ``given``, else ``$RAG_GUARD_AUDIT_KEY``, else the
    random key of this process.

    Raises:
        ArgumentError: the key given, or the environment's, is shorter than 16 bytes.
    """
    if isinstance(given, AuditKey):
        return given
    if given is not None:
        if not isinstance(given, bytes | str):
            raise ArgumentError(
                f"audit_key must be bytes, a str or an AuditKey, got {type(given).__name__}"
            )
        return AuditKey(_as_bytes(given), "argument")
    from_environment = os.environ.get(AUDIT_KEY_ENV)
    if from_environment:
        return AuditKey(_as_bytes(from_environment), "environment")
    return process_key()


@lru_cache(maxsize=1)
def process_key() -> AuditKey:
    """The random key this process draws on first use, when no key is configured."""
    return AuditKey(os.urandom(32), "process")


def key_notice(key: AuditKey) -> str | None:
    """What a guard says about a key drawn by the process (None for a configured key)."""
    if key.source != "process":
        return None
    return (
        f"audit hashes are keyed with a random key of this process (id {key.id}): they match "
        f"only records of this process; set {AUDIT_KEY_ENV} or pass Guard(audit_key=...) to "
        "match records across processes"
    )


def _as_bytes(value: bytes | str) -> bytes:
    return value.encode("utf-8") if isinstance(value, str) else value
