"""A diagnosis or treatment named in prose or in a record: the condition after ``diagnosed
with``, ``treated for``, ``suffers from``, ``tested positive for``, ``Diagnosis:`` or ``dx -``
(``Jane Roe was diagnosed with diabetes``), ``HIV positive``, and a known condition said of
someone (``her depression``, ``has epilepsy``, ``history of schizophrenia``) or listed in a
clinical record's field (``Assessment: major depressive disorder``, ``PMH: hypertension``)."""

from __future__ import annotations

from rag_guard_integrations.classify.recognizers.recognizer import Recognizer

# A condition said of someone: theirs ("her depression"), had ("has epilepsy", with no article:
# "has a cancer drug" is a firm's), lived with or in their history. "Patients with diabetes"
# (a trial's, a drug's) is not one person's.
_OF_A_PERSON = (
    r"(?:his|her|their|my|your|patient'?s|history of|hx of|living with|"
    r"(?:struggl|battl|cop)(?:es|ed|ing) with|recovering from)"
)
# A clinical record's field that lists conditions ("Assessment: ...", "PMH: ..."): a known
# condition after it is the patient's, a phrase that is none ("Assessment: quarterly") is not.
_CLINICAL_FIELD = (
    r"(?:assessment|impression|problem list|pmh|(?:past )?medical history|comorbidit(?:y|ies)|"
    r"(?:chief|presenting) complaint)\s*:\s*"
)
# Conditions whose names mean nothing else (not "depression" alone, "cold" or "stroke").
_CONDITIONS = (
    r"(?:diabetes|schizophrenia|bipolar(?: disorder)?|epilepsy|asthma|dementia|alzheimer'?s|"
    r"parkinson'?s|multiple sclerosis|tuberculosis|hepatitis(?: [abc])?|hiv|aids|leuka?emia|"
    r"lymphoma|melanoma|carcinoma|cancer|tumou?r|anorexia|bulimia|autism|adhd|ptsd|copd|"
    r"hypertension|arthritis|psoriasis|crohn'?s(?: disease)?|cirrhosis|cystic fibrosis|"
    r"sickle cell(?: disease| anaemia| anemia)?|depression|(?:major )?depressive disorder|"
    r"anxiety disorder|obsessive[- ]compulsive disorder|ocd|eating disorder|heart disease|"
    r"kidney disease|renal failure|heart failure|stroke|long covid|chlamydia|gonorrh?o?ea|"
    r"syphilis|herpes)"
)

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
        rf"|\b(?:{_OF_A_PERSON}\s+(?:an?\s+)?|(?:has|had|have|having)\s+|{_CLINICAL_FIELD})"
        rf"(?:(?:severe|mild|chronic|acute|early|late|type [12]|stage [1-4iv]+)\s+){{0,2}}"
        rf"{_CONDITIONS}\b"
    ),
)
"""``diagnosed with type 2 diabetes``, ``treated for depression``; a condition named without
such a phrase needs ICD-10 codes (``icd10``) or a classifier."""
