"""Company registry numbers: a number beside the name of a register (company no., CIN, EIN,
CRN, HRB, KvK, SIREN, ABN...)."""

from __future__ import annotations

from rag_guard_integrations.classify.recognizers.recognizer import Recognizer

COMPANY_NUMBER = Recognizer(
    name="company_number",
    label="organization",
    # Register numbers are 6-21 characters of digits, often with a letter prefix (SC123456,
    # India's CIN L12345MH2000PLC123456) or grouped (EIN 12-3456789, SIREN 732 829 320).
    regex=r"\b(?:[a-z]{1,3}[ -]?)?\d[\d -]{4,19}\d\b|\b[lu]\d{5}[a-z]{2}\d{4}[a-z]{3}\d{6}\b",
    context=(
        "company no",
        "company number",
        "company registration",
        "registration no",
        "registration number",
        "registered number",
        "registered no",
        "crn",
        "cin",
        "ein",
        "employer identification",
        "hrb",
        "hra",
        "kvk",
        "siren",
        "siret",
        "abn",
        "acn",
        "uen",
        "rcs",
        "companies house",
    ),
    window=24,
)
"""``Acme Corporation (company no. 0123456)``, ``EIN 12-3456789``, ``HRB 86891``."""
