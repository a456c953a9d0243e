"""International bank account numbers (IBAN), compact or in groups of four, checked mod 97."""

from __future__ import annotations

from rag_guard_integrations.classify.recognizers.recognizer import Recognizer
from rag_guard_integrations.classify.recognizers.validators import iban

IBAN = Recognizer(
    name="iban",
    label="financial",
    regex=(
        r"\b[a-z]{2}\d{2}(?:"
        r"[a-z0-9]{11,30}"  # compact: DE89370400440532013000
        r"|(?: [a-z0-9]{4}){2,7}(?: [a-z0-9]{1,3})?"  # printed: DE89 3704 0044 0532 0130 00
        r")\b"
    ),
    validator=iban,
)
"""``GB82 WEST 1234 5698 7654 32``. The ISO 7064 mod-97 check rejects 96 in 97 typos."""
