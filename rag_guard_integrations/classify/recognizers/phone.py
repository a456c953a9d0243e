"""Phone numbers: E.164 (``+44 20 7946 0958``) and common national forms, near a phone word."""

from __future__ import annotations

from rag_guard_integrations.classify.recognizers.recognizer import Recognizer
from rag_guard_integrations.classify.recognizers.validators import phone_number

_GROUP = r"\d{1,4}"
_FIRST = rf"(?:\+ ?{_GROUP}|\({_GROUP}\)|\b{_GROUP})"
# Later groups: a space, dot or hyphen, an optional "(0)" or "(area)", then digits.
_NEXT = rf"(?:[ .\-]?(?:\({_GROUP}\)[ .\-]?)?{_GROUP})"
_EXTENSION = r"(?: ?(?:x|ext\.?|extension) ?\d{1,6})"

PHONE = Recognizer(
    name="phone",
    label="pii",
    # Matches the whole run of digit groups; the validator then counts its digits, so a
    # 16-digit card number is one rejected run rather than a phone-sized piece of it.
    regex=rf"{_FIRST}{_NEXT}{{1,7}}{_EXTENSION}?\b",
    validator=phone_number,
    # Digit groups are everywhere (amounts, codes, postcodes): a run counts as a phone number
    # only where text around it talks about phoning.
    context=(
        "phone",
        "telephone",
        "tel",
        "ph",
        "call",
        "mobile",
        "cell",
        "cellphone",
        "fax",
        "contact",
        "reach",
        "dial",
        "ring",
        "text",
        "sms",
        "message",
        "whatsapp",
        "landline",
        "hotline",
        "helpline",
        "voicemail",
        "switchboard",
        "office",
        "desk",
        "direct",
        "ext",
        "extension",
    ),
)
"""``+1-202-555-0173``, ``(020) 7946 0958``, ``555.123.4567 x12`` after "call", "tel", ...."""
