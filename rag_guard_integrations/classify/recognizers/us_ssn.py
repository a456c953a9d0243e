"""US Social Security numbers (``123-45-6789`` or spaced), under the current issuing rules."""

from __future__ import annotations

from rag_guard_integrations.classify.recognizers.recognizer import Recognizer
from rag_guard_integrations.classify.recognizers.validators import us_ssn

US_SSN = Recognizer(
    name="us_ssn",
    label="pii",
    # Bare nine-digit runs are left out: too many order and reference numbers look like that.
    regex=r"\b\d{3}(?:-\d{2}-| \d{2} )\d{4}\b",
    validator=us_ssn,
)
"""``078-05-1120``; never area 000, 666 or 900-999, group 00 or serial 0000."""
