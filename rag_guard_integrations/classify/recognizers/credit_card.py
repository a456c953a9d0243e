"""Payment card numbers: 12 to 19 digits, optionally grouped, that pass the Luhn checksum."""

from __future__ import annotations

from rag_guard_integrations.classify.recognizers.recognizer import Recognizer
from rag_guard_integrations.classify.recognizers.validators import card_number

# Between two groups of four digits: punctuation or markdown marks, white space, or HTML tags
# (``<br>``, ``</td><td>``, ``<span class="x">``).
_TAG = r"</?[a-z][a-z0-9]{0,9}(?: [^<>]{0,80})?/?>"
_GROUP_BREAK = rf"(?:(?:\s*[-./_,:;|*+#~`'\"()\[\]]){{1,6}}\s*|\s+|(?:\s*{_TAG}){{1,4}}\s*)"

CREDIT_CARD = Recognizer(
    name="credit_card",
    label="financial",
    # The whole run of digits (spaces or hyphens between them) is taken, so that a longer
    # number is rejected as a whole instead of yielding a card-sized slice. Groups of four
    # may also be split by up to six punctuation or markdown marks with spaces around them
    # (``--``, ``:``, ``|``, ``** **``, ``)(``, quotes), a line break, or HTML tags (``<br>``,
    # ``</td><td>``). A number
    # glued to the word that names it ("card4111...") counts too (the span takes the word).
    regex=(
        r"(?:\b|\b(?:card|cc|no|num|number))(?:"
        r"\d(?:[ \-]?\d){10,22}"
        rf"|\d{{4}}(?:{_GROUP_BREAK}\d{{4}}){{2,3}}(?:{_GROUP_BREAK}\d{{1,3}})?"
        r")\b"
    ),
    validator=card_number,
)
"""``4111 1111 1111 1111``, ``5500-0000-0000-0004``. Luhn rejects 9 in 10 random numbers."""
