"""Drafting and formatting conventions the recognisers follow: compact SSNs beside an SSN word,
section numbers that look like IPv4, compressed IPv6, dates of birth in several languages and
spellings, and internationalised email domains."""

from __future__ import annotations

import pytest

from rag_guard_integrations.classify.pattern import PatternClassifier
from rag_guard_integrations.classify.recognizers import Recognizer

pytestmark = pytest.mark.unit

CLASSIFIER = PatternClassifier(cache_size=0)


def found(text: str, recognizer: str) -> list[str]:
    """The original-text spans the named recogniser found in ``text``."""
    result = CLASSIFIER.classify(text)
    assert result.error is None
    return [text[f.start : f.end] for f in result.findings if f.recognizer == recognizer]


@pytest.mark.parametrize(
    ("text", "span"),
    [
        ("Applicant SSN: 219099999, verified by HR.", "SSN: 219099999"),
        ("ssn#219099999", "ssn#219099999"),
        ("Her Social Security number is 078051120.", "Social Security number is 078051120"),
        ("field ssn=524719935&next=1", "ssn=524719935"),
        ("S.S.N. 524719935 on the claim form", "S.S.N. 524719935"),
        ("Soc. Sec. No. 524719935", "Soc. Sec. No. 524719935"),
        ("SSN524719935 was keyed in twice", "SSN524719935"),
    ],
)
def test_compact_ssn_right_after_an_ssn_word_is_found(text: str, span: str) -> None:
    """Nine digits without separators are an SSN directly after an SSN word (the span takes
    the word)."""
    assert found(text, "us_ssn") == [span]


@pytest.mark.parametrize(
    "text",
    [
        "The SSN field is optional; order number 123456789",
        "Enter your SSN on page 2. Invoice 123456789 is due.",
        "Social Security office: parcel tracking 123456789",
        "SSN verified; account 512345678 credited.",
        "employee record (SSN) ... 524719935",  # the word is near, not before the digits
    ],
)
def test_nine_digits_elsewhere_near_an_ssn_word_are_not_an_ssn(text: str) -> None:
    """An SSN word in the same sentence does not make another nine-digit number an SSN."""
    assert found(text, "us_ssn") == []


@pytest.mark.parametrize(
    "text",
    [
        "Tracking number 524719935 left the depot.",  # no SSN word
        "SSN: 666123456",  # area 666
        "SSN: 000123456",  # area 000
        "SSN: 912345678",  # area 9xx
        "SSN: 524009935",  # group 00
        "SSN: 524710000",  # serial 0000
        "SSN: 5247199351",  # ten digits
        "SSN: 52471993",  # eight digits
    ],
)
def test_compact_ssn_keeps_the_issuing_rules_and_needs_the_word(text: str) -> None:
    """A bare nine-digit run, or one that breaks the SSN issuing rules, is not an SSN."""
    assert found(text, "us_ssn") == []


def test_grouped_ssn_still_needs_no_word() -> None:
    """The 3-2-4 form counts without any SSN word, as before."""
    assert found("Payroll keyed 524-71-9935 for March.", "us_ssn") == ["524-71-9935"]


@pytest.mark.parametrize(
    "text",
    [
        "Under clause 7.3.2.1 the buyer may withdraw.",
        "See Sections 4.1.1.1 and 4.1.1.2 for the rates.",
        "Sections 2.1, 2.4 and 3.1.2.2 survive termination.",
        "as described in Article 9.2.1.4 of the charter",
        "Paragraph No. 6.1.3.2 is deleted.",
        "Schedule 2, 1.1.4.3 lists the sites.",
        "Exhibit B: 3.3.1.7 Service credits",
        "Annex 4.2.2.1 applies to exports.",
        "Appendix C, 8.1.1.9, sets out the tests.",
        "Table 6: 2.2.2.1 shows the totals.",
        "Fig. 4.3.1.2 shows the layout.",
        "refer to § 12.1.4.3 of the code",
        "under §§ 3.1.1.1 to 3.1.1.4",
        "sub-clause 1.4.2.2 takes priority",
        "as required by 8.4.1.2 of this Agreement",
        "see 3.3.2.1 et seq. for the exceptions",
        "per A.2.3.1.4 of the annex",
        "Section 2.3.1.1.5 governs.",
        "the rule in clause 14.2.2.1(c) applies",
        "as set out in 6.3.2.1 hereof",
        "Version 10.2.3.400 is current.",  # an octet over 255
        "the 1.2.3.4.5.6 numbering scheme",
    ],
)
def test_section_and_version_numbers_are_not_ip_addresses(text: str) -> None:
    """A dotted quad named by a section or table word or a cross-reference, one with an octet
    over 255, or one inside a longer dotted run is a document reference."""
    assert found(text, "ip_address") == []


@pytest.mark.parametrize(
    ("text", "span"),
    [
        ("Blocked login attempts from 203.0.113.77 overnight.", "203.0.113.77"),
        ("Clause 4 applies; the gateway is 10.20.30.40.", "10.20.30.40"),
        ("Resolvers: 9.9.9.9 and 1.0.0.1.", "9.9.9.9"),
        ("The section's server, 172.16.4.2, went down.", "172.16.4.2"),
        ("Step 3: 10.0.0.12", "10.0.0.12"),
        ("Step 4: ssh to 192.168.1.20", "192.168.1.20"),
        ("Compare old host vs 10.0.0.12", "10.0.0.12"),
        ("Rule 12: 10.0.0.12", "10.0.0.12"),
        ("ref 10.0.0.12 unreachable", "10.0.0.12"),
        ("build 4412 - 10.0.0.12", "10.0.0.12"),
        ("Part 3 - 172.16.4.8 hosts the db", "172.16.4.8"),
        ("See the host 10.0.0.12 above", "10.0.0.12"),
        ("Move traffic from 8.8.8.8 below the LB", "8.8.8.8"),
        ("Attacker 10.0.0.12(a) flagged", "10.0.0.12"),
        ("Gateway 203.0.113.7 (prod) times out", "203.0.113.7"),
    ],
)
def test_addresses_near_ordinary_words_are_still_found(text: str, span: str) -> None:
    """An IPv4 address after words that do not name a section is still an address."""
    assert found(text, "ip_address")[0] == span


@pytest.mark.parametrize(
    ("text", "span"),
    [
        ("The service listens on ::1 only.", "::1"),
        ("Prefix 2001:db8:: is for documentation.", "2001:db8::"),
        ("route 2001:db8:0:7:: via the core", "2001:db8:0:7::"),
        ("neighbour fe80::4%en0 answered", "fe80::4%en0"),
        ("client ::ffff:198.51.100.23 connected", "::ffff:198.51.100.23"),
        ("peer [2001:db8:4::9]:443 reset", "2001:db8:4::9"),
        ("NAT64 64:ff9b::203.0.113.5 seen", "64:ff9b::203.0.113.5"),
        ("(::1)", "::1"),
    ],
)
def test_compressed_ipv6_forms_are_found(text: str, span: str) -> None:
    """Loopback, trailing "::", zone ids and embedded IPv4 are IPv6 addresses."""
    assert found(text, "ip_address") == [span]


@pytest.mark.parametrize(
    "text",
    [
        "Doors open at 12:30 and close at 18:45:00.",
        "Mix cement, sand and gravel 1:2:4.",
        "The device 00:1b:44:11:3a:b7 joined.",
        "Call std::sort or Foo::bar here.",
        "a lone :: in the grammar",
        "the global ::add helper",
    ],
)
def test_times_ratios_macs_and_scopes_are_not_ipv6(text: str) -> None:
    """Clock times, ratios, MAC addresses and C++ scopes are not IPv6 addresses."""
    assert found(text, "ip_address") == []


@pytest.mark.parametrize(
    ("text", "span"),
    [
        ("Date of birth: 02-Sep-1971, male.", "02-Sep-1971"),
        ("DOB 02-SEP-71 per the passport", "02-SEP-71"),
        ("born 2 Sep 71 in Leeds", "2 Sep 71"),
        ("DOB: 02SEP1971", "02SEP1971"),
        ("birth date 1971-Sep-02", "1971-Sep-02"),
        ("d.o.b. Sep-02-1971", "Sep-02-1971"),
        ("DOB: 19710902 (ISO, compact)", "19710902"),
        ("Date de naissance : 2 févr. 1971", "2 févr. 1971"),
        ("Er wurde am 2. September 1971 geboren.", "2. September 1971"),
        ("Geburtsdatum 02.09.1971", "02.09.1971"),
        ("Fecha de nacimiento: 2 de septiembre de 1971", "2 de septiembre de 1971"),
        ("nacida el 2 de marzo de 1971 en Quito", "2 de marzo de 1971"),
        ("nato il 2 settembre 1971", "2 settembre 1971"),
        ("data de nascimento 2 de setembro de 1971", "2 de setembro de 1971"),
    ],
)
def test_dates_of_birth_in_other_spellings_and_languages(text: str, span: str) -> None:
    """Day-month-year with month names or abbreviations, compact dates, and birth words in
    French, German, Spanish, Italian and Portuguese are dates of birth."""
    assert found(text, "date_of_birth") == [span]


@pytest.mark.parametrize(
    "text",
    [
        "Shipped 02-Sep-1971 from the warehouse.",  # a date, nobody's birth
        "Batch 19710902 passed inspection.",  # a compact date with no birth word
        "DOB 19711302 is not a date",  # month 13
        "born in September 1971",  # no day
        "Der Vertrag vom 2. März 1971 gilt.",  # a German date, no birth word
        "Il ne le sait pas encore: livraison le 14 mars 2024.",  # "ne le" is a negation
        "Le contrat est signé le 12/03/2024 ; le client ne le renouvelle pas.",
        "Maternity leave begins at the birth of the child; effective 01/03/2024.",
        "Birth registration fees apply from 2024-01-15.",
        "Signed 03/04/2024 by the parties. Geb. 1: renewal fee.",  # "Geb." a building
    ],
)
def test_dates_without_a_birth_word_or_day_are_not_dates_of_birth(text: str) -> None:
    """Dates away from birth words, impossible compact dates and month-year are not found."""
    assert found(text, "date_of_birth") == []


def test_context_words_are_normalised_like_the_text() -> None:
    """An accented context word matches the text it is written in, whatever the case."""
    badge = Recognizer("badge", "pii", r"\bbdg-\d{4}\b", context=("Numéro",))
    assert badge.context == ("numero",)
    classifier = PatternClassifier([badge], cache_size=0)
    assert [f.recognizer for f in classifier.classify("NUMÉRO bdg-1234").findings] == ["badge"]


@pytest.mark.parametrize(
    ("text", "span"),
    [
        ("Écrivez à kenji@例え.jp avant lundi.", "kenji@例え.jp"),
        ("почта: ivan@почта.рф, спасибо", "ivan@почта.рф"),
        ("「sato@mail.例え.jp」までご連絡ください", "sato@mail.例え.jp"),
        ("write to ops@xn--mnchen-3ya.xn--p1ai now", "ops@xn--mnchen-3ya.xn--p1ai"),
        ("Send bounces to postmaster@[198.51.100.7].", "postmaster@[198.51.100.7]"),
    ],
)
def test_international_and_literal_emails_are_found(text: str, span: str) -> None:
    """Internationalised and punycode domains, and address literals, are email domains."""
    assert found(text, "email") == [span]


@pytest.mark.parametrize(
    "text",
    [
        "価格@例え is not an address",  # no dot, no TLD
        'He said "see you"@ noon.',  # nothing after the @
        "ratio 3@4.5 per unit",
    ],
)
def test_email_near_misses_are_not_found(text: str) -> None:
    """An @ without a dotted domain and TLD is not an email address."""
    assert found(text, "email") == []
