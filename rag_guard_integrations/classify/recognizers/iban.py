"""International bank account numbers (IBAN), compact or in groups of four, checked mod 97."""

from __future__ import annotations

from rag_guard_integrations.classify.recognizers.recognizer import Recognizer
from rag_guard_integrations.classify.recognizers.validators import iban

# After the bank code, printed groups are taken only when they hold a digit, so that a word
# after the number ("... 7034 from") is not read as one more group and spoil the checksum.
_GROUP = r"(?:\d[a-z0-9]{3}|[a-z]\d[a-z0-9]{2}|[a-z]{2}\d[a-z0-9]|[a-z]{3}\d)"
_LAST = r"(?:\d[a-z0-9]{0,2}|[a-z]\d[a-z0-9]?|[a-z]{2}\d)"

IBAN = Recognizer(
    name="iban",
    label="financial",
    regex=(
        r"\b[a-z]{2} ?\d{2}(?:"  # GB82 or GB 82
        r"[a-z0-9]{11,30}"  # compact: DE89370400440532013000
        rf"| [a-z0-9]{{4}}(?: {_GROUP}){{1,6}}(?: {_LAST})?"  # printed: DE89 3704 0044 0532 ...
        rf"| [a-z0-9]{{4}}(?: {_GROUP}){{0,5}} [a-z0-9]{{5,26}}"  # GB82 WEST 12345698765432
        rf"|\n[a-z0-9]{{4}}(?:\n{_GROUP}){{1,6}}(?:\n{_LAST})?"  # a group on each line
        rf"|-[a-z0-9]{{4}}(?:-{_GROUP}){{1,6}}(?:-{_LAST})?"  # DE89-3704-0044-0532-...
        rf"|\.[a-z0-9]{{4}}(?:\.{_GROUP}){{1,6}}(?:\.{_LAST})?"  # DE89.3704.0044.0532...
        r")\b"
    ),
    validator=iban,
)
"""``GB82 WEST 1234 5698 7654 32``, with one separator throughout (a space, a hyphen, a period,
or a line break: the checksum keeps a value that runs across lines from being a chance match).
The ISO 7064 mod-97 check rejects 96 in 97 typos."""
