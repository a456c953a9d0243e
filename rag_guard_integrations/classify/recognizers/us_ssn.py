"""US Social Security numbers (``123-45-6789``, spaced, or nine digits after "SSN")."""

from __future__ import annotations

from rag_guard_integrations.classify.recognizers.recognizer import Recognizer
from rag_guard_integrations.classify.recognizers.validators import us_ssn
from rag_guard_integrations.core.patterns import compile_pattern, first_span

# Groups split by a separator, or the number glued to "ssn": an SSN with no word near it.
_WRITTEN_AS_SSN = r"\d{3}[-. /]\d{2}[-. /]\d{4}|^ssn"
_WRITTEN = compile_pattern(_WRITTEN_AS_SSN)


def written_as_ssn(text: str) -> bool:
    """True when ``text`` (a valid SSN match) is grouped 3-2-4 or glued to "SSN": nine bare
    digits count only next to an SSN word."""
    return first_span(_WRITTEN, text) is not None


US_SSN = Recognizer(
    name="us_ssn",
    label="pii",
    # The groups are split by one kind of hyphen, space, dot or slash; a number glued to the
    # word that names it ("SSN078-05-1120") counts too (the span takes the word). Nine bare
    # digits are also what order and reference numbers look like: they need an SSN word.
    regex=(
        r"(?:\b|\b(?:ssn|no|num|number))"
        r"(?:\d{3}(?:-\d{2}-| \d{2} |\.\d{2}\.|/\d{2}/)\d{4}|\d{9})\b"
    ),
    validator=us_ssn,
    context=("ssn", "s.s.n", "social security", "soc sec", "soc. sec"),
    standalone=written_as_ssn,
    standalone_regex=r"\d{3}[-. /]\d{2}[-. /]\d{4}|ssn\d{9}",
)
"""``078-05-1120``, ``SSN: 078051120``; never area 000, 666 or 900-999, group 00 or serial 0000."""
