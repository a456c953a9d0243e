"""The built-in packs fire on their headline combinations from chunk text alone: recognisers
only, no label in metadata and no classifier attached."""

from __future__ import annotations

import pytest

from rag_guard_integrations import Guard

CARD_PERSON = ["Card on file 4111 1111 1111 1111 for customer Jane Roe"]
MONEY_ORGANIZATION = ["Q3 revenue rose 18%", "Acme Corporation (company no. 0123456)"]
HEALTH_PERSON = ["Patient Maria Kowalski was diagnosed with type 2 diabetes last spring."]
NATIONAL_ID_PERSON = ["Applicant John Smith, SSN 078-05-1120, passed the background check."]
CREDENTIALS_HOST = ["Connect with postgres://admin:s3cretpass@db.internal.example.com/prod"]
ACCOUNT_NATIONAL_ID = ["Account 004417723 was opened with SSN 078-05-1120."]


@pytest.mark.parametrize(
    ("pack", "texts", "rule", "action"),
    [
        ("default", CARD_PERSON, "default_cardholder", "block"),
        ("default", MONEY_ORGANIZATION, "default_financials_client", "block"),
        ("default", HEALTH_PERSON, "default_health_person", "block"),
        ("default", NATIONAL_ID_PERSON, "default_national_id_person", "block"),
        ("default", CREDENTIALS_HOST, "default_credentials", "block"),
        ("finance", CARD_PERSON, "finance_cardholder_data", "block"),
        ("finance", MONEY_ORGANIZATION, "finance_amounts_near_client", "warn"),
        ("finance", ACCOUNT_NATIONAL_ID, "finance_account_with_national_id", "block"),
        ("hipaa", HEALTH_PERSON, "hipaa_health_name", "block"),
        ("gdpr", HEALTH_PERSON, "gdpr_health_person", "block"),
    ],
)
def test_headline_combination_fires_from_text_alone(
    pack: str, texts: list[str], rule: str, action: str
) -> None:
    """The pack's rule fires on untagged chunks, and a blocking rule makes the set unsafe."""
    guard = Guard.from_policy(pack)
    assert guard.classifier is None
    result = guard.check("What do we know?", [{"text": t} for t in texts])
    fired = result.violations if action == "block" else result.warnings
    assert rule in {v.rule for v in fired}
    assert result.is_safe is (action != "block")
    assert guard.check("What do we know?", result.allowed).is_safe


@pytest.mark.parametrize(
    "texts",
    [
        ["The Company shall pay the Licensee 18% of Net Sales within thirty days."],
        ["Rose petals were scattered. Will you sign the Schedule? Grant Park opens at 9."],
        ["Revenue rose 18% this quarter.", "Our offices are in New York and San Francisco."],
        ["Card ending 1111 is on file.", "The Customer may cancel at any time."],
    ],
)
def test_text_without_a_headline_pair_stays_safe(texts: list[str]) -> None:
    """Defined terms, sentence starts and place names are no person or organisation."""
    result = Guard.from_policy("default").check("q", [{"text": t} for t in texts])
    assert result.is_safe
    assert not result.violations


@pytest.mark.parametrize(
    "text",
    [
        "Applicant John Smith, SSN 078 - 05 - 1120, passed the background check.",
        "Applicant John Smith, social: 078051120, passed the background check.",
        "Applicant John Smith, National Insurance no. AB 12 34 56 C, started on Monday.",
        "Applicant John Smith, ITIN 912-70-1234, filed on time.",
        "Applicant John Smith, passport no. X1234567, checked in.",
    ],
)
def test_every_kind_of_national_id_beside_a_person_is_withheld(text: str) -> None:
    """An SSN written with spaced hyphens or after "social", a National Insurance number, an
    ITIN or a passport number each make the national-id rule fire."""
    result = Guard.from_policy("default").check("What do we know?", [{"text": text}])
    assert "default_national_id_person" in {v.rule for v in result.violations}
    assert result.allowed == []


@pytest.mark.parametrize(
    "text",
    ["Passport photos must be 35 x 45 mm.", "The NI rate is 12%.", "A 2024 passport renewal."],
)
def test_identity_document_words_without_a_number_hold_no_national_id(text: str) -> None:
    """The words alone, or before a size, a rate or a year, are no national id."""
    result = Guard.from_policy("default").check("q", [{"text": text}])
    assert "national_id" not in result.decisions[0].labels


def test_an_iban_printed_with_its_account_in_one_group_is_an_account() -> None:
    """``GB82 WEST 12345698765432`` and ``GB 82 WEST ...`` are IBANs (the mod-97 check keeps
    other groupings out)."""
    guard = Guard.from_policy("default")
    for iban in ("GB82 WEST 12345698765432", "GB 82 WEST 1234 5698 7654 32"):
        text = f"Jane Roe, IBAN: {iban}, jane.roe@example.com"
        result = guard.check("q", [{"text": text}])
        assert "default_account_holder_contact" in {v.rule for v in result.violations}


@pytest.mark.parametrize(
    "text",
    [
        "Patient Maria Kowalski: Diagnosis - Type 2 Diabetes Mellitus",
        "Maria Kowalski, dx: breast cancer",
        "Maria Kowalski was diagnosed w/ asthma",
        "Maria Kowalski is HIV positive.",
        "Maria Kowalski is on chemotherapy for lymphoma.",
        "Patient: Maria Kowalski\nAssessment: major depressive disorder",
    ],
)
def test_a_diagnosis_written_as_a_record_field_beside_a_person_is_withheld(text: str) -> None:
    """Clinical shorthand (a ``Diagnosis:`` or ``dx`` field, ``w/``), a status and a treatment
    name a health condition as prose does."""
    result = Guard.from_policy("default").check("What do we know?", [{"text": text}])
    assert "default_health_person" in {v.rule for v in result.violations}


@pytest.mark.parametrize(
    "text",
    [
        "Cardholder Jane Roe, card number 4111--1111--1111--1111.",
        "Cardholder Jane Roe, card number (4111)(1111)(1111)(1111).",
        "Cardholder Jane Roe, card number 4111<br>1111<br>1111<br>1111.",
        "Cardholder jane roe, card number 4111 1111 1111 1111.",
    ],
)
def test_the_cardholder_rule_holds_for_a_card_or_a_name_written_another_way(text: str) -> None:
    """Marks or a tag between the card's groups, or the holder's name in lower case after
    ``Cardholder``, still make the chunk a cardholder's card: withheld."""
    result = Guard.from_policy("default").check("Which card is on file?", [{"text": text}])
    assert "default_cardholder" in {v.rule for v in result.violations}
    assert result.allowed == []
