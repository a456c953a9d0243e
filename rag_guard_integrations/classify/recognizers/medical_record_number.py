"""Medical record numbers: a 5-12 digit identifier, optionally prefixed, near "MRN"."""

from __future__ import annotations

from rag_guard_integrations.classify.recognizers.recognizer import Recognizer

MEDICAL_RECORD_NUMBER = Recognizer(
    name="medical_record_number",
    label="health",
    regex=r"\b(?:[a-z]{1,3}-?)?\d{5,12}\b",
    # Hospitals format MRNs freely, so only the words around the number identify one.
    context=(
        "mrn",
        "medical record",
        "patient id",
        "patient number",
        "chart number",
        "hospital number",
    ),
)
"""``MRN: 00482913``, ``medical record no. H-4829130``."""
