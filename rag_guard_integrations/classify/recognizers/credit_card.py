"""Payment card numbers: 12 to 19 digits, optionally grouped, that pass the Luhn checksum."""

from __future__ import annotations

from rag_guard_integrations.classify.recognizers.recognizer import Recognizer
from rag_guard_integrations.classify.recognizers.validators import card_number

# Between two groups of four digits: punctuation or markdown marks, white space, or HTML tags
# (``<br>``, ``</td><td>``, ``<span class="x">``).
_TAG = r"</?[a-z][a-z0-9-]{0,9}(?: [^<>]{0,40})?/?>"
GROUP_BREAK = rf"(?:(?:\s*[-./_,:;|*+#~`'\"()\[\]·•]){{1,6}}\s*|\s+|(?:\s*{_TAG}){{1,4}}\s*)"

CREDIT_CARD = Recognizer(
    name="credit_card",
    label="financial",
    # Groups of four come first, up to six of them, split by up to six punctuation or
    # markdown marks with spaces around them (``--``, ``:``, ``|``, ``** **``, ``)(``,
    # quotes), a line break or HTML tags: a card whose last group a mark sets apart
    # (``4111 1111 1111 **1111**``) is read whole, and a longer grouped number is taken whole
    # (and rejected by its length), not cut to a card-sized slice. Then a run of digits with
    # spaces or hyphens, taken whole for the same reason. A number glued to the word that
    # names it ("card4111...") counts too (the span takes the word).
    regex=(
        r"(?:\b|\b(?:card|cc|no|num|number))(?:"
        rf"\d{{4}}(?:{GROUP_BREAK}\d{{4}}){{2,5}}(?:{GROUP_BREAK}\d{{1,3}})?"
        r"|\d(?:[ \-]?\d){10,22}"
        r")\b"
    ),
    validator=card_number,
)
"""``4111 1111 1111 1111``, ``5500-0000-0000-0004``. Luhn rejects 9 in 10 random numbers."""
