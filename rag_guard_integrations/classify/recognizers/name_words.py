"""The words around proper names that say whose name it is: honorifics, name particles, legal
forms and other organisation nouns, street words, job titles, and the context phrases before
and after a name. Lower case, without trailing periods (the scanner strips them)."""

from __future__ import annotations

import re


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


HONORIFICS = _words(
    "mr mrs ms miss mx dr prof sir dame lord lady rev fr herr frau mme mlle mevr dhr sr sra "
    "srta dott dra sig sigra herrn"
)
"""Titles before a personal name (English, French, German, Dutch, Spanish, Italian)."""

GENERIC_ACRONYMS = _words(
    "ceo cfo cto coo cio cmo cso vp svp evp md hr it pr qa er icu gp rn id pin ssn ein tin "
    "vat gst pdf csv xml json api url usb gps atm uk us usa uae eu nyc la sf dc am pm tv dvd "
    "cd pc faq eta rsvp asap diy nda sla kpi roi okr crm erp ai ml hq ip os ui ux sql ok "
    "mba phd msc bsc ba ma cv bs ps nb fyi tbd tba eod eow ooo wfh"
)
"""Capitals that name an office, a document, a unit or a place, not a firm (``works for
the CFO``, ``works in HR``): an acronym after a firm's phrase counts unless it is one."""

PARTICLES = _words(
    "van von de der den del della di da dos das du la le ter ten bin binti ibn al el af zu"
)
"""Lower-case words inside a personal name: ``Ludwig van Beethoven``, ``Oscar de la Hoya``."""

VIETNAMESE_FAMILY = _words(
    "nguyen tran le pham hoang huynh phan vu vo dang bui do ho ngo duong ly dinh truong lam mai "
    "trinh dao cao luong ta to ha"
)
"""Family names most Vietnamese people bear, without their marks (``nguyễn`` is read as
``nguyen``); a Vietnamese name opens with one (``Nguyễn Văn An``)."""

VIETNAMESE_MIDDLE = _words("van thi huu duc dinh xuan quoc cong")
"""Middle names that mark a Vietnamese personal name after the family name (``Trần Thị Mai``),
without their marks: the last word may then be a common word elsewhere (``An``, ``Mai``)."""

LEGAL_FORMS = _words(
    "inc incorporated llc llp lp plc ltd limited corp corporation co company gmbh ag kg ohg "
    "ug sa sas sarl sl spa srl bv nv ab oy oyj asa aps pty pte kk bhd sdn sp holdings group "
    "partners associates bros"
)
"""Words that end an organisation's name: legal forms across jurisdictions and the plain
``Company``, ``Group``, ``Holdings``, ``Partners``."""

REGISTERED_FORMS = _words(
    "inc incorporated llc llp plc ltd limited corp corporation gmbh pty pte bhd oyj aps"
)
"""The forms only a registered company's name ends in, whatever words come before it."""

CAPITAL_FORMS = _words("AS SA AG AB NV BV KK UG KG SE OY")
"""Legal forms that are English words in lower case (``as``), counted only in capitals."""

WRITTEN_FORMS = tuple(
    re.escape(f)
    for f in (
        "Inc", "INC", "Incorporated", "LLC", "L.L.C", "LLP", "LP", "L.P", "PLC", "plc", "Plc",
        "Ltd", "LTD", "Limited", "LIMITED", "Corp", "CORP", "Corporation", "CORPORATION", "Co",
        "Company", "COMPANY", "GmbH", "AG", "KG", "OHG", "UG", "SA", "S.A", "SAS", "SARL",
        "SL", "S.L", "SpA", "S.p.A", "SPA", "Srl", "SRL", "S.r.l", "BV", "B.V", "NV", "N.V",
        "AB", "Oy", "Oyj", "ASA", "AS", "A/S", "ApS", "Pty", "Pte", "KK", "K.K", "Bhd", "Sdn",
        "Sp. z o.o", "s.r.o", "d.o.o", "e.V",
        "Group", "GROUP", "Holdings", "HOLDINGS", "Partners", "PARTNERS", "Associates",
        "Sons", "Söhne", "Brothers", "Bros", "et Fils", "e Figli", "y Hijos", "und Söhne",
        "et Cie", "& Cie",
    )
)  # fmt: skip
""":data:`LEGAL_FORMS` as they are written (the scan for where a name can be is
case-sensitive), regex-escaped."""

ORGANIZATION_NOUNS = _words(
    "bank bancorp university institute foundation association agency consulting consultants "
    "services service systems technologies technology solutions software labs laboratories "
    "industries enterprises capital ventures media pharmaceuticals pharma insurance "
    "airlines motors analytics networks communications hospital clinic orchestra council "
    "authority commission ministry society trust fund studios publishing logistics realty "
    "energy federation academy college unlimited architects architekten avocats dental "
    "freight couriers hotels homes foods games robotics mining therapeutics biosciences "
    "estates lettings advisory printing textiles imaging trading airways rail water "
    "school schools museum gallery library church cooperative mutual steel metals chemicals "
    "oil gas power electronics devices instruments telecom shipping transport resorts "
    "properties developments construction builders engineering automotive aerospace "
    "security healthcare health care medical pharmacy brewery brewing wines claims "
    "print press pictures films supplies philharmonic choir ensemble theatre works "
    "theater hospice savings broadband mobile audit research packaging plastics glass timber "
    "furniture apparel cosmetics beverages dairy farms bakery interiors utilities alliance "
    "partnership guild syndicate collective union fc bureau department police biotech "
    "financial finance investments lending mortgages travel tours marketing management "
    "recruitment staffing accountants solicitors advisors advisers plumbing electric "
    "entertainment productions innovations dynamics wellness fitness cinemas infirmary centre "
    "center practice club league army charity café cafe bistro distillery winery vineyard "
    "gazette herald tribune journal radio television broadcasting taxis removals cleaners"
)
"""Nouns that end an organisation's name after a proper word: ``Streetcred Software``,
``Deutsche Bank``; after common words only (``Licensed Software``) they do not count."""

LEADING_NOUNS = _words(
    "hotel hôtel hostal hospital hôpital ospedale krankenhaus klinik klinikum clinique clínica "
    "clinica club klub banco banca banque bank grupo groupe gruppo universidad université "
    "universität università universidade universiteit uniwersytet instituto institut istituto "
    "fundación fondation fundação fondazione stiftung colegio collège lycée liceo escuela école "
    "scoil ysgol museo musée museu teatro théâtre editorial éditions editora agencia agence caja "
    "caisse ristorante brasserie trattoria taverna pizzeria farmacia pharmacie apotheke "
    "deportivo atlético atletico fc afc vfl vfb tsv fk"
)
"""Nouns that open an organisation's name before a proper word, in the languages that put
them first: ``Hotel Kaiserhof``, ``Grupo Bimbo``, ``Institut Pasteur``, ``FC Porto``; before
common words only (``Bank Holiday``, ``Hotel Room``) they do not count."""

INSTITUTIONS = _words(
    "ministry department bureau university college academy institute society association "
    "federation council commission agency authority bank foundation league trust "
    "army union"
)
"""Public bodies and institutions whose name is the noun, ``of`` and what they deal with,
common words as they may be: ``Ministry of Health``, ``Academy of Sciences`` (a building,
``the Museum of Modern Art``, is a place)."""

NATIONALITIES = _words(
    "european american african asian british english scottish welsh irish french german dutch "
    "belgian swiss austrian italian spanish portuguese greek turkish russian polish czech "
    "hungarian romanian bulgarian ukrainian swedish norwegian danish finnish icelandic chinese "
    "japanese korean indian pakistani indonesian malaysian thai vietnamese filipino australian "
    "canadian mexican brazilian argentine argentinian chilean colombian peruvian egyptian "
    "nigerian kenyan moroccan israeli iranian saudi arab nordic scandinavian latin western "
    "eastern northern southern"
)
"""Adjectives of peoples and regions (``its European offices``): capitalised, but no name."""

STREET_WORDS = _words(
    "street st road rd avenue ave lane ln way place pl terrace route drive court ct square "
    "sq park boulevard blvd highway hwy close crescent grove row walk gardens hill parkway "
    "alley plaza trail apt apartment suite unit box floor strasse straße gasse weg vej rue "
    "calle via ulica ul"
)
"""Words of a street address: a name run ends before them (``Kimberly Way`` is no person)."""

PLACE_WORDS = _words(
    "harbour harbor bay beach bridge station airport port quay wharf marina pier dock docks "
    "valley river lake island islands mountain mountains heights falls county district "
    "province region city town village centre center mall"
)
"""Words that end a place's name (``Chelsea Harbour``, ``Victoria Station``): a name run ends
before them, as before a street word."""

JOB_TITLES = _words(
    "officer manager director engineer clerk assistant specialist analyst consultant "
    "president ceo cfo cto coo vp head lead administrator technician controller nurse "
    "soldier teacher developer designer accountant secretary chairman chair founder owner "
    "partner intern trainee paralegal lawyer attorney solicitor counsel professor lecturer "
    "researcher scientist student supervisor coordinator representative advisor adviser "
    "planner architect editor writer journalist reporter economist strategist executive "
    "chief handler cashier driver receptionist recruiter trainer associate buyer agent "
    "programmer auditor pharmacist surgeon physician doctor therapist volunteer"
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

FAMILY_CALLS = _words(
    "sis bro mum mom dad nan nana gran granny papa mama aunty auntie babe hun bae"
)
"""What family and friends call each other, which the names table also holds as given names
(``sis said``): no one's name."""

GREETINGS = _words("hi hello hey dear thanks name")
"""Words that open a name run without being part of the name (``Hi Freddy``)."""

TITLED_JOBS = _words(
    "agent manager advisor adviser technician engineer representative analyst coordinator "
    "dispatcher operator"
)
"""Jobs written as a title, capitalised right before a name (``Agent Kenji:``, ``Manager
Lindqvist``); in lower case they name firms as often (``estate agent X``, ``asset manager X``)."""

PLACE_PREFIXES = _words(
    "san santa santo são sao saint st ste port fort mount mt lake new north south east west "
    "upper lower great little los las el la"
)
"""First words of place names (``San Francisco``, ``Port Louis``): no given name there."""

QUESTION_WORDS = _words(
    "is are was were do does did can could will would should has have had how what when "
    "where which who why"
)
"""Words that open a question before a name (``Is Brontix open on Sunday?``)."""

DETERMINERS = _words("the a an this that these those our your his her their its my")
PLACE_PREPOSITIONS = _words("in into near via at to from")

PERSON_BEFORE = (
    "name", "name is", "name was", "named", "i'm", "i am", "this is", "dear", "hi", "hello",
    "hey", "thanks", "attn", "attention", "signed by", "directed by", "written by", "customer",
    "fao", "f.a.o.",
    "signed", "signature", "approved by", "drafted by", "prepared by", "reviewed by",
    "taken by", "referred by", "placed by", "ask", "tell", "let", "talk to", "spoke to",
    "speak with", "spoke with", "met", "meet", "congratulations to", "welcome", "cheers",
    "regards", "thank", "contact person", "full name", "emergency contact", "chaired by",
    "client", "employee", "patient", "applicant", "candidate", "contact", "tenant", "borrower",
    "cardholder", "account holder", "beneficiary", "witness", "player", "features",
    "starring", "says", "said", "it to", "speak to", "ask for", "cc", "according to",
    "interviewed", "married", "surname", "daughter of", "son of", "wife of", "husband of",
    # What one does at a person: "shouted at X", "smiled at X".
    *(f"{verb} at" for verb in (
        "shouted", "shouts", "shouting", "yelled", "yells", "yelling", "screamed", "screaming",
        "smiled", "smiles", "smiling", "laughed", "laughing", "waved", "waving", "winked",
        "glared", "stared", "snapped", "nodded", "grinned", "frowned", "swore",
    )),
    *(f"{whose} {kin}" for whose in ("my", "his", "her", "our", "their", "your") for kin in (
        "mother", "father", "mum", "mom", "dad", "wife", "husband", "son", "daughter",
        "brother", "sister", "cousin", "aunt", "uncle", "nephew", "niece", "grandmother",
        "grandfather", "grandma", "grandpa", "granddaughter", "grandson", "fiancé", "fiancée",
        "girlfriend", "boyfriend", "friend", "neighbour", "neighbor", "colleague", "coworker",
        "co-worker", "flatmate", "roommate", "classmate", "coach", "tutor", "mentor",
    )),
    "the waiter", "the waitress", "the receptionist", "the manager", "the pharmacist",
    "the driver", "the nurse", "the physio", "the plumber", "the mechanic", "the landlady",
    "aunt", "auntie", "uncle", "tía", "tío", "tante", "onkel", "grandma", "grandpa",
)  # fmt: skip
"""Phrases just before a name that say it is a person's (the text lower-cased, the name's
colon, comma or question mark dropped: ``Name: X``, ``What's your name? X``): among them a
relative, a friend or a colleague named by whose they are (``my cousin X``, ``his coach,
X``), someone who serves (``the waiter, X``) and a relative's title (``Aunt X``, ``Tía X``)."""

DERIVED_ENDINGS = _words(
    "ing ings ers ness less ment ments able ably ful fully ism isms ist ists ity ous ive ives "
    "est ier iest ily ize ized ise ised ship ships"
)
"""Endings that a web corpus holds as words but that make derived words, not compounds
(``hollowing`` is no ``hollow`` and ``ing``)."""

CLAUSE_OPENERS = _words(
    "is was has had did does do and or but with for by of on as if so then after before since "
    "because also only even thanks ask call tell"
)
"""Words that open a sentence or a clause before a name (``Did X reply?``, ``Thanks X``), which
the names table may hold as names too."""

WORDED_GIVEN_NAMES = _words(
    "mark will grace rose faith hope joy jack frank dawn heather holly ivy iris daisy lily "
    "violet jasmine pearl ruby amber hazel carol eve autumn"
)
"""English given names that are common words too: before a family name of the names table
that is none, they are the given name (``Mark Smith``, ``Grace Wilson``). Not those that
open product names, settings and headings as often (``Max Retries``, ``Crystal Palace``,
``Chase Sapphire``, ``Hunter Wellies``)."""

PERSON_ROLES = _words(
    "daughter wife husband sister brother mother father caller passenger guest assessor "
    "supervisor reviewer officer inspector detective constable sergeant spokesperson spokesman "
    "spokeswoman plaintiff defendant suspect pupil student teacher nurse coach captain striker "
    "defender midfielder goalkeeper"
)
"""Roles written as a title right before a name (``Daughter X``, ``Caller X``, ``striker X``):
a person's when what follows is two name words or one of the names table (``Inspector
Gadget``, ``Nurse Practitioner`` and ``Guest Wi-Fi`` are none)."""

PERSON_AFTER = (
    " who", ", who", " said", " says", " shouted", " told", " asked", " wrote", " replied",
    " signed", " was born", ", aged", " aged", "'s wife", "'s husband", "'s son",
    "'s daughter", "'s mother", "'s father", "'s family", "'s brother", "'s sister",
    " himself", " herself", " wants", " thinks", " (b.", " (born",
)  # fmt: skip
"""Phrases just after a name that say it is a person's."""

AGE_AFTER = re.compile(r" is an? \d+[ -]years?[ -]old\b|, \d{1,2}, ")
"""An age after a name: ``X is a 30-year-old``, ``X, 42, ...``."""

ORGANIZATION_BEFORE = (
    "based",  # "a Berlin-based X", "the Leeds based X"
    "work for", "works for", "worked for", "working for", "work at", "works at", "worked at",
    "working at", "employed by", "employed at", "employed with", "employer",
    "job at", "job with", "position at", "role at", "internship at", "intern at", "career at",
    "hired by", "recruited by", "quit", "joining", "joined", "before joining",
    "bank with", "banks with", "banking with", "account with", "account at", "customer of",
    "client of", "clients include", "customers include", "partners include",
    "thank you for choosing", "thanks for choosing", "thank you for contacting",
    "thanks for contacting", "order from", "parcel from", "package from", "delivery from",
    "invoice from", "refund from", "studied at", "graduated from", "degree from", "student at",
    "for and on behalf of", "signed on behalf of", "prepared for", "awarded to", "sponsored by",
    "operated by", "manufactured by", "published by", "developed by", "issued by",
    "insured by", "underwritten by", "funded by", "bought by", "merged with", "partnered with",
    "shares of", "stock of", "partnership with", "agreement with", "registered office",
    "company name", "subsidiary of", "acquired by", "acquisition of", "address of",
    "on behalf of", "became", "renamed", "renamed to",
    "rebranded as", "now called", "now known as", "formerly", "formerly known as",
    "ceo of", "cfo of", "cto of", "founder of", "co-founder of", "president of", "chairman of",
    "employees of", "staff of", "customers of", "clients of", "shareholders of", "investors in",
    "board of", "spokesperson for", "spokesman for", "spokeswoman for", "division of",
    "unit of", "founded", "co-founded", "stake in", "shares in", "contract with",
    "complaint against", "complaints against", "lawsuit against", "claim against",
    "stock in", "donation to", "grant from", "merger of",
)  # fmt: skip
"""Phrases just before a name that say it is an organisation's whatever its words
(``work for X``, ``which later became X``)."""

ORGANIZATION_ROLES = _words(
    "employer company firm vendor supplier contractor counterparty organisation organization "
    "licensor licensee landlord distributor manufacturer insurer lender school university "
    "bank studio club charity startup retailer brand label carrier airline publisher broker "
    "agency giant carmaker automaker chipmaker drugmaker supermarket grocer telco "
    "conglomerate fintech nonprofit non-profit regulator watchdog rival competitor"
)
"""Nouns before a name (``our supplier, X``, ``Employer: X``) that make it an organisation's
when it holds a proper word: a contract's ``Licensee Confidential Information`` names none."""

WORK_WORDS = (
    _words(
        "work works worked working employed job position role career internship intern team "
        "years months someone colleague colleagues staff department accounts volunteers "
        "volunteered volunteering interned banked banking shopping shopped shop"
    )
    | JOB_TITLES
)
"""Words before ``at`` or ``with`` that say where someone works (``a paralegal at X``,
``eight years at X``, ``our team at X``)."""

CALENDAR = _words(
    "monday tuesday wednesday thursday friday saturday sunday january february march april "
    "may june july august september october november december mon tue tues wed thu thur "
    "thurs fri sat sun jan feb mar apr jun jul aug sep sept oct nov dec christmas easter"
)
"""Days, months and holidays: capitalised, and nobody's name."""

ORGANIZATION_AFTER = re.compile(
    r"(?:,? (?:is|was|has been)|,) (?:an?|the) (?:[\w-]+ ){0,4}(?:company|firm|bank|startup|"
    r"provider|manufacturer|corporation|business|organi[sz]ation|agency|group|retailer|insurer|"
    r"nonprofit|charity|conglomerate|subsidiary|lender|broker|publisher|cooperative|co-op|"
    r"studio|consultancy|brand|chain|airline|carrier|utility|maker|supplier|distributor|"
    r"wholesaler|producer|developer|bakery|restaurant|hotel|school|university|hospital|"
    r"clinic|council|club|network|platform|marketplace|exchange|fund|union|society|"
    r"institute|foundation|association|practice|partnership|label|newspaper|broadcaster|"
    r"fintech|insurtech|biotech|operator|charity|cooperative|app|band|orchestra)\b"
)
"""Phrases just after a name that say it is an organisation's (``X is an Icelandic bank``,
``X, a Swedish retailer``)."""
ORGANIZATION_POSSESSIVE = (
    "'s ceo", "'s cfo", "'s board", "'s shareholders", "'s employees", "'s customers",
    "'s headquarters", "'s subsidiary", "'s shares", "'s stock", "'s revenue", "'s profits",
    "'s earnings", "'s spokesperson", "’s ceo", "’s board", "’s shareholders",
    "'s platform", "'s pricing", "'s subscribers", "'s stores",
    "’s platform", "’s pricing", "’s subscribers", "’s stores",
)  # fmt: skip
"""A possessive that only an organisation takes (``X's shareholders``)."""

ORGANIZATION_FOLLOWED = (
    " support", " customer service", " account", " office", " offices", " branch",
    " headquarters", " website", " app", " team", " staff", " employees", " shares",
    " stock", " share price", " spokesperson", " spokesman", " spokeswoman", " ceo", " cfo",
    " board", " is hiring", " are hiring", " said it", " says it", " announced", " reported",
    " posted", " recalled", " unveiled", " launched", " has appointed", " appointed",
    " outage", " depot", " warehouse", " store", " stores", " subscription",
    " customer support", " customer care", " helpline", " help desk", " helpdesk", " hotline",
    " call centre", " call center", " hq", " shop", " shops", " outlet",
    " outlets", " factory", " chief executive", " shareholders", " investors", " earnings",
    " share price", " stock price", " ipo", " opening hours", " opening times", " billing",
    " billing department", " customer relations", " legal department", " sales team",
    " privacy policy", " refund policy", " returns policy", " annual report", " data centre",
    " data center",
)  # fmt: skip
"""Words right after a name that make it an organisation's (``the Delta Nile office``,
``Gorjan support``, ``Dunmore said it would``), unless it is a person's name."""

FIRM_ONLY_AFTER = (
    " customer service", " customer support", " customer care", " helpline", " hotline",
    " call centre", " call center", " shares", " share price", " stock price",
    " shareholders", " headquarters", " hq", " branch", " branches", " stores", " outlets",
    " ipo",
)  # fmt: skip
"""Words right after a name that only a firm has, so that even a given and a family name
before them is a firm's (``Charles Schwab customer service``, ``Eli Lilly shares``)."""

FIRM_ONLY_BEFORE = (
    "shares of", "stock of", "shares in", "stock in", "subsidiary of", "division of",
    "unit of", "ceo of", "cfo of", "cto of", "employees of", "shareholders of", "investors in",
    "thank you for choosing", "thanks for choosing", "insured by", "underwritten by",
    "bank with", "banks with", "banking with", "merger of", "work at", "works at",
    "worked at", "working at", "employed at", "job at", "position at", "role at",
    "internship at", "intern at", "career at", "account with", "account at", "studied at",
    "graduated from", "degree from", "student at", "customer of", "customers of",
)  # fmt: skip
"""Phrases just before a name that only a firm follows (``shares of Morgan Stanley``, ``works
at Edward Jones``); a person is worked for, spoken for and contacted as often as a firm."""

ORGANIZATION_BESIDE = (
    " representative", " representatives", " employee", " products", " customers",
    " shoppers", " subscribers", " customer", " workers", " founder", " co-founder",
    " brand", " credit card", " debit card", " gift card", " card", " bill", " order",
    " delivery", " parcel", " invoice", " membership", " flight", " flights", " open today",
    " open on", " open tomorrow", " open now", " policy number", " customer number",
    " membership number", " member number", " loyalty card", " rewards",
    # Who works for it: "a former Infosys manager", "Greenpeace activists", "Uber drivers".
    " engineer", " engineers", " manager", " managers", " drivers", " nurses", " activists",
    " volunteers", " staffers", " executives", " recruiter", " recruiters", " contractors",
    " interns",
)  # fmt: skip
"""Words right after a name, but for a possessive, that make it an organisation's (``a
Tarvo representative``, ``Ovanta products``): ``Nowak's representative`` is a person's."""

ORGANIZATION_NEAR = (
    "employee of", "representative of", "representative from", "representatives from",
    "someone from", "somebody from", "rep from", "interview with", "interview at",
    "interviewed at", "applied to", "applying to", "invested in", "investing in",
    "investment in", "donated to", "donate to", "donating to", "switched to", "switching to",
    "member of", "members of", "subscribed to", "we at", "here at", "sued", "suing",
    "customer at", "customers at", "shopper at", "calling from", "charged by", "billed by",
    "acquired", "takeover of", "employer is", "my bank is", "insurer is", "nearest", "closest",
    "my local", "our local", "welcome to",
    "flying with", "flew with", "fly with", "booked with", "insured with", "insurance with",
    "policy with", "mortgage with", "loan from", "loan with", "to join", "left", "leaving",
    "later at", "then at", "now at", "loan through", "mortgage through", "insurance through",
    "policy through", "booked through", "ordered through", "bought through", "account through",
    "founders of", "co-founders of", "owners of", "makers of", "maker of", "creators of",
    "users of", "executives at", "executives of", "sued by", "filed by", "delivered by",
    "shipped by", "supplied by", "provided by", "hosted by", "powered by", "produced by",
    "distributed by", "sold by", "on hold with", "subscription with",
    "partnership with", "merger with", "everyone at", "everybody at", "the team at",
    "the folks at", "colleagues at", "acquired by", "taken over by", "bankruptcy of",
)  # fmt: skip
"""Phrases just before a name that make it an organisation's when it holds a proper word
that is no place (``someone from Ovanta``, not ``someone from Boston``)."""

ORGANIZATION_DEEDS = (
    " was founded", " founded in", " is headquartered", " headquartered in",
    " was incorporated", " is incorporated", " filed for bankruptcy", " went bankrupt",
    " went public", " was acquired", " acquired", " hired", " is listed on", " was fined",
    " shut down", " laid off", " employs", " manufactures", " said in a statement",
    " issued a statement", " opened a new", " plans to open", " is opening a", " will open a",
    " has filed for", " filed for", " is recalling", " has announced", " has launched",
    " has unveiled", " has reported", " is located at", " agreed to pay", " agreed to buy",
    " agreed to acquire", " has been fined", " is an equal opportunity employer",
    " declined to comment", " did not respond to a request", " shipped", " refunded",
    " overcharged", " charged me", " billed me", " still hiring", " is still hiring",
    " to report earnings", " to report results", " to report higher", " to report lower",
    " to report record", " is laying off", " laying off", " is cutting jobs", " cut jobs",
    " raised prices", " raised its prices", " is raising prices", " cut prices",
    " both raised prices", " is taking applications", " is recruiting", " charge me", " charges me",
    " could be bought", " could be acquired", " is being acquired", " is up for sale",
    " posted a loss", " posted a profit", " reported a loss", " reported a profit",
    # The plural a collective takes in British English: "Radiohead have announced".
    " have announced", " have launched", " have unveiled", " have signed", " has signed",
    " have confirmed", " confirmed on", " confirmed that", " have reported", " are cutting",
    " is cutting", " have been fined", " has awarded", " have awarded", " has published",
    " have published", " has called for", " have called for", ", founded by", ", founded in",
)  # fmt: skip
"""What a firm does, right after a run (``Talvexa is headquartered in``, ``Dravik acquired``):
it needs a proper word, and a single word of the names table stays a person's (``Maria
hired a lawyer``)."""

ORGANIZATION_SENDS = (
    "email from", "e-mail from", "letter from", "message from", "text from", "call from",
    "notification from", "bill from", "statement from", "offer from", "quote from",
    "newsletter from", "reminder from", "alert from", "invoice from", "shipment from",
)  # fmt: skip
"""What a firm sends, right before a run (``an email from Verizon``): it needs a proper word,
and a single word of the names table stays a person's (``a letter from Nowak``)."""

ORGANIZATION_SWITCH = re.compile(r"\b(?:switch|switched|switching)\b(?: [\w'’-]+){0,3} to$")
"""A change of provider to the run: ``switched my broadband to X`` (the lower-case text
before it)."""

ORGANIZATION_LEFT = re.compile(
    r"\b(?:switch|switched|switching|migrate|migrated|migrating)\b(?: [\w'’-]+){0,3} from$"
)
"""The provider left for another: ``switched from X to Y`` (the lower-case text before it)."""

COPYRIGHT = re.compile(r"(?:©|\(c\)|copyright)(?: (?:19|20)\d\d(?:[-–](?:19|20)?\d\d)?)?,?$")
"""A copyright line before its owner (``© 2024 Brontix``), the lower-case text before it."""

ORGANIZATION_DEALS = re.compile(
    r"\b(?:bought|buy|buying|purchased|ordered|rented|leased)\b(?: [\w'’-]+){0,3} from$"
)
"""A purchase from the run: ``ordered a sofa from X`` (the lower-case text before it)."""

ORGANIZATION_AT = re.compile(
    r"\b(?:revenues?|profits?|sales|earnings|prices|layoffs|job cuts|strikes?|breach|hack|"
    r"outages?|delays|delivery times|waiting times|shortages|executives|managers|engineers|"
    r"bosses|turmoil|restructuring) at$"
)
"""What a firm has, then ``at`` and the run: ``revenue at X``, ``the data breach at X`` (the
lower-case text before it)."""

ORGANIZATION_BETWEEN = re.compile(
    r"\b(?:merger|partnership|deal|dispute|talks|agreement|contract|joint venture|alliance|"
    r"collaboration|tie-up) between$"
)
"""A deal between the run and another party: ``the merger between X and Y``."""

ORGANIZATION_GOODS = re.compile(
    r"\b(?:apps?|software|updates?|services?|products?|devices?|equipment|routers?|laptops?|"
    r"phones?|subscriptions?|plans?|packages?|tariffs?|broadband|internet|wi-?fi|electricity|"
    r"energy|machines?|scanners?)\b"
    r"(?: (?:is|are|was|were|comes?|came))? from$"
)
"""Goods or a service from the run: ``the app from X``, ``our broadband is from X`` (the
lower-case text before it); not parts or supplies, which come from places too."""

ORGANIZATION_PAPERS = re.compile(
    r"\b(?:invoices?|bills?|quotes?|quotations?|estimates?|receipts?|shipments?)\b"
    r"(?: [\w#'’./-]+){1,3} from$"
)
"""A paper a firm sends, its number or kind between (``Invoice #4471 from X``); not a refund,
a payment, an order or a parcel, which people send and ask for too (the lower-case text
before it)."""

ORGANIZATION_AWARDED = re.compile(
    r"\b(?:awarded|granted|gave|given|won|lost)\b(?: [\w'’-]+){0,4} (?:contracts?|tenders?|"
    r"deals?|bids?|accounts?) to$"
)
"""A contract given to the run: ``awarded the cleaning contract to X``."""

EMPLOYED_AS = (" as a ", " as an ", " as the ")
"""``at X as the assistant``: the place someone works, after ``at``."""

GROUP_WORDS = _words(
    "companies firms manufacturers makers vendors suppliers banks insurers lenders "
    "competitors sponsors brands retailers carriers startups providers brokers employers "
    "publishers labels studios clients customers partners investors rivals"
)

CLOSINGS = (
    "regards", "kind regards", "best regards", "warm regards", "warmest regards",
    "with regards", "best", "all the best", "best wishes", "sincerely", "yours sincerely",
    "sincerely yours", "yours faithfully", "yours truly", "yours", "cheers", "thanks",
    "many thanks", "thank you", "with thanks", "respectfully", "cordially", "cordialement",
    "bien cordialement", "mit freundlichen grüßen", "viele grüße", "saludos", "un saludo",
    "atentamente", "cordiali saluti", "met vriendelijke groet", "med vänliga hälsningar",
    "pozdrawiam", "s pozdravem",
)  # fmt: skip
"""Closing lines of a letter or an e-mail: the signature's name follows."""

FREE_MAIL = _words(
    "gmail googlemail yahoo ymail hotmail outlook live msn aol icloud me mac mail email "
    "proton protonmail gmx web yandex qq zoho fastmail hey tutanota example"
)
"""Mail domains that name a mail provider, not the sender's organisation."""

STREET_ENDINGS = (
    "gata|gatan|gade|vej|veien|vegen|vei|straße|strasse|str\\.|weg|gasse|laan|straat|"
    "plein|allee|väg|vägen|katu|tie|utca|ulica|platz|ring|damm|ufer"
)
"""Endings of street names written as one word before the house number (``Strandgata 22``),
as a regex alternation."""

_GROUPS = r"\b(?:" + "|".join(sorted(GROUP_WORDS)) + r")\b"
ORGANIZATION_GROUPS = re.compile(
    _GROUPS + r"[^.;!?\n]*?(?::|such as|including|like|namely|include|includes) *$"
)
"""A plural noun for organisations, then a list of them (``car makers such as A and B``)."""

CONTACT_LINE = re.compile(r"(?:mobile|phone|tel|telephone|fax|e-?mail|desk|office|cell)\b", re.I)
