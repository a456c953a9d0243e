"""Dates of birth: a written date near "born", "DOB", "date of birth" or their equivalents in
French, German, Spanish, Italian, Portuguese and Dutch."""

from __future__ import annotations

from rag_guard_integrations.classify.recognizers.recognizer import Recognizer

# Month names and their usual abbreviations in English, French, German, Spanish, Italian,
# Portuguese and Dutch, as the matcher reads them (accents folded: "février" is "fevrier").
_MONTHS = (
    "jan janv january januar januari janvier janeiro gennaio ene enero",
    "feb febr february februar februari febrero fev fevr fevrier fevereiro febbraio",
    "mar march mars marz marzo marco maart mrt",
    "apr april avr avril abr abril aprile",
    "may mai mayo maio maggio mei",
    "jun june juni junio juin junho giugno",
    "jul july juli julio juil juillet julho luglio",
    "aug august augustus aout ago agosto",
    "sep sept september septembre septiembre setiembre setembro settembre",
    "oct october octobre octubre okt oktober outubro ottobre",
    "nov november novembre noviembre novembro",
    "dec december decembre dez dezember dezembro dic diciembre dicembre",
)
_MONTH = "(?:" + "|".join(name for month in _MONTHS for name in month.split()) + ")"
_DAY = r"\d{1,2}(?:st|nd|rd|th|er)?"
_YEAR = r"(?:\d{4}|\d{2})"
_MM = r"(?:0[1-9]|1[0-2])"
_DD = r"(?:0[1-9]|[12]\d|3[01])"
_FORMS = (
    r"\d{1,2}[/.\-]\d{1,2}[/.\-](?:\d{4}|\d{2})",  # 04/07/1986, 4.7.86
    r"\d{4}[/.\-]\d{1,2}[/.\-]\d{1,2}",  # 1986-07-04
    # 4th of July 1986, 14-Mar-85, 14. März 1985, 14 de marzo de 1985, 14MAR1985
    rf"{_DAY}(?:\.? ?| of | de |[\-/.]){_MONTH}\.?(?:,? | de |[\-/.]| ?){_YEAR}",
    rf"{_MONTH}\.?[ \-/.]{_DAY},?[ \-/.]{_YEAR}",  # July 4, 1986; Mar-14-85
    rf"\d{{4}}[ \-/.]{_MONTH}\.?[ \-/.]\d{{1,2}}",  # 1986-Jul-04
    rf"(?:19|20)\d{{2}}{_MM}{_DD}|{_DD}{_DD}(?:19|20)\d{{2}}",  # 19860704, 04071986
)

DATE_OF_BIRTH = Recognizer(
    name="date_of_birth",
    label="pii",
    regex=r"\b(?:" + "|".join(_FORMS) + r")\b",
    # Any date alone is not personal; next to these words it is someone's birth date. Not
    # "birth" alone ("the birth of the child"), "né le" (read as "ne le", a French negation)
    # or "geb." (also "Gebäude", "Gebühr").
    context=(
        "born",
        "dob",
        "d.o.b",
        "date of birth",
        "birth date",
        "birthdate",
        "birthday",
        "naissance",
        "geboren",
        "geburtsdatum",
        "geburtstag",
        "nacido el",
        "nacida el",
        "nacimiento",
        "nato il",
        "nata il",
        "nascita",
        "nascido",
        "nascida",
        "nascimento",
        "geboortedatum",
    ),
)
"""``DOB: 04/07/1986``, ``born on July 4, 1986``, ``geboren am 14.03.1985``."""
