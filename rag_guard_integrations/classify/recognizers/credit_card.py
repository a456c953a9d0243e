"""Payment card numbers: 12 to 19 digits, optionally grouped, that pass the Luhn checksum."""

from __future__ import annotations

from rag_guard_integrations.classify.recognizers.recognizer import Recognizer
from rag_guard_integrations.classify.recognizers.validators import card_number

CREDIT_CARD = Recognizer(
    name="credit_card",
    label="financial",
    # The whole run of digits (spaces or hyphens between them) is taken, so that a longer
    # number is rejected as a whole instead of yielding a card-sized slice.
    regex=r"\b\d(?:[ \-]?\d){10,22}\b",
    validator=card_number,
)
"""``4111 1111 1111 1111``, ``5500-0000-0000-0004``. Luhn rejects 9 in 10 random numbers."""
