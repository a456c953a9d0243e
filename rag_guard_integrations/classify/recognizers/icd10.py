"""ICD-10 diagnosis codes (``E11.9``, ``J45``, ``S72.001A``) near a diagnosis word."""

from __future__ import annotations

from rag_guard_integrations.classify.recognizers.recognizer import Recognizer

ICD10 = Recognizer(
    name="icd10",
    label="health",
    # A letter, two digits (the second may be a letter in a few chapters), then an optional
    # subcategory of up to four characters after the dot.
    regex=r"\b[a-z]\d[0-9a-z](?:\.[0-9a-z]{1,4})?\b",
    # "A4", "B12" or "F16" are also paper sizes, vitamins and aircraft: require a health context,
    # a diagnosis word or a clinical record's (a patient, an admission, a problem list).
    context=(
        "icd", "icd-10", "icd10", "diagnosis", "diagnoses", "diagnosed", "dx", "condition",
        "patient", "admitted", "admission", "discharge", "discharged", "clinical", "encounter",
        "problem list", "assessment", "pmh", "hx", "comorbidity", "comorbidities", "treated for",
    ),
)  # fmt: skip
"""``diagnosis: E11.9 (type 2 diabetes)``, ``ICD-10 J45.909``, ``Patient Jane Roe, E11.9``."""
