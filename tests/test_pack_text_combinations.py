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
