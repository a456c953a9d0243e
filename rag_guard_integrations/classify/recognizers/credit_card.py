"""Payment card numbers: 12 to 19 digits, optionally grouped, that pass the Luhn checksum."""

from __future__ import annotations

from rag_guard_integrations.classify.recognizers.recognizer import Recognizer
from rag_guard_integrations.classify.recognizers.validators import card_number

CREDIT_CARD = Recognizer(
    name="credit_card",
    label="financial",
    # The whole run of digits (spaces or hyphens between them) is taken, so that a longer
    # number is rejected as a whole instead of yielding a card-sized slice. Groups of four
    # may also be split by dots, slashes, underscores, commas or line breaks. A number glued
    # to the word that names it ("card4111...") counts too (the span takes the word).
    regex=(
        r"(?:\b|\b(?:card|cc|no|num|number))(?:"
        r"\d(?:[ \-]?\d){10,22}"
        r"|\d{4}(?:(?:\s*[-./_,]\s*|\s+)\d{4}){2,3}(?:(?:\s*[-./_,]\s*|\s+)\d{1,3})?"
        r")\b"
    ),
    validator=card_number,
)
"""``4111 1111 1111 1111``, ``5500-0000-0000-0004``. Luhn rejects 9 in 10 random numbers."""
