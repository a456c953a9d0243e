"""US Social Security numbers (``123-45-6789`` or spaced), under the current issuing rules."""

from __future__ import annotations

from rag_guard_integrations.classify.recognizers.recognizer import Recognizer
from rag_guard_integrations.classify.recognizers.validators import us_ssn

US_SSN = Recognizer(
    name="us_ssn",
    label="pii",
    # Bare nine-digit runs are left out: too many order and reference numbers look like that.
    # The groups are split by one kind of hyphen, space, dot or slash; a number glued to the
    # word that names it ("SSN078-05-1120") counts too (the span takes the word).
    regex=r"(?:\b|\b(?:ssn|no|num|number))\d{3}(?:-\d{2}-| \d{2} |\.\d{2}\.|/\d{2}/)\d{4}\b",
    validator=us_ssn,
)
"""``078-05-1120``; never area 000, 666 or 900-999, group 00 or serial 0000."""
