"""The ``default`` pack's credential recognisers: the usual ways secrets are written in config
files, code, markup, headers and prose, and prose about secrets that holds none."""

from __future__ import annotations

import pytest

from rag_guard_integrations import Guard
from rag_guard_integrations.classify.pattern import PatternClassifier

pytestmark = pytest.mark.unit

CLASSIFIER = PatternClassifier.from_policy("default", cache_size=0)
GUARD = Guard.from_policy("default")

SECRETS = [
    "password: s3cret-Value",
    '{"password": "s3cret-Value"}',
    "settings = {'api_key': 'ak-live-0192837465'}",
    "SMTP_PASSWORD=s3cret-Value",
    "export PGPWD=s3cret-Value",
    "AWS_SECRET_ACCESS_KEY=q8Z1+Xy2Wv3/Ut4Sr5Qp6On7Ml8Kj9",
    "db.password = 'three words here'",
    "password => s3cret-Value",
    "<password>s3cret-Value</password>",
    "The passphrase is Tr0ub4dor&3",
    "Authorization: Bearer Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5",
    "token eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJhY21lIn0.c2lnbmF0dXJlLXZhbHVl",
    "sk-proj-Q1w2E3r4T5y6U7i8O9p0Asdfghjk",
    "rk_live_1a2b3c4d5e6f7g8h9i0j",
    "clientSecret -> 9f8e7d6c5b4a3210",
    "DB_PASS=Tr0ub4dor&3xyz",
    "api_token=4f9a1c2e7b8d4e6fa1c2",
    "REDIS_URL=redis://:S3cr3tpw123@cache.internal:6379/0",
    "Authorization: Basic YWRtaW46UzNjcjN0cHc=",
    "curl -u admin:S3cr3tpw https://api.internal/",
    "github_pat_11ABCDEFG0123456789_abcdefghij",
    "glpat-abcdefghij1234567890",
    "maps key AIzaSyA-1234567890abcdefghijklmnopqrstu",
    "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXX",
    "-----BEGIN PGP PRIVATE KEY BLOCK-----",
    "The admin password for db1.internal is Tr0ub4dor&3",
    "ssh root@10.0.0.5 password Tr0ub4dor&3",
    "Passwort: Tr0ub4dor&3x",
    "password -> Settings2024!",
    "password: [hunter2]x9",
    "<token>[s3cret-Value</token>",
]
PROSE = [
    "Secretary: Jennifer-Anne Brown",
    "Reset your password: open the settings page.",
    "A password is required for every login.",
    "Passwords: rotated every ninety days",
    "The secret is patience and persistence.",
    "API key rotation happens quarterly.",
    "Token holders receive quarterly rewards.",
    "The PIN is printed on the card mailer.",
    "password: ********",
    "password=${DB_PASSWORD}",
    'password: "{{ vault_db_password }}"',
    "bypass=enabled_for_all_users",
    "max_tokens: 16000",
    "The password reset link expires after one hour.",
    "secret_name: prod/db/credentials",
    "SECRET_ARN=arn:aws:secretsmanager:eu-west-1:123456789012:secret:db",
    "password_file: /run/secrets/db_password",
    "Open Account -> Password -> Settings to change it.",
    "card token: [PAYMENT_CARD]",
    "api_key='[NATIONAL_ID]'",
    "<token>[PAYMENT_CARD]</token>",
]


@pytest.mark.parametrize("text", SECRETS)
def test_a_written_secret_is_a_credential_and_withheld(text: str) -> None:
    """Each form is labelled ``credentials``, and the default pack withholds the chunk."""
    labels = {f.label for f in CLASSIFIER.classify(text).findings}
    assert "credentials" in labels
    assert GUARD.check("What is configured?", [{"text": text}]).allowed == []


@pytest.mark.parametrize("text", PROSE)
def test_prose_about_secrets_holds_no_credential(text: str) -> None:
    """Words such as password, secret or token alone, before a short or plain value, or before
    a mask (redaction's too), a template or a variable, are not a credential."""
    assert "credentials" not in {f.label for f in CLASSIFIER.classify(text).findings}
