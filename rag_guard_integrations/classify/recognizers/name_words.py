"""The words around proper names that say whose name it is: honorifics, name particles, legal
forms and other organisation nouns, street words, job titles, and the context phrases before
and after a name. Lower case, without trailing periods (the scanner strips them)."""

from __future__ import annotations

import re


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


HONORIFICS = _words(
    "mr mrs ms miss mx dr prof sir dame lord lady rev fr herr frau mme mlle mevr dhr sr sra "
    "srta dott dra sig sigra"
)
"""Titles before a personal name (English, French, German, Dutch, Spanish, Italian)."""

PARTICLES = _words(
    "van von de der den del della di da dos das du la le ter ten bin binti ibn al el af zu"
)
"""Lower-case words inside a personal name: ``Ludwig van Beethoven``, ``Oscar de la Hoya``."""

LEGAL_FORMS = _words(
    "inc incorporated llc llp lp plc ltd limited corp corporation co company gmbh ag kg ohg "
    "ug sa sas sarl sl spa srl bv nv ab oy oyj asa aps pty pte kk bhd sdn holdings group "
    "partners associates"
)
"""Words that end an organisation's name: legal forms across jurisdictions and the plain
``Company``, ``Group``, ``Holdings``, ``Partners``."""

ORGANIZATION_NOUNS = _words(
    "bank bancorp university institute foundation association agency consulting consultants "
    "services service systems technologies technology solutions software labs laboratories "
    "industries enterprises capital ventures media pharmaceuticals pharma insurance "
    "airlines motors analytics networks communications hospital clinic orchestra council "
    "authority commission ministry society trust fund studios publishing logistics realty "
    "energy federation academy college unlimited"
)
"""Nouns that end an organisation's name after a proper word: ``Streetcred Software``,
``Deutsche Bank``; after common words only (``Licensed Software``) they do not count."""

STREET_WORDS = _words(
    "street st road rd avenue ave lane ln way place pl terrace route drive court ct square "
    "sq park boulevard blvd highway hwy close crescent grove row walk gardens hill parkway "
    "alley plaza trail apt apartment suite unit box floor strasse straße gasse weg vej rue "
    "calle via ulica ul"
)
"""Words of a street address: a name run ends before them (``Kimberly Way`` is no person)."""

JOB_TITLES = _words(
    "officer manager director engineer clerk assistant specialist analyst consultant "
    "president ceo cfo cto coo vp head lead administrator technician controller nurse "
    "soldier teacher developer designer accountant secretary chairman chair founder owner "
    "partner"
)
"""Words of a job title: a signature line holding one is no organisation."""

ROLE_TERMS = _words(
    "licensee licensor vendor customer client franchisee franchisor affiliate affiliates "
    "party parties supplier distributor contractor subcontractor buyer seller purchaser "
    "lender borrower tenant landlord lessor lessee employer employee consultant provider "
    "recipient discloser owner operator manufacturer reseller agent principal member "
    "network ancillary"
)
"""A contract's defined roles (``the Licensee``, ``Vendor``): capitalised, but nobody's name."""

GREETINGS = _words("hi hello hey dear thanks name")
"""Words that open a name run without being part of the name (``Hi Freddy``)."""

PLACE_PREFIXES = _words(
    "san santa santo são sao saint st ste port fort mount mt lake new north south east west "
    "upper lower great little los las el la"
)
"""First words of place names (``San Francisco``, ``Port Louis``): no given name there."""

DETERMINERS = _words("the a an this that these those our your his her their its my")
PLACE_PREPOSITIONS = _words("in into near via at to from")

PERSON_BEFORE = (
    "name", "name is", "name was", "named", "i'm", "i am", "this is", "dear", "hi", "hello",
    "hey", "thanks", "attn", "attention", "signed by", "directed by", "written by", "customer",
    "client", "employee", "patient", "applicant", "candidate", "contact", "tenant", "borrower",
    "cardholder", "account holder", "beneficiary", "witness", "player", "features",
    "starring", "says", "said", "it to", "speak to", "ask for", "cc", "according to",
    "interviewed", "married", "daughter of", "son of", "wife of", "husband of",
)  # fmt: skip
"""Phrases just before a name that say it is a person's (the text lower-cased, the name's
colon, comma or question mark dropped: ``Name: X``, ``What's your name? X``)."""

PERSON_AFTER = (
    " who", ", who", " said", " says", " shouted", " told", " asked", " wrote", " replied",
    " signed", " was born", ", aged", " aged", "'s wife", "'s husband", "'s son",
    "'s daughter", "'s mother", "'s father", "'s family", "'s brother", "'s sister",
    " himself", " herself",
)  # fmt: skip
"""Phrases just after a name that say it is a person's."""

AGE_AFTER = re.compile(r" is an? \d+[ -]years?[ -]old\b|, \d{1,2}, ")
"""An age after a name: ``X is a 30-year-old``, ``X, 42, ...``."""

ORGANIZATION_BEFORE = (
    "work for", "works for", "worked for", "working for", "work at", "works at", "worked at",
    "working at", "employed by", "employer", "joined", "subsidiary of", "acquired by",
    "acquisition of", "vendor", "supplier", "contractor", "counterparty", "company", "firm",
    "address of", "on behalf of", "became", "renamed", "renamed to",
    "rebranded as", "now called", "now known as", "formerly", "formerly known as",
    "ceo of", "cfo of", "cto of", "founder of", "co-founder of", "president of", "chairman of",
    "employees of", "staff of", "customers of", "clients of", "shareholders of", "investors in",
    "board of", "spokesperson for", "spokesman for", "spokeswoman for", "division of",
    "unit of", "founded", "co-founded", "stake in", "shares in", "contract with",
)  # fmt: skip
"""Phrases just before a name that say it is an organisation's (``work for X``, ``which
later became X``)."""

ORGANIZATION_AFTER = re.compile(
    r"(?:,? (?:is|was|has been)|,) (?:an?|the) (?:[\w-]+ ){0,4}(?:company|firm|bank|startup|"
    r"provider|manufacturer|corporation|business|organi[sz]ation|agency|group|retailer|insurer|"
    r"nonprofit|charity|conglomerate|subsidiary|lender|broker)\b"
)
"""Phrases just after a name that say it is an organisation's (``X is an Icelandic bank``,
``X, a Swedish retailer``)."""
ORGANIZATION_POSSESSIVE = (
    "'s ceo", "'s cfo", "'s board", "'s shareholders", "'s employees", "'s customers",
    "'s headquarters", "'s subsidiary", "'s shares", "'s stock", "'s revenue", "'s profits",
    "'s earnings", "'s spokesperson", "’s ceo", "’s board", "’s shareholders",
)  # fmt: skip
"""A possessive that only an organisation takes (``X's shareholders``)."""

EMPLOYED_AS = (" as a ", " as an ", " as the ")
"""``at X as the assistant``: the place someone works, after ``at``."""

CUE_WORDS = _words(
    "mr mrs ms miss dr name named names i'm am this dear hi hello hey thanks attn attention "
    "signed directed written customer client employee patient applicant candidate contact "
    "tenant borrower cardholder holder beneficiary witness player features starring says said "
    "speak ask cc who shouted told asked wrote replied born aged old work works worked working "
    "employed employer joined subsidiary acquired acquisition vendor supplier contractor "
    "counterparty company firm address behalf became renamed rebranded called known formerly "
    "as startup provider manufacturer corporation business organisation organization agency "
    "group retailer insurer nonprofit charity conglomerate lender broker bank according "
    "interviewed married daughter son wife husband mother father family brother sister "
    "himself herself ceo cfo cto founder co-founder founded co-founded president chairman "
    "employees staff customers clients shareholders investors board spokesperson spokesman "
    "spokeswoman division unit stake shares contract headquarters subsidiary stock revenue "
    "profits earnings"
)
"""Every word a context phrase above starts with or needs: text without any has no context
for any run (a list continuing after an organisation is checked apart)."""
GROUP_WORDS = _words(
    "companies firms manufacturers makers vendors suppliers banks insurers lenders "
    "competitors sponsors brands retailers carriers startups providers brokers employers "
    "publishers labels studios"
)
TEXT_WORD = re.compile(r"[a-z']+")

_GROUPS = r"\b(?:" + "|".join(sorted(GROUP_WORDS)) + r")\b"
ORGANIZATION_GROUPS = re.compile(_GROUPS + r"[^.;!?\n]*?(?::|such as|including|like|namely) *$")
"""A plural noun for organisations, then a list of them (``car makers such as A and B``)."""

CONTACT_LINE = re.compile(r"(?:mobile|phone|tel|telephone|fax|e-?mail|desk|office|cell)\b", re.I)
