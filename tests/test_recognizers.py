"""The built-in recognisers: what each finds (with spans), what it must not, and evasion."""

from __future__ import annotations

import pytest

from rag_guard_integrations.classify.pattern import PatternClassifier
from rag_guard_integrations.classify.recognizers import BUILTIN_RECOGNIZERS, Recognizer
from rag_guard_integrations.classify.recognizers.validators import (
    card_number,
    iban,
    ip_address,
    ipv4,
    luhn,
    national_insurance_number,
    phone_number,
    us_ssn,
)
from rag_guard_integrations.core.errors import PatternCompileError

CLASSIFIER = PatternClassifier(cache_size=0)


def found(text: str, recognizer: str) -> list[str]:
    """The original-text spans the named recogniser found in ``text``."""
    result = CLASSIFIER.classify(text)
    assert result.error is None
    return [text[f.start : f.end] for f in result.findings if f.recognizer == recognizer]


def test_builtin_names_and_default_labels() -> None:
    """The built-in names and their default labels are the public contract."""
    assert {name: r.label for name, r in BUILTIN_RECOGNIZERS.items()} == {
        "email": "pii",
        "phone": "pii",
        "credit_card": "financial",
        "iban": "financial",
        "us_ssn": "pii",
        "us_itin": "pii",
        "national_insurance_number": "pii",
        "passport_number": "pii",
        "ip_address": "pii",
        "money": "financial",
        "date_of_birth": "pii",
        "icd10": "health",
        "medical_record_number": "health",
        "account_number": "financial",
        "financial_figure": "financial",
        "diagnosis": "health",
        "person": "pii",
        "organization": "organization",
        "company_number": "organization",
    }


@pytest.mark.parametrize(
    ("text", "recognizer", "span"),
    [
        ("write to jane.doe+news@example.co.uk today", "email", "jane.doe+news@example.co.uk"),
        ("Contact: OPS@Sub.Example.ORG.", "email", "OPS@Sub.Example.ORG"),
        ("call me on +1-202-555-0173", "phone", "+1-202-555-0173"),
        ("Tel: +44 20 7946 0958", "phone", "+44 20 7946 0958"),
        ("office (020) 7946 0958", "phone", "(020) 7946 0958"),
        ("mobile 555.123.4567 x12 after six", "phone", "555.123.4567 x12"),
        ("fax: +41 (0)44 668 18 00", "phone", "+41 (0)44 668 18 00"),
        ("reach her at 06 12 34 56 78", "phone", "06 12 34 56 78"),
        ("card 4111 1111 1111 1111 expires", "credit_card", "4111 1111 1111 1111"),
        ("amex 3782-822463-10005", "credit_card", "3782-822463-10005"),
        ("paid with 5500000000000004.", "credit_card", "5500000000000004"),
        ("maestro 501800000009", "credit_card", "501800000009"),
        ("IBAN GB82 WEST 1234 5698 7654 32.", "iban", "GB82 WEST 1234 5698 7654 32"),
        ("to DE89370400440532013000 now", "iban", "DE89370400440532013000"),
        ("IBAN BE68 5390 0754 7034 from the bank", "iban", "BE68 5390 0754 7034"),
        ("pay GB82 WEST 1234 5698 7654 32 and done", "iban", "GB82 WEST 1234 5698 7654 32"),
        ("ssn 078-05-1120", "us_ssn", "078-05-1120"),
        ("SSN 219 09 9999 on file", "us_ssn", "219 09 9999"),
        ("from 192.168.0.12 at noon", "ip_address", "192.168.0.12"),
        ("host 2001:db8::8a2e:370:7334 down", "ip_address", "2001:db8::8a2e:370:7334"),
        ("v6 fe80:0:0:0:200:f8ff:fe21:67cf", "ip_address", "fe80:0:0:0:200:f8ff:fe21:67cf"),
        ("costs $1,200.50 a month", "money", "$1,200.50"),
        ("budget of USD 4.5 million", "money", "USD 4.5 million"),
        ("salary 52 000 euros", "money", "52 000 euros"),
        ("a fee of €30k", "money", "€30k"),
        ("DOB: 04/07/1986", "date_of_birth", "04/07/1986"),
        ("she was born on July 4, 1986 in Ohio", "date_of_birth", "July 4, 1986"),
        ("date of birth 1986-07-04", "date_of_birth", "1986-07-04"),
        ("Diagnosis: E11.9 type 2 diabetes", "icd10", "E11.9"),
        ("ICD-10 code J45.909", "icd10", "J45.909"),
        ("Patient Jane Roe, E11.9, seen 3 May", "icd10", "E11.9"),  # a clinical record's word
        ("Discharged with F32.1 on Friday", "icd10", "F32.1"),
        ("MRN 00482913 admitted", "medical_record_number", "00482913"),
        ("medical record no. H-4829130", "medical_record_number", "H-4829130"),
        ("wire to account 004417723", "account_number", "004417723"),
        ("acct # 12345678", "account_number", "12345678"),
    ],
)
def test_recognizer_finds_value(text: str, recognizer: str, span: str) -> None:
    """Each recogniser finds its value and reports exactly its span in the original text."""
    assert found(text, recognizer) == [span]


@pytest.mark.parametrize(
    ("text", "recognizer"),
    [
        ("card 4111 1111 1111 1112", "credit_card"),  # bad Luhn
        ("number 4111 1111 1111 1111 1111", "credit_card"),  # 20 digits: too long
        ("order 9111 1111 1111 1111", "credit_card"),  # no card network starts with 9
        ("ref 123456789012", "credit_card"),  # 12 digits but not Maestro
        ("IBAN GB82 WEST 1234 5698 7654 33", "iban"),  # bad check digits
        ("IBAN GB00WEST12345698765432", "iban"),
        ("ssn 000-12-3456", "us_ssn"),  # area 000
        ("ssn 666-12-3456", "us_ssn"),  # area 666
        ("ssn 900-12-3456", "us_ssn"),  # area 9xx
        ("ssn 987-65-4321", "us_ssn"),
        ("ssn 123-00-4567", "us_ssn"),  # group 00
        ("ssn 123-45-0000", "us_ssn"),  # serial 0000
        ("order 123456789", "us_ssn"),  # bare nine digits, no SSN word
        ("id 2270-66-1551", "us_ssn"),  # four-digit first group
        ("ip 256.1.1.1", "ip_address"),  # octet 256
        ("version 1.2.3.4.5", "ip_address"),  # five numbers
        ("std::vector and ::abs", "ip_address"),
        ("at 12:30:45 sharp", "ip_address"),
        ("mac 00:1a:2b:3c:4d:5e", "ip_address"),
        ("order 555-123-4567 shipped", "phone"),  # no phone word near it
        ("call about 1978-04-13 12:20", "phone"),  # a date and time, not a number to dial
        ("call re ssn 078-05-1120", "phone"),  # an SSN, not a phone
        ("call 4111 1111 1111 1111", "phone"),  # too many digits
        ("call 12 34", "phone"),  # too few
        ("we have 250 users", "money"),
        ("5 pounds of flour", "money"),
        ("the meeting on 04/07/1986", "date_of_birth"),  # a date, but nobody's birth
        ("paper size A4 and B12 vitamins", "icd10"),
        ("Version E11.9 released", "icd10"),
        ("order 00482913 shipped", "medical_record_number"),
        ("invoice 12345678 paid", "account_number"),
    ],
)
def test_recognizer_rejects(text: str, recognizer: str) -> None:
    """Checksum failures, impossible values and values without their context words do not count."""
    assert found(text, recognizer) == []


@pytest.mark.parametrize(
    ("text", "recognizer", "span"),
    [
        (
            "card 4111\u200b1111\u200b1111\u200b1111 ok",
            "credit_card",
            "4111\u200b1111\u200b1111\u200b1111",
        ),
        (
            "card ４１１１ １１１１ １１１１ １１１１",
            "credit_card",
            "４１１１ １１１１ １１１１ １１１１",
        ),
        ("ssn ０７８-０５-１１２０", "us_ssn", "０７８-０５-１１２０"),
        ("mail jo\u200b@exam\u00adple.com", "email", "jo\u200b@exam\u00adple.com"),
        ("Zoë écrit à zoe@example.fr", "email", "zoe@example.fr"),
        (
            "ＩＢＡＮ ＧＢ８２ＷＥＳＴ１２３４５６９８７６５４３２",
            "iban",
            "ＧＢ８２ＷＥＳＴ１２３４５６９８７６５４３２",
        ),
        ("C\u200bA\u200bL\u200bL +1-202-555-0173", "phone", "+1-202-555-0173"),
        ("D\u200bO\u200bB: 04/07/1986", "date_of_birth", "04/07/1986"),
    ],
)
def test_evasion_is_still_found_with_original_offsets(
    text: str, recognizer: str, span: str
) -> None:
    """Zero-width, soft-hyphen and full-width tricks do not hide a value; spans stay original."""
    assert found(text, recognizer) == [span]


@pytest.mark.parametrize(
    "text",
    ["Café 41111111\n11111111", "Cafe 41111111\n11111111", "Cafe\x07 41111111\n11111111"],
)
def test_values_do_not_run_across_lines(text: str) -> None:
    """Digit runs on two lines are not joined into one number, in ASCII and non-ASCII text
    alike (only a card's groups of four may be split by a line break)."""
    assert found(text, "credit_card") == []


@pytest.mark.parametrize(
    ("validator", "value", "valid"),
    [
        (luhn, "79927398713", True),
        (luhn, "79927398710", False),
        (luhn, "0", False),
        (card_number, "4111-1111-1111-1111", True),
        (card_number, "371449635398431", True),
        (card_number, "180000000000002", True),  # 15 digits may start with 1 (UATP, JCB)
        (card_number, "1234567812345670", False),  # passes Luhn, but no 16-digit network uses 1
        (national_insurance_number, "AB 12 34 56 C", True),
        (national_insurance_number, "QQ123456A", False),  # Q is no prefix letter
        (national_insurance_number, "GB123456A", False),  # a refused prefix
        (national_insurance_number, "AB123456E", False),  # the suffix is A to D
        (card_number, "356938035643809", False),  # an IMEI: Luhn, 15 digits, no 15-digit network
        (card_number, "352099001761481", False),  # an IMEI
        (card_number, "4111111111111111111111", False),
        (iban, "gb82 west 1234 5698 7654 32", True),
        (iban, "NL91ABNA0417164300", True),
        (iban, "NL91ABNA0417164301", False),
        (iban, "NL91-ABNA", False),
        (us_ssn, "078-05-1120", True),
        (us_ssn, "078-05-112", False),
        (ipv4, "255.255.255.255", True),
        (ipv4, "1.2.3.256", False),
        (ip_address, "::ffff:192.0.2.1", True),
        (ip_address, "::", False),
        (ip_address, "1:2:3", False),
        (phone_number, "+1 202 555 0173 ext. 12", True),
        (phone_number, "2024-01-31", False),
        (phone_number, "31.01.2024", False),
        (phone_number, "10.0.0.1", False),
    ],
)
def test_validators(validator: object, value: str, valid: bool) -> None:
    """Validators accept well-formed values and reject broken ones."""
    assert callable(validator)
    assert validator(value) is valid


def test_recognizer_record_checks_and_context_pattern() -> None:
    """A recogniser compiles its regex up front, cleans its label and builds a context pattern."""
    badge = Recognizer("badge", " Staff ID ", r"\bbdg-\d{6}\b", context=("Badge", "staff  card"))
    assert badge.label == "staff_id"
    assert badge.context == ("badge", "staff card")
    assert badge.context_regex == r"\b(?:badge|staff\s+card)(?:s|es|ed|ing)?\b"
    assert badge.with_label("pii").label == "pii"
    with pytest.raises(PatternCompileError, match="RE2 cannot compile"):
        Recognizer("bad", "pii", r"(a)\1")
    with pytest.raises(ValueError, match="empty label"):
        Recognizer("x", " ", r"x")


CARD = "4111 1111 1111 1111"
SSN = "078-05-1120"
DIGITS = {
    "arabic_indic": "٠١٢٣٤٥٦٧٨٩",
    "extended_arabic_indic": "۰۱۲۳۴۵۶۷۸۹",
    "devanagari": "०१२३४५६७८९",
    "bengali": "০১২৩৪৫৬৭৮৯",
    "thai": "๐๑๒๓๔๕๖๗๘๙",
    "full_width": "０１２３４５６７８９",
    "mathematical_bold": "𝟎𝟏𝟐𝟑𝟒𝟓𝟔𝟕𝟖𝟗",
}
DASHES = {
    "hyphen": "\u2010",
    "non_breaking_hyphen": "\u2011",
    "figure_dash": "\u2012",
    "en_dash": "\u2013",
    "em_dash": "\u2014",
    "minus": "\u2212",
    "small_hyphen": "\ufe63",
}
SPACES = {
    "tab": "\t",
    "double_space": "  ",
    "space_tab": " \t",
    "nbsp": "\u00a0",
    "thin_space": "\u2009",
    "ideographic": "\u3000",
    "triple_space": "   ",
}


def in_digits(value: str, digits: str) -> str:
    """``value`` with its ASCII digits written in another script."""
    return value.translate(str.maketrans("0123456789", digits))


@pytest.mark.parametrize("accent", ["", "Café. "], ids=["ascii", "one_accent_elsewhere"])
@pytest.mark.parametrize(
    ("value", "recognizer"),
    [
        *[(CARD.replace(" ", s), "credit_card") for s in SPACES.values()],
        *[(SSN.replace("-", s), "us_ssn") for s in ("\t", "  ", "\u00a0")],
        *[(in_digits(CARD, d), "credit_card") for d in DIGITS.values()],
        *[(in_digits(SSN, d), "us_ssn") for d in DIGITS.values()],
        *[(CARD.replace(" ", d), "credit_card") for d in DASHES.values()],
        *[(SSN.replace("-", d), "us_ssn") for d in DASHES.values()],
        (in_digits(SSN, DIGITS["devanagari"]).replace("-", "\u2013"), "us_ssn"),
    ],
    ids=[
        *[f"card_{n}" for n in SPACES],
        *[f"ssn_{n}" for n in ("tab", "double_space", "nbsp")],
        *[f"card_{n}" for n in DIGITS],
        *[f"ssn_{n}" for n in DIGITS],
        *[f"card_{n}" for n in DASHES],
        *[f"ssn_{n}" for n in DASHES],
        "ssn_devanagari_en_dash",
    ],
)
def test_numbers_in_other_digits_dashes_and_spacing_are_found(
    value: str, recognizer: str, accent: str
) -> None:
    """Unicode digits, dashes, tabs and repeated spaces do not hide a card number or an SSN,
    an accented letter elsewhere in the chunk changes nothing, and the span is the original."""
    text = f"{accent}Ref: {value}. Thanks"
    assert found(text, recognizer) == [value]


@pytest.mark.parametrize(
    "text",
    ["4111 1111 1111 1112", "4111\t1111\t1111\t1112", "000-00-0000", "078\n05\n1120"],
    ids=["card_bad_luhn", "card_bad_luhn_tabs", "ssn_invalid", "ssn_across_lines"],
)
@pytest.mark.parametrize("accent", ["", "é "], ids=["ascii", "accented"])
def test_spacing_tolerance_keeps_the_checks(text: str, accent: str) -> None:
    """Squeezed spacing still needs a valid checksum and keeps values on one line."""
    result = CLASSIFIER.classify(accent + text)
    assert {f.recognizer for f in result.findings} & {"credit_card", "us_ssn"} == set()


@pytest.mark.parametrize(
    ("text", "amount"),
    [
        ("Budget: SEK 45 000 for the year", "SEK 45 000"),
        ("Budget: 45 000 kr for the year", "45 000 kr"),
        ("Umsatz 1,2 Mio. EUR im Jahr", "1,2 Mio. EUR"),
        ("They owe us one million dollars", "one million dollars"),
        ("a grant of two hundred thousand euros", "two hundred thousand euros"),
        ("PLN 300 per month", "PLN 300"),
    ],
)
def test_money_in_nordic_german_and_written_forms(text: str, amount: str) -> None:
    """More currency codes, local abbreviations, German scales and amounts in words."""
    found = [text[f.start : f.end] for f in CLASSIFIER.classify(text).findings]
    assert amount in found


@pytest.mark.parametrize(
    "text",
    ["Try 3 times", "5 pounds of flour", "a million thanks", "Room 12 is free"],
)
def test_words_that_look_like_currencies_are_no_money(text: str) -> None:
    """Currency codes that are English words are left out; pounds alone is a weight."""
    assert "money" not in {f.recognizer for f in CLASSIFIER.classify(text).findings}


def test_a_percentage_in_words_beside_a_metric_is_a_financial_figure() -> None:
    """``revenue grew eighteen percent`` is a result as ``18%`` is."""
    found = CLASSIFIER.classify("Revenue grew eighteen percent this year.").findings
    assert "financial_figure" in {f.recognizer for f in found}


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("Jane Roe has epilepsy.", True),
        ("Jane Roe (DOB 1980-01-02) - history of schizophrenia", True),
        ("She is on sick leave because of her depression.", True),
        ("The company has a cancer drug pipeline.", False),
        ("A trial in patients with diabetes starts in May.", False),
        ("The Great Depression shaped the law.", False),
    ],
)
def test_a_known_condition_said_of_someone_is_a_diagnosis(text: str, found: bool) -> None:
    """A condition that is someone's (``her``), had (``has`` with no article) or in their
    history names a health condition; a drug's, a trial's or history's does not."""
    assert ("diagnosis" in {f.recognizer for f in CLASSIFIER.classify(text).findings}) is found


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("Assessment: major depressive disorder", True),
        ("PMH: hypertension, COPD", True),
        ("Problem list: type 2 diabetes", True),
        ("Chief complaint: asthma", True),
        ("Assessment: quarterly review of the cancer fund", False),
        ("Medical history: none", False),
    ],
)
def test_a_known_condition_in_a_clinical_field_is_a_diagnosis(text: str, found: bool) -> None:
    """A record's field that lists a patient's conditions (``Assessment:``, ``PMH:``) names a
    health condition when a known condition follows it, and nothing when none does."""
    assert ("diagnosis" in {f.recognizer for f in CLASSIFIER.classify(text).findings}) is found
