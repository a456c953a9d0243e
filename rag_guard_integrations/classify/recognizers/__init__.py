"""The built-in recognisers by name, plus the record type and validators they are built from.

Example:
    >>> sorted(NAME_RECOGNIZERS)
    ['organization', 'person']
    >>> sorted(BUILTIN_RECOGNIZERS)[:3]
    ['account_number', 'company_number', 'credit_card']
    >>> BUILTIN_RECOGNIZERS["iban"].label
    'financial'
"""

from __future__ import annotations

from rag_guard_integrations.classify.recognizers.account_number import ACCOUNT_NUMBER
from rag_guard_integrations.classify.recognizers.company_number import COMPANY_NUMBER
from rag_guard_integrations.classify.recognizers.credit_card import CREDIT_CARD
from rag_guard_integrations.classify.recognizers.date_of_birth import DATE_OF_BIRTH
from rag_guard_integrations.classify.recognizers.diagnosis import DIAGNOSIS
from rag_guard_integrations.classify.recognizers.email_address import EMAIL
from rag_guard_integrations.classify.recognizers.financial_figure import FINANCIAL_FIGURE
from rag_guard_integrations.classify.recognizers.iban import IBAN
from rag_guard_integrations.classify.recognizers.icd10 import ICD10
from rag_guard_integrations.classify.recognizers.ip_address import IP_ADDRESS
from rag_guard_integrations.classify.recognizers.medical_record_number import (
    MEDICAL_RECORD_NUMBER,
)
from rag_guard_integrations.classify.recognizers.money import MONEY
from rag_guard_integrations.classify.recognizers.national_insurance import NATIONAL_INSURANCE
from rag_guard_integrations.classify.recognizers.organization import ORGANIZATION
from rag_guard_integrations.classify.recognizers.passport_number import PASSPORT_NUMBER
from rag_guard_integrations.classify.recognizers.person import PERSON
from rag_guard_integrations.classify.recognizers.phone import PHONE
from rag_guard_integrations.classify.recognizers.recognizer import (
    NameRecognizer,
    Recognizer,
    Validator,
)
from rag_guard_integrations.classify.recognizers.us_itin import US_ITIN
from rag_guard_integrations.classify.recognizers.us_ssn import US_SSN
from rag_guard_integrations.classify.recognizers.validators import VALIDATORS

AnyRecognizer = Recognizer | NameRecognizer
"""A recogniser of either kind: a regex (:class:`Recognizer`) or a names scanner view."""

BUILTIN_RECOGNIZERS: dict[str, AnyRecognizer] = {
    r.name: r
    for r in (
        EMAIL,
        PHONE,
        CREDIT_CARD,
        IBAN,
        US_SSN,
        US_ITIN,
        NATIONAL_INSURANCE,
        PASSPORT_NUMBER,
        IP_ADDRESS,
        MONEY,
        FINANCIAL_FIGURE,
        DATE_OF_BIRTH,
        ICD10,
        DIAGNOSIS,
        MEDICAL_RECORD_NUMBER,
        ACCOUNT_NUMBER,
        PERSON,
        ORGANIZATION,
        COMPANY_NUMBER,
    )
}
"""Every built-in by name: the names the policy schema lists (``BUILTIN_RECOGNIZER_NAMES``,
what lint accepts in ``classifiers.builtin``), each implemented here."""

NAME_RECOGNIZERS = frozenset(
    n for n, r in BUILTIN_RECOGNIZERS.items() if isinstance(r, NameRecognizer)
)
"""The built-ins that read capitalisation (``person``, ``organization``): several times the
cost of all the regex recognisers together, so they run only where named (the built-in
packs name them in ``classifiers.builtin``)."""

DEFAULT_RECOGNIZERS = tuple(r for n, r in BUILTIN_RECOGNIZERS.items() if n not in NAME_RECOGNIZERS)
"""What ``PatternClassifier()`` runs: every built-in but the names recognisers."""

__all__ = [
    "BUILTIN_RECOGNIZERS",
    "DEFAULT_RECOGNIZERS",
    "NAME_RECOGNIZERS",
    "VALIDATORS",
    "AnyRecognizer",
    "NameRecognizer",
    "Recognizer",
    "Validator",
]
