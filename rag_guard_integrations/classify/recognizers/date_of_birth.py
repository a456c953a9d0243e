"""Dates of birth: a written date near "born", "DOB" or "date of birth"."""

from __future__ import annotations

from rag_guard_integrations.classify.recognizers.recognizer import Recognizer

_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
_DAY = r"\d{1,2}(?:st|nd|rd|th)?"
_FORMS = (
    r"\d{1,2}[/.\-]\d{1,2}[/.\-](?:\d{4}|\d{2})",  # 04/07/1986, 4.7.86
    r"\d{4}[/.\-]\d{1,2}[/.\-]\d{1,2}",  # 1986-07-04
    rf"{_DAY} (?:of )?{_MONTH}\.?,? \d{{4}}",  # 4th of July 1986
    rf"{_MONTH}\.? {_DAY},? \d{{4}}",  # July 4, 1986
)

DATE_OF_BIRTH = Recognizer(
    name="date_of_birth",
    label="pii",
    regex=r"\b(?:" + "|".join(_FORMS) + r")\b",
    # Any date alone is not personal; next to these words it is someone's birth date.
    context=("born", "dob", "d.o.b", "date of birth", "birth date", "birthdate", "birthday"),
)
"""``DOB: 04/07/1986``, ``born on July 4, 1986``."""
