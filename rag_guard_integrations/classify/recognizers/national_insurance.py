"""UK National Insurance numbers (``AB 12 34 56 C``) near the words that name one."""

from __future__ import annotations

from rag_guard_integrations.classify.recognizers.recognizer import Recognizer
from rag_guard_integrations.classify.recognizers.validators import national_insurance_number

NATIONAL_INSURANCE = Recognizer(
    name="national_insurance_number",
    label="pii",
    # Two letters, three pairs of digits and a letter A to D, spaced or not. The prefix rules
    # (no D, F, I, Q, U or V; no O second; never BG, GB, KN, NK, NT, TN or ZZ) are the
    # validator's; the words that name it must be near, since such codes are also references.
    regex=r"\b[a-z]{2} ?\d{2} ?\d{2} ?\d{2} ?[a-d]\b",
    validator=national_insurance_number,
    context=("national insurance", "ni number", "ni no", "nino", "ni"),
)
"""``National Insurance no. AB 12 34 56 C``, ``NINO: QQ123456A`` is refused (QQ is no prefix)."""
