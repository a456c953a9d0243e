"""Payment card numbers: 12 to 19 digits, optionally grouped, that pass the Luhn checksum."""

from __future__ import annotations

import re

from rag_guard_integrations.classify.recognizers.recognizer import Recognizer
from rag_guard_integrations.classify.recognizers.validators import card_number

# Between two groups of four digits: punctuation or markdown marks, white space, or HTML tags
# (``<br>``, ``</td><td>``, ``<span class="x">``).
_TAG = r"</?[a-z][a-z0-9-]{0,9}(?: [^<>]{0,40})?/?>"
GROUP_BREAK = rf"(?:(?:\s*[-./_,:;|*+#~`'\"()\[\]·•]){{1,6}}\s*|\s+|(?:\s*{_TAG}){{1,4}}\s*)"

# Before a short last group (a 13-, 15- or 19-digit card: 4-4-4-1, 4-4-4-3, 4-4-4-4-3): one space
# or hyphen, so that a table's next cell, a list's next number or a footnote after a card is
# no part of it (``| 4111 1111 1111 1111 | 12/27 |``).
_SHORT_BREAK = r"[ \-]"
# A number right after a card, one space or hyphen away (``... 1111 12 payments left``).
_MORE = re.compile(r"[ \-]\d{1,3}$")


def _card_then_maybe_more(text: str) -> bool:
    """A card number, or one followed by a short number the pattern took as its last group."""
    if card_number(text):
        return True
    more = _MORE.search(text)
    return more is not None and card_number(text[: more.start()])


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
        rf"\d{{4}}(?:{GROUP_BREAK}\d{{4}}){{2,5}}(?:{_SHORT_BREAK}\d{{1,3}})?"
        r"|\d(?:[ \-]?\d){10,22}"
        r")\b"
    ),
    validator=_card_then_maybe_more,
)
"""``4111 1111 1111 1111``, ``5500-0000-0000-0004``. Luhn rejects 9 in 10 random numbers."""
