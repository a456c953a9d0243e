"""Bank account numbers: a 6-17 digit run near "account", "acct" or "a/c"."""

from __future__ import annotations

from rag_guard_integrations.classify.recognizers.recognizer import Recognizer

ACCOUNT_NUMBER = Recognizer(
    name="account_number",
    label="financial",
    # Bank account numbers are unformatted digit runs of national length (6 to 17 digits in
    # the US and most of Europe); grouped runs are left to the card, IBAN and phone patterns.
    regex=r"\b\d{6,17}\b",
    context=("account", "acct", "a/c", "account no", "bank account"),
)
"""``account 004417723``, ``acct # 12345678``."""
