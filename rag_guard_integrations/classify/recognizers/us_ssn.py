"""US Social Security numbers (``123-45-6789``, spaced, or nine digits right after "SSN")."""

from __future__ import annotations

from rag_guard_integrations.classify.recognizers.recognizer import Recognizer
from rag_guard_integrations.classify.recognizers.validators import us_ssn

# The word that names an SSN, then its optional "no."/"number", "is" or ":".
_SSN_WORD = (
    r"(?:ssn|s\.s\.n\.?|social security(?: number| no\.?)?|soc\.? ?sec\.?(?: no\.?)?|social)"
    r" ?(?:no\.?|number|#)? ?(?:is )?[:#=]? ?"
)

US_SSN = Recognizer(
    name="us_ssn",
    label="pii",
    # The groups are split by one kind of hyphen (spaced or not), space, dot or slash; a
    # number glued to the word that names it ("SSN078-05-1120") counts too (the span takes
    # the word). Nine bare digits are also what order and reference numbers look like: they
    # count only right after an SSN word, which is part of the match (the validator reads the
    # digits).
    regex=(
        r"(?:\b|\b(?:ssn|no|num|number))\d{3}"
        r"(?:-\d{2}-| \d{2} |\.\d{2}\.|/\d{2}/| - \d{2} - )\d{4}\b"
        rf"|\b{_SSN_WORD}\d{{9}}\b"
    ),
    validator=us_ssn,
)
"""``078-05-1120``, ``SSN: 078051120``; never area 000, 666 or 900-999, group 00 or serial 0000."""
