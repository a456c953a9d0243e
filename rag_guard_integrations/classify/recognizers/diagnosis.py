"""A diagnosis or treatment named in prose: the condition after ``diagnosed with``, ``treated
for``, ``suffers from``, ``tested positive for`` (``Jane Roe was diagnosed with diabetes``)."""

from __future__ import annotations

from rag_guard_integrations.classify.recognizers.recognizer import Recognizer

DIAGNOSIS = Recognizer(
    name="diagnosis",
    label="health",
    # The clinical phrase, then the condition: up to four words, letters and hyphens.
    regex=(
        r"\b(?:diagnosed with|diagnosis of|treated for|treatment for|suffers from|"
        r"suffering from|tested positive for|admitted with|prescribed|relapse of|"
        r"history of (?:chronic|acute|severe))\s+(?:an? |the )?"
        r"[a-z][a-z-]{2,}(?: [a-z][a-z-]+){0,3}"
    ),
)
"""``diagnosed with type 2 diabetes``, ``treated for depression``; a condition named without
such a phrase needs ICD-10 codes (``icd10``) or a classifier."""
