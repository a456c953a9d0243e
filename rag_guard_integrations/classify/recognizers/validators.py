"""Checksums and structure rules that turn a regex match into a finding (or reject it).

Each validator takes the matched text (normalised: lower case, full-width digits folded) and
returns True when it is a plausible value. ``VALIDATORS`` holds the ones a policy can name.
"""

from __future__ import annotations

import ipaddress
import re
from string import ascii_uppercase
from typing import TYPE_CHECKING, get_args

from rag_guard_integrations.core.patterns import compile_pattern, first_finder
from rag_guard_integrations.policy.schema import ValidatorName

if TYPE_CHECKING:
    from rag_guard_integrations.classify.recognizers.recognizer import Validator

_IBAN_LENGTH = (15, 34)
_CARD_LENGTH = (12, 19)
PHONE_DIGITS = (7, 15)
# Card networks start with 2 (Mastercard 2-series), 3 (Amex, JCB, Diners), 4 (Visa),
# 5 (Mastercard, Maestro) or 6 (Discover, UnionPay, RuPay, Maestro); 15-digit numbers may
# also start with 1 (UATP, JCB 1800). Only Maestro (50, 56-69) issues 12-digit numbers.
_CARD_PREFIXES = tuple("23456")
# 15 digits: American Express (34, 37), UATP (1), Diners enRoute (2014, 2149), JCB (2131); a
# 15-digit Luhn number of another prefix is more likely an IMEI (35..., 86...) than a card.
_CARD_15_PREFIXES = ("34", "37", "1", "2014", "2149", "2131")
_MAESTRO_PREFIXES = ("50", *(str(p) for p in range(56, 70)))
_extension = first_finder(compile_pattern(r"\s*(?:x|ext\.?|extension)\s*\d+$"))
# The ASCII digits kept, every other byte (of UTF-8 text) made NUL, to be dropped after.
_DIGITS_OR_NUL = bytes(byte if 0x30 <= byte <= 0x39 else 0 for byte in range(256))
_LUHN_DOUBLED = bytes.maketrans(b"0123456789", b"0246813579")
_IBAN_LETTERS = str.maketrans({letter: str(ord(letter) - 55) for letter in ascii_uppercase})
# Shapes a digit run near a phone word can have that are not phone numbers.
NOT_PHONE_PATTERN = (
    r"^(?:\d{3}-\d{2}-\d{4}"  # an SSN
    r"|(?:19|20)\d{2}[-./]\d{1,2}[-./]\d{1,2}(?:\D.*)?"  # an ISO date, possibly with a time
    r"|\d{1,2}[-./]\d{1,2}[-./](?:19|20)\d{2}"  # a day-month-year date
    r"|\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3})$"  # an IPv4 address
)
_not_phone = first_finder(compile_pattern(NOT_PHONE_PATTERN))


def digits(text: str) -> str:
    """The ASCII digits of ``text`` in order."""
    # Bytes and a 256-entry table: a fraction of a regex substitution's cost (a table with
    # deletions is rebuilt on every call, so the other bytes become NUL and are removed).
    data = text.encode("utf-8", "surrogatepass").translate(_DIGITS_OR_NUL)
    return data.replace(b"\0", b"").decode("ascii")


def luhn(text: str) -> bool:
    """True when the digits of ``text`` pass the Luhn checksum (card numbers, some IDs)."""
    return _luhn_digits(digits(text))


def _luhn_digits(number: str) -> bool:
    if len(number) < 2:
        return False
    # Every second digit from the right doubled (digits of the product summed), by table;
    # summing the ASCII codes and taking 48 per digit away keeps the loop in C.
    data = number.encode("ascii")
    total = sum(data[-1::-2]) + sum(data[-2::-2].translate(_LUHN_DOUBLED))
    return (total - 48 * len(number)) % 10 == 0


def card_number(text: str) -> bool:
    """A payment card number: 12 to 19 digits with a card-network prefix (ISO/IEC 7812), and
    a valid Luhn sum."""
    number = digits(text)
    low, high = _CARD_LENGTH
    if not low <= len(number) <= high:
        return False
    if len(number) == low:
        prefixes = _MAESTRO_PREFIXES
    elif len(number) == 15:
        prefixes = _CARD_15_PREFIXES
    else:
        prefixes = _CARD_PREFIXES
    return number.startswith(prefixes) and _luhn_digits(number)


_NI_REFUSED_PREFIXES = frozenset({"BG", "GB", "KN", "NK", "NT", "TN", "ZZ"})


def national_insurance_number(text: str) -> bool:
    """A UK National Insurance number: two prefix letters (neither D, F, I, Q, U or V, the
    second not O, and not BG, GB, KN, NK, NT, TN or ZZ), six digits and a suffix A to D."""
    code = "".join(text.split()).upper()
    if len(code) != 9 or not (code[:2].isalpha() and code[2:8].isdigit() and code[8] in "ABCD"):
        return False
    first, second = code[0], code[1]
    return (
        first not in "DFIQUV"
        and second not in "DFIOQUV"
        and code[:2] not in _NI_REFUSED_PREFIXES
        and code.isascii()
    )


def iban(text: str) -> bool:
    """An IBAN (ISO 13616): country letters, check digits, and the mod-97 remainder 1."""
    code = "".join(char for char in text if char.isalnum()).upper()
    low, high = _IBAN_LENGTH
    if not (low <= len(code) <= high and code.isascii() and code.isalnum()):
        return False
    if not (code[:2].isalpha() and code[2:4].isdigit()):
        return False
    # Letters count as 10..35; at most 34 characters make a number of at most 68 digits.
    return int((code[4:] + code[:4]).translate(_IBAN_LETTERS)) % 97 == 1


def us_ssn(text: str) -> bool:
    """A US Social Security number under the current rules: area not 000, 666 or 900-999;
    group not 00; serial not 0000."""
    number = digits(text)
    if len(number) != 9:
        return False
    area, group, serial = number[:3], number[3:5], number[5:]
    return area not in {"000", "666"} and area[0] != "9" and group != "00" and serial != "0000"


def ipv4(text: str) -> bool:
    """Four dotted octets, each 0-255."""
    parts = text.split(".")
    return len(parts) == 4 and all(p.isdigit() and len(p) <= 3 and int(p) <= 255 for p in parts)


def ip_address(text: str) -> bool:
    """An IPv4 address, or an IPv6 address with at least two groups written out (or the
    loopback ``::1``)."""
    if "." in text and ":" not in text:
        return ipv4(text)
    try:
        ipaddress.IPv6Address(text)
    except ValueError:
        return False
    # A bare "::" or "::a" is also what C++ scopes and similar notations look like.
    return text == "::1" or sum(1 for group in text.split(":") if group) >= 2


def phone_number(text: str) -> bool:
    """7 to 15 digits before any extension, and not shaped like an SSN, a date or an IPv4."""
    # Every way to write an extension (x, ext, extension; any case) holds an x.
    extension = _extension(text) if "x" in text or "X" in text else None
    number = text[: extension[0]] if extension else text
    low, high = PHONE_DIGITS
    return low <= len(digits(number)) <= high and _not_phone(number.strip()) is None


def secret_value(text: str) -> bool:
    """A key and the value assigned to it (``db_password: ...``) that hold a secret: not the
    name, id or path of a secret kept elsewhere (``secret_name: prod/db/credentials``), and not
    a menu path (``password -> settings``: after an arrow, only a value with a digit or a
    symbol counts), nor a redaction's mask (``token: [payment_card]``, in a masked chunk checked
    again), like the placeholders the patterns leave out. In markup (``<token>value``) only the
    mask is looked for: the value has no key of its own."""
    if _MASK_VALUE.search(text):
        return False
    if text.startswith("<"):
        return True
    assignment = _assignment(text)
    if assignment is None:
        return True
    last_part, separator = assignment.groups()
    if last_part in _REFERENCE_KEYS:
        return False
    return not (separator == "->" and text[assignment.end() :].strip("'\"").isalpha())


# A whole value that is one bracketed label, as redaction writes its masks (text is folded).
_MASK_VALUE = re.compile(r"(?:[:=>]|->)\s*[\"']?\[[a-z0-9_]+\][\"']?$")
# The last part of a key that names where a secret is kept, not the secret itself.
_REFERENCE_KEYS = frozenset({"name", "names", "id", "ids", "arn", "path", "file", "ref", "uri"})
# The key's last part after a _, . or - (if any), and the separator before the value.
_assignment = re.compile(r"(?:[_.-]([a-z]+))?[\"']?\s*(=>|->|[:=])\s*").search


# The schema lists the names a policy may use; each is the name of a function above.
VALIDATORS: dict[str, Validator] = {name: globals()[name] for name in get_args(ValidatorName)}
