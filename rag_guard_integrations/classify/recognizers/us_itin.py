"""US Individual Taxpayer Identification Numbers (``912-70-1234``) near the words that name
one."""

from __future__ import annotations

from rag_guard_integrations.classify.recognizers.recognizer import Recognizer

US_ITIN = Recognizer(
    name="us_itin",
    label="pii",
    # A 9, two digits, a group of 50-65, 70-88, 90-92 or 94-99, and four digits; grouped like
    # an SSN or not.
    regex=r"\b9\d{2}[- ]?(?:5\d|6[0-5]|7\d|8[0-8]|9[0-2]|9[4-9])[- ]?\d{4}\b",
    context=("itin", "taxpayer identification", "tax id", "tin"),
)
"""``ITIN 912-70-1234``, ``taxpayer identification number 900701234``."""
