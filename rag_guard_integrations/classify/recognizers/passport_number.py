"""Passport numbers: up to two letters and six to nine digits near the word passport."""

from __future__ import annotations

from rag_guard_integrations.classify.recognizers.recognizer import Recognizer

PASSPORT_NUMBER = Recognizer(
    name="passport_number",
    label="pii",
    # Issuers write them as digits (US, UK: nine) or letters then digits (X1234567, AB1234567).
    # Numbers of that shape are everywhere, so one counts only near "passport".
    regex=r"\b[a-z]{0,2}\d{6,9}\b",
    context=("passport", "passport number", "passport no"),
    window=25,
)
"""``passport no. X1234567``, ``Passport: 533380006``."""
