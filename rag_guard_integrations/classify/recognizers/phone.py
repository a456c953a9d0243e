"""Phone numbers: international (``+44 20 7946 0958``) and national forms (``(020) 7946 0958``).

A run of digit groups is a phone number when a phone word is near it (the context boost), or,
with no such word, when it is unambiguous: written in international form with a possible
length for its country code, or a valid number of one of :data:`DEFAULT_REGIONS` written with
phone-style separators. Validity comes from ``phonenumbers`` (Google's libphonenumber), loaded
only when a digit run needs it. Unit and house numbers ("Suite 400 2100 Main Street"), money,
year ranges and document ids ("INV-2024-000123", "order no. 2024-118822") are never phone
numbers.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from rag_guard_integrations.classify.recognizers.recognizer import Recognizer
from rag_guard_integrations.classify.recognizers.validators import (
    NOT_PHONE_PATTERN,
    PHONE_DIGITS,
    digits,
    phone_number,
)
from rag_guard_integrations.core.patterns import compile_pattern, first_finder

DEFAULT_REGIONS = ("US", "GB", "IN", "CA", "AU", "FR")
"""Regions whose national numbers count without a phone word (written with separators).

Only regions with fixed-length numbering: where numbers vary in length (Germany, Austria), a
postcode or a house number is as often a valid number as a telephone is.
"""

_MIN_DIGITS, _MAX_DIGITS = PHONE_DIGITS
_GROUP = r"\d{1,4}"
_FIRST = rf"(?:\+ ?{_GROUP}|\({_GROUP}\)|\b{_GROUP})"
# Later groups: a space, dot or hyphen, an optional "(0)" or "(area)", then digits.
_NEXT = rf"(?:[ .\-]?(?:\({_GROUP}\)[ .\-]?)?{_GROUP})"
_EXTENSION = r"(?: ?(?:x|ext\.?|extension) ?\d{1,6})"
# Words that make the digits next to them something else: a currency before, a unit or box
# word before, a street word after. They are part of the match so that the validator sees them.
_CURRENCY = r"(?:[$€£¥₹]|\b(?:rs|inr|usd|eur|gbp)\.?) ?"
_UNIT = r"\b(?:suite|ste|unit|apt|apartment|room|rm|floor|fl|box|flat|bldg|building)\.? ?#? ?"
_STREET = (
    r"(?: [a-z][a-z'-]*){0,2} (?:st|street|rd|road|ave|avenue|blvd|boulevard|lane|ln|drive"
    r"|highway|hwy|parkway|pkwy|terrace|crescent)\b"
    # Street words that come first: "12 rue de la gare", "48 via roma", "7 calle mayor".
    r"| (?:rue|via|viale|calle|avenida|av|rua|chemin|allee|strasse|piazza|plaza|carrer|ul)\b"
)
# An id word and the id's own digits ("order no. 2024-118822", "ticket 2023-555-0142"): taken
# whole, so that a phone number after them ("order 5512 202-456-1111") is read on its own.
# Taken only before a digit, so that "ref +44 20 ..." still reads the international number.
# Words that also label a phone line ("Reservation: ...", "Account: ...") are not id words,
# nor is a plural ("Reservations: 020 7946 0958"). A code glued to a year and a serial
# ("INV-2024-000123") is an id even beside a phone word; glued to other digits it may be one
# ("Tel-202-456-1111").
_ID = (
    r"\b(?:order|invoice|inv|po|p\.o|purchase order|ref|reference|ticket|case|claim|contract"
    r"|policy|serial|batch|lot|item|part|sku|model|tracking|shipment|consignment|transaction"
    r"|txn|receipt|voucher|quote|quotation|project|job|file|application|registration"
    r"|licen[cs]e|permit|patent|certificate)\.?(?: ?(?:no|nr|num|number|id|#)\.?)? ?[:#]? ?"
)
_ID_DIGITS = r"\d+(?:[-/.]\d+)*\b"
_CODE = r"\b[a-z][a-z0-9]*-(?:19|20)\d{2}-"
_YEAR_RANGE = r"^(?:19|20)\d{2} ?[-/] ?(?:19|20)\d{2}$"
_NOT_A_NUMBER_PATTERN = rf"^(?:{_CURRENCY}|{_UNIT}|{_ID}|{_CODE})|(?:{_STREET})$|{_YEAR_RANGE}"
_not_a_number = first_finder(compile_pattern(_NOT_A_NUMBER_PATTERN))
_not_phone_or_number = first_finder(compile_pattern(f"{NOT_PHONE_PATTERN}|{_NOT_A_NUMBER_PATTERN}"))
# A year, then a serial ("2024-118822", "2024 118822"): a document number unless a phone word
# is near (a US number that starts "202" is grouped 3-3-4, not 4-6).
_year_serial = first_finder(compile_pattern(r"^(?:19|20)\d{2}[- ]\d{5,}$"))
_international_prefix = first_finder(compile_pattern(r"^(?:\+|00|011)"))
_SEPARATOR = r"[ .\-()]"
_separated = first_finder(compile_pattern(rf"\d{_SEPARATOR}+\d|^\("))
# Where a number that stands alone can be: seven digits (the least a phone number has), each
# at most three separators from the next, after a "+" or "(" or with a separator among them
# (what unambiguous_phone asks of a number; a bare run of digits never stands alone). One
# alternative for each place the first separator can take, so that all seven are counted.
_STANDALONE = rf"[+(] ?\d(?:{_SEPARATOR}{{0,3}}\d){{6}}|" + "|".join(
    rf"\d(?:{_SEPARATOR}{{0,3}}\d){{{k}}}{_SEPARATOR}{{1,3}}\d(?:{_SEPARATOR}{{0,3}}\d){{{5 - k}}}"
    for k in range(6)
)


def plausible_phone(text: str) -> bool:
    """A phone-sized digit run that is not money, a unit or house number, or a year range."""
    # Most digit runs in prose ("Section 8.3", "30 days") are short: count before any regex.
    if len(text) < _MIN_DIGITS:
        return False
    count = len(digits(text))
    if count < _MIN_DIGITS:
        return False
    plain = text.isascii() and "x" not in text and "X" not in text and text == text.strip()
    if plain and count <= _MAX_DIGITS:
        # What phone_number would check as well, in one regex: the common case, no extension.
        return _not_phone_or_number(text) is None
    # phone_number first: it rejects card-length runs by counting, without a regex.
    return phone_number(text) and _not_a_number(text) is None


@lru_cache(maxsize=4096)
def unambiguous_phone(text: str) -> bool:
    """True when ``text`` (which :func:`plausible_phone` accepts) is a phone number even with
    no phone word near it."""
    number = text.strip()
    if number.startswith("+"):
        return _international(number[1:])
    # Without a "+", only a number written in groups is told apart from an id or an account
    # number ("004417723" is one).
    if _separated(number) is None or _year_serial(number) is not None:
        return False
    prefix = _international_prefix(number)
    if prefix is not None:
        return _international(number[prefix[1] :])
    return any(_valid_national(number, region) for region in DEFAULT_REGIONS)


def _international(rest: str) -> bool:
    phonenumbers = _library()
    try:
        parsed = phonenumbers.parse("+" + rest.lstrip(" +"), None)
    except phonenumbers.NumberParseException:
        return False
    return bool(phonenumbers.is_possible_number(parsed))


def _valid_national(number: str, region: str) -> bool:
    phonenumbers = _library()
    try:
        parsed = phonenumbers.parse(number, region)
    except phonenumbers.NumberParseException:
        return False
    if not phonenumbers.is_valid_number(parsed):
        return False
    # Written the way the region writes it, trunk prefix included: "020 7946 0958" is a London
    # number, "555-123-4567" is not one (it lacks the 0).
    written = phonenumbers.format_number(parsed, phonenumbers.PhoneNumberFormat.NATIONAL)
    return digits(written) == digits(number)


@lru_cache(maxsize=1)
def _library() -> Any:
    # Imported on the first digit run that needs it: ``import rag_guard_integrations`` and text
    # without phone-sized digit runs never pay for its metadata.
    import phonenumbers  # noqa: PLC0415

    return phonenumbers


PHONE = Recognizer(
    name="phone",
    label="pii",
    # Matches the whole run of digit groups; the validator then counts its digits, so a
    # 16-digit card number is one rejected run rather than a phone-sized piece of it.
    regex=(
        rf"(?:{_ID}){_ID_DIGITS}|{_CODE}\d+\b"
        rf"|(?:{_CURRENCY}|{_UNIT})?{_FIRST}{_NEXT}{{1,7}}{_EXTENSION}?\b(?:{_STREET})?"
    ),
    validator=plausible_phone,
    standalone=unambiguous_phone,
    standalone_regex=_STANDALONE,
    # Digit groups are everywhere (amounts, codes, postcodes): a run that is not unambiguous
    # counts only where text around it talks about phoning.
    context=(
        "phone",
        "telephone",
        "tel",
        "ph",
        "call",
        "mobile",
        "mob",
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
        "answer",
        "office",
        "desk",
        "direct",
        "ext",
        "extension",
        # French, German, Spanish, Italian and Portuguese ("téléphone" reads as "telephone").
        "telefon",
        "telefonnummer",
        "ruf",
        "rufnummer",
        "handy",
        "handynummer",
        "mobil",
        "mobilnummer",
        "festnetz",
        "portable",
        "telefono",
        "movil",
        "celular",
        "cellulare",
        "tfno",
        "tlf",
    ),
)
"""``+1-202-555-0173`` anywhere; ``(020) 7946 0958``, ``555.123.4567 x12`` after "call", ..."""
