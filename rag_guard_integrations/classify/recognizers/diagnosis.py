"""A diagnosis or treatment named in prose or in a record: the condition after ``diagnosed
with``, ``treated for``, ``suffers from``, ``tested positive for``, ``Diagnosis:`` or ``dx -``
(``Jane Roe was diagnosed with diabetes``), and ``HIV positive``."""

from __future__ import annotations

from rag_guard_integrations.classify.recognizers.recognizer import Recognizer

DIAGNOSIS = Recognizer(
    name="diagnosis",
    label="health",
    # The clinical phrase (also as a record's field, "Diagnosis: ...", "dx - ..."), then the
    # condition: up to four words, letters and hyphens. Or a status said of a person ("HIV
    # positive").
    regex=(
        r"\b(?:(?:diagnosed (?:with|w/)|diagnosis of|treated for|treatment for|suffers from|"
        r"suffering from|tested positive for|admitted with|prescribed|relapse of|"
        r"history of (?:chronic|acute|severe)|(?:medical|psychiatric|family) history of|hx of|"
        r"(?:chemotherapy|chemo|dialysis|radiotherapy|medication) for|"
        r"undergoing (?:\w+ )?(?:treatment|therapy|chemotherapy) for)\s*:?\s*"
        r"|(?:diagnosis|diagnoses|dx)\s*[:\x{2013}-]\s*)(?:an? |the )?"
        r"[a-z][a-z-]{2,}(?: [a-z][a-z-]+){0,3}"
        r"|\bhiv[- ]?(?:positive|\+)"
    ),
)
"""``diagnosed with type 2 diabetes``, ``treated for depression``; a condition named without
such a phrase needs ICD-10 codes (``icd10``) or a classifier."""
