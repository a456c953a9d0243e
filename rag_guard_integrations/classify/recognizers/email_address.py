"""Email addresses (RFC 5322 local part, dotted domain with a letter TLD)."""

from __future__ import annotations

from rag_guard_integrations.classify.recognizers.recognizer import Recognizer

_LOCAL = r"[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*"
_DOMAIN = r"(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}"

EMAIL = Recognizer(
    name="email",
    label="pii",
    # The final \b keeps "a@b.com" out of "a@b.community" without a lookahead.
    regex=rf"{_LOCAL}@{_DOMAIN}\b",
)
"""``jane.doe+news@example.co.uk``. No context needed: the ``@`` and a TLD are specific enough."""
