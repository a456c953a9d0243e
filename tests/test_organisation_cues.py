"""The ways everyday text names and refers to organisations: nouns that end a firm's name,
the words around a name that say it is a firm's (its support line, its representative,
someone from it, an email from it, flying or banking with it), public bodies named by what
they deal with, registered forms after common words, partners' firms, brands that are common
words, and the same cues next to capitalised words that are no organisation."""

from __future__ import annotations

import pytest
from names_support import names


@pytest.mark.parametrize(
    ("text", "organization"),
    [
        ("I'm a member of the Greenway Credit Union.", "Greenway Credit Union"),
        ("Brixton Travel booked our flights.", "Brixton Travel"),
        ("Harlow Financial approved the loan.", "Harlow Financial"),
        ("Tessera Marketing sent a proposal.", "Tessera Marketing"),
        ("Peterson Bros. fixed the roof.", "Peterson Bros."),
    ],
)
def test_more_organisation_nouns_end_a_firms_name(text: str, organization: str) -> None:
    """Union, Travel, Financial, Marketing, a dotted Bros. after a proper word."""
    assert organization in names(text)[1]


@pytest.mark.parametrize(
    "text",
    [
        "Financial Management will be billed monthly by the Vendor.",
        "Meet me at P.O. Box 149 Monika Union",
        "Deliver to 22 Harlow Financial, London",
    ],
)
def test_an_organisation_noun_after_common_words_or_a_house_number_names_none(
    text: str,
) -> None:
    """Common words only are a defined term; after a house number the run is a street."""
    assert names(text)[1] == []


def test_a_year_before_a_firm_is_no_house_number() -> None:
    """``In 2019 Harlow Financial``: a year, not a street's number."""
    assert names("In 2019 Harlow Financial bought the site.")[1] == ["Harlow Financial"]


@pytest.mark.parametrize(
    ("text", "organization"),
    [
        ("The Tarvo customer support line is closed on Sundays.", "Tarvo"),
        ("An Ovanta representative said the issue was fixed.", "Ovanta"),
        ("I love Ovanta products.", "Ovanta"),
        ("Ring the Brontix helpline before noon.", "Brontix"),
    ],
)
def test_support_lines_staff_and_products_after_a_name_make_it_a_firm(
    text: str, organization: str
) -> None:
    """``X customer support``, ``an X representative``, ``X products``, ``the X helpline``;
    an opening article is no part of the name."""
    assert names(text)[1] == [organization]


@pytest.mark.parametrize(
    "text",
    [
        "Call the Leeds helpline before noon.",
        "Nowak's representative called.",
        "An Irish representative spoke first.",
        "A Tuesday representative?",
    ],
)
def test_a_place_a_possessive_a_people_or_a_day_before_those_words_is_no_firm(
    text: str,
) -> None:
    """A place, a person's possessive, a nationality and a day stay no organisation."""
    assert names(text)[1] == []


@pytest.mark.parametrize(
    ("text", "organization"),
    [
        ("I'd like to speak with someone from Ovanta about my order.", "Ovanta"),
        ("I had an interview with Foursquare.", "Foursquare"),
        ("I invested in Brontix last year.", "Brontix"),
        ("I donated to Oxfam last year.", "Oxfam"),
        ("We flew with Aerolinea to Rome.", "Aerolinea"),
        ("I'm insured with Harbourline and they refused the claim.", "Harbourline"),
        ("I'm calling from Brontix about your order.", "Brontix"),
        ("I was charged by Verizon twice.", "Verizon"),
        ("We at Mintwell believe in open data.", "Mintwell"),
    ],
)
def test_dealings_with_a_firm_before_a_proper_word_name_it(text: str, organization: str) -> None:
    """Someone from it, an interview with it, money in or to it, flying, insured or billed
    by it, calling from it, ``we at`` it."""
    assert names(text)[1] == [organization]


@pytest.mark.parametrize(
    "text",
    [
        "Someone from Boston called about the flat.",
        "I'm calling from Boston about your order.",
        "Please ask someone from Accounting to sign it.",
        "I invested in Berlin property.",
    ],
)
def test_the_same_dealings_before_a_place_or_a_common_word_name_no_firm(text: str) -> None:
    """A place or a department after those phrases is no organisation."""
    assert names(text)[1] == []


def test_a_given_name_after_flying_with_is_no_firm() -> None:
    """``flew with Jane``: a companion, not an airline."""
    assert names("We flew with Jane to Rome.")[1] == []


@pytest.mark.parametrize(
    ("text", "person", "organization"),
    [
        ("I'm Tom, from Socrata.", "Tom", "Socrata"),
        ("Hi, this is Anna from Quillon, returning your call.", "Anna", "Quillon"),
    ],
)
def test_a_person_from_a_proper_word_is_introduced_by_their_firm(
    text: str, person: str, organization: str
) -> None:
    """``Anna from Quillon``: a person introduced by where they work."""
    assert names(text) == ([person], [organization])


@pytest.mark.parametrize(
    "text",
    [
        "Hello, this is Maria from Leeds.",
        "Hi, this is Anna from Accounting, returning your call.",
        "Greta Lindholm from Boston will send the contract.",
    ],
)
def test_a_person_from_a_place_or_a_department_names_no_firm(text: str) -> None:
    """A place or a common word after ``from`` is where the person is, not a firm."""
    assert names(text)[1] == []


@pytest.mark.parametrize(
    ("text", "organization"),
    [
        ("According to the Ministry of Health, waiting times fell.", "Ministry of Health"),
        ("The Department of Education issued a statement.", "Department of Education"),
        ("The Bank of England raised rates.", "Bank of England"),
    ],
)
def test_public_bodies_are_named_by_what_they_deal_with(text: str, organization: str) -> None:
    """A public body's noun, ``of`` and capitalised words, common ones too."""
    assert names(text)[1] == [organization]


@pytest.mark.parametrize(
    "text",
    [
        "The Board of Directors approved the Annual Report.",
        "The King of Spain visited the Museum of Modern Art.",
        "Department of FINANCE",
    ],
)
def test_a_board_a_building_and_a_heading_are_no_public_body(text: str) -> None:
    """A company's board, a museum's building and a heading in capitals name no body."""
    assert names(text)[1] == []


@pytest.mark.parametrize(
    ("text", "organization"),
    [
        ("Please send the invoice to Golden Harvest Ltd by Friday.", "Golden Harvest Ltd"),
        ("My friend runs Bright Horizons Inc. in Ohio.", "Bright Horizons Inc."),
        ("Climate Corporation launched a new service.", "Climate Corporation"),
        ("Thanks, Golden Harvest Ltd will reply.", "Golden Harvest Ltd"),
    ],
)
def test_a_registered_form_after_common_words_names_the_whole_firm(
    text: str, organization: str
) -> None:
    """``Ltd``, ``Inc.``, ``Corporation`` after capitalised common words; a greeting before
    them is left out."""
    assert names(text)[1] == [organization]


@pytest.mark.parametrize(
    "text",
    [
        "The Corporation shall indemnify the Licensee.",
        "The Licensed Software is provided as is.",
    ],
)
def test_a_defined_term_is_no_registered_firm(text: str) -> None:
    """A contract's ``the Corporation`` is one word after an article: no firm's name."""
    assert names(text)[1] == []


@pytest.mark.parametrize(
    ("text", "organization"),
    [
        ("Smith, Jones and Brown is a law firm.", "Smith, Jones and Brown"),
        ("Johnson, Lee and Patel LLP filed the claim.", "Johnson, Lee and Patel LLP"),
        ("Halvex and Corvane is a Danish bakery chain.", "Halvex and Corvane"),
    ],
)
def test_partners_joined_by_and_are_one_firm_when_described_or_registered(
    text: str, organization: str
) -> None:
    """A singular verb describing the names, or a legal form after them, makes one firm."""
    assert names(text)[1] == [organization]


def test_names_joined_by_and_with_a_plural_verb_are_not_one_firm() -> None:
    """``Globex and Initech are rivals`` is two names, and two family names are persons."""
    assert names("Globex and Initech are rivals.")[1] == []
    assert names("Nakamura and Okafor were both on the call.") == (["Nakamura", "Okafor"], [])


@pytest.mark.parametrize(
    ("text", "organization"),
    [
        ("She works at Target on weekends.", "Target"),
        ("I bank with Chase.", "Chase"),
        ("He was employed by Shell for ten years.", "Shell"),
    ],
)
def test_a_brand_that_is_a_common_word_is_named_after_a_firms_phrase(
    text: str, organization: str
) -> None:
    """A capitalised common word mid-sentence after ``works at``, ``bank with``."""
    assert names(text)[1] == [organization]


def test_a_title_after_became_or_a_defined_term_before_a_description_is_no_brand() -> None:
    """``became Chairman``: a title; ``this Agreement, the Company``: a contract's term."""
    assert names("She became Chairman of the board in May.")[1] == []
    text = "within seventy days from the date of this Agreement, the Company shall pay"
    assert names(text)[1] == []


def test_an_email_from_a_proper_word_is_a_firms_but_from_a_family_name_a_persons() -> None:
    """What firms send: an email, a bill, a letter from a word the names table lacks."""
    assert names("I got an email from Verizon about my bill.")[1] == ["Verizon"]
    assert names("I got an email from Nowak about the bill.")[1] == []


def test_a_firm_speaks_in_a_statement_and_a_given_name_stays_a_person() -> None:
    """``said in a statement``, ``opened a new``: a firm's, but not after a given name."""
    assert names("Halvex said in a statement that prices would rise.")[1] == ["Halvex"]
    assert names("Kestrel Bio opened a new lab in Oslo.")[1] == ["Kestrel Bio"]
    assert names("Maria said in a statement that she would stay.") == (["Maria"], [])


@pytest.mark.parametrize(
    "text",
    [
        "Mrs. Nowak hired a lawyer.",
        "Dr. Okafor said it would heal.",
        "Mrs. Nowak opened a new account.",
    ],
)
def test_an_honorific_names_a_person_whatever_a_firm_would_do(text: str) -> None:
    """An honorific before the name outweighs the words of a firm after it."""
    persons, organizations = names(text)
    assert organizations == []
    assert persons


def test_a_text_in_lower_case_names_an_unknown_word_after_a_firms_phrase() -> None:
    """``i work at zillow``: a word no table knows after ``work at``; ``home`` is a word."""
    assert names("i work at zillow and love it")[1] == ["zillow"]
    assert names("my sister works for netflix's marketing team")[1] == ["netflix"]
    assert names("i work at home most days") == ([], [])


@pytest.mark.parametrize(
    ("text", "organization"),
    [
        ("Shares of Morgan Stanley fell 3% on Monday.", "Morgan Stanley"),
        ("I called Charles Schwab customer service twice.", "Charles Schwab"),
        ("Eli Lilly shares rose after the trial.", "Eli Lilly"),
        ("Thank you for choosing Morgan Stanley.", "Morgan Stanley"),
    ],
)
def test_words_only_a_firm_has_make_a_personal_name_a_firms(text: str, organization: str) -> None:
    """Shares of it, its customer service: a given and a family name there is a firm's."""
    assert names(text) == ([], [organization])


@pytest.mark.parametrize(
    "text",
    [
        "She works for Maria Lopez as a nanny.",
        "A spokesperson for Maria Lopez declined to comment.",
        "Jane Smith is hiring a nanny.",
    ],
)
def test_work_speech_and_hiring_keep_a_personal_name_a_persons(text: str) -> None:
    """A person employs, hires and has a spokesperson as a firm does."""
    persons, organizations = names(text)
    assert organizations == []
    assert len(persons) == 1


@pytest.mark.parametrize(
    ("text", "organization"),
    [
        ("I work at Google now.", "Google"),
        ("I called PayPal customer service.", "PayPal"),
        ("I bank with Barclays.", "Barclays"),
    ],
)
def test_a_brand_that_the_table_calls_a_common_word_is_named_by_its_context(
    text: str, organization: str
) -> None:
    """A common word capitalised inside a sentence after ``work at``, or in camel case before
    a firm's customer service, is a brand."""
    assert names(text)[1] == [organization]


@pytest.mark.parametrize(
    "text",
    [
        "Officials announced the plan on Monday.",
        "She works at the Hospital on Elm Street.",
        "The Sales team meets on Friday.",
        "He became Mayor in 2010.",
        "Call the Rotterdam branch before noon.",
        "I love Twitter.",
    ],
)
def test_a_capitalised_common_word_without_a_firms_phrase_is_no_brand(text: str) -> None:
    """A sentence's first word, a word after an article, a team, a title, a place's branch,
    and a common word with no firm's phrase next to it name no organisation."""
    assert names(text)[1] == []


@pytest.mark.parametrize(
    ("text", "organization"),
    [
        ("Tech giant Quillon reported record profits.", "Quillon"),
        ("The carmaker Vantor recalled 10,000 vehicles.", "Vantor"),
        ("Our rival Brontix cut prices again.", "Brontix"),
        ("My employer is Quillon.", "Quillon"),
    ],
)
def test_a_news_appositive_or_a_stated_employer_names_a_firm(text: str, organization: str) -> None:
    """``tech giant X``, ``the carmaker X``, ``our rival X``, ``my employer is X``."""
    assert names(text)[1] == [organization]


@pytest.mark.parametrize("text", ["The rival Jane said no.", "Tech giant London?"])
def test_a_given_name_or_a_place_after_a_news_appositive_is_no_firm(text: str) -> None:
    """A given name or a place after ``rival`` or ``giant`` stays no organisation."""
    assert names(text)[1] == []


@pytest.mark.parametrize(
    ("text", "organization"),
    [
        ("My Quillon bill went up again.", "Quillon"),
        ("Where is my Brontix order?", "Brontix"),
        ("Our Bellamy flight was delayed.", "Bellamy"),
        ("Google acquired Fitbit last year.", "Fitbit"),
        ("Brontix has announced a new plan.", "Brontix"),
        ("Brontix is located at 12 Main Street.", "Brontix"),
    ],
)
def test_bills_orders_flights_acquisitions_and_premises_name_a_firm(
    text: str, organization: str
) -> None:
    """What a customer has from a firm, what it acquires, announces and where it is."""
    assert organization in names(text)[1]


@pytest.mark.parametrize(
    "text",
    [
        "The Smith order was cancelled.",
        "My Christmas card arrived.",
        "Jane's order arrived.",
        "He acquired Spanish citizenship.",
        "Maria has announced her retirement.",
    ],
)
def test_a_family_name_a_holiday_a_people_or_a_given_name_there_is_no_firm(text: str) -> None:
    """The same words after a family name, a holiday, a possessive, a nationality or a given
    name name no organisation."""
    assert names(text)[1] == []


@pytest.mark.parametrize(
    ("text", "organization"),
    [
        ("I've been working as a nurse for Brontix since 2019.", "Brontix"),
        ("She is the director of Quillon Europe.", "Quillon Europe"),
        ("Is Brontix open on Sunday?", "Brontix"),
        ("What are Brontix's opening hours?", "Brontix"),
        ("Where is the nearest Tesco?", "Tesco"),
    ],
)
def test_work_for_a_title_of_opening_hours_and_the_nearest_branch_name_a_firm(
    text: str, organization: str
) -> None:
    """Working as something for it, a title of it, its opening hours, its nearest shop; a
    question's opening word is no part of the name."""
    assert names(text)[1] == [organization]


@pytest.mark.parametrize(
    "text",
    [
        "I have a job for Jane if she wants it.",
        "He is the director of Sales.",
        "Where is the nearest London bus stop?",
    ],
)
def test_a_given_name_a_department_or_a_place_there_is_no_firm(text: str) -> None:
    """A given name after ``a job for``, a department after a title, a place after
    ``nearest``."""
    assert names(text)[1] == []


def test_a_proper_word_in_brackets_after_a_person_is_their_firm() -> None:
    """``Jane Roe (Brontix)``: a firm; ``(London)`` a place, and ``Maria at Heathrow`` is
    where she is."""
    assert names("Attendees: Jane Roe (Brontix) and others.") == (["Jane Roe"], ["Brontix"])
    assert names("Jane Roe (London) joined the call.")[1] == []
    assert names("I met Maria at Heathrow on Monday.")[1] == []


def test_a_text_in_lower_case_names_an_unknown_word_before_a_firms_words() -> None:
    """``zillow customer service``, ``someone from quillon``; ``the sales team`` is none."""
    assert names("i called zillow customer service twice")[1] == ["zillow"]
    assert names("someone from quillon called me")[1] == ["quillon"]
    assert names("the sales team called") == ([], [])


@pytest.mark.parametrize(
    ("text", "organization"),
    [
        ("At Brontix, we value your privacy.", "Brontix"),
        ("Welcome to Brontix! Your account is ready.", "Brontix"),
        ("© 2024 Brontix. All rights reserved.", "Brontix"),
        ("Brontix agreed to pay a fine of $2 million.", "Brontix"),
        ("Brontix has been fined by the regulator.", "Brontix"),
        ("Brontix is an equal opportunity employer.", "Brontix"),
    ],
)
def test_a_firms_own_voice_copyright_and_fines_name_it(text: str, organization: str) -> None:
    """``At X, we``, ``Welcome to X``, a copyright line, what a firm agrees to pay."""
    assert names(text)[1] == [organization]


@pytest.mark.parametrize(
    "text",
    [
        "At Christmas, we visit family.",
        "At Oxford, we studied law.",
        "Copyright Jane.",
        "Welcome to London, everyone.",
    ],
)
def test_a_holiday_a_place_or_a_given_name_in_those_phrases_is_no_firm(text: str) -> None:
    """A holiday, a place or a given name there names no organisation."""
    assert names(text)[1] == []


@pytest.mark.parametrize(
    ("text", "organization"),
    [
        ("I work at Edward Jones as an advisor.", "Edward Jones"),
        ("I have an account with Wells Fargo.", "Wells Fargo"),
        ("Our team at Raymond James is growing.", "Raymond James"),
    ],
)
def test_working_at_or_banking_with_a_personal_name_names_a_firm(
    text: str, organization: str
) -> None:
    """One works at, and has an account with, a firm: a personal name there is a firm's."""
    assert names(text) == ([], [organization])


@pytest.mark.parametrize(
    "text",
    [
        "She works at Maria Lopez's salon.",
        "She works for Maria Lopez as a nanny.",
        "I met Maria Lopez at the station.",
    ],
)
def test_working_for_a_person_or_at_their_salon_keeps_the_person(text: str) -> None:
    """Working for someone, or at someone's premises, names the person."""
    assert names(text) == (["Maria Lopez"], [])


@pytest.mark.parametrize(
    "text", ["I reported it to the police.", "I announced it on Monday.", "I posted the letter."]
)
def test_the_pronoun_before_a_firms_verb_is_no_firm(text: str) -> None:
    """``I announced``: a one-letter word names no organisation."""
    assert names(text)[1] == []


def test_an_institution_may_be_followed_by_its_city() -> None:
    """``Trinity College Dublin`` is one name; a street's bank and branch stay none."""
    text = "He studied medicine at Trinity College Dublin."
    assert names(text)[1] == ["Trinity College Dublin"]
    assert names("The Oxford Street Bank Leeds branch.")[1] == []


def test_switching_a_service_to_a_proper_word_names_the_provider() -> None:
    """``switched my broadband to X``; a day, a place or a given name there is none."""
    assert names("I switched my broadband to Fibrelink last week.")[1] == ["Fibrelink"]
    assert names("I switched the meeting to Thursday.")[1] == []
    assert names("She switched her flight to Berlin.")[1] == []
    assert names("I switched seats to Jane.")[1] == []


@pytest.mark.parametrize(
    ("text", "organization"),
    [
        ("Profits at Dravenko fell by a third.", "Dravenko"),
        ("The data breach at Omnivek exposed card numbers.", "Omnivek"),
        ("Talks between Corbelle and the union broke down.", "Corbelle"),
        ("The software from Quintrel stopped syncing.", "Quintrel"),
        ("We migrated our mail from Postaro to another host.", "Postaro"),
        ("The founders of Lumbrix sold their stake.", "Lumbrix"),
        ("My boxes were shipped by Cargonet last week.", "Cargonet"),
        ("He left Veltrano after a year to join Ospreya.", "Veltrano"),
        ("He left Veltrano after a year to join Ospreya.", "Ospreya"),
        ("She trained at Nokia and later at Dunmark.", "Dunmark"),
        ("Questions go to Pellaro's legal department.", "Pellaro"),
        ("Zentrik declined to comment on the report.", "Zentrik"),
    ],
)
def test_what_a_firm_has_does_and_deals_in_names_a_proper_word(
    text: str, organization: str
) -> None:
    """Revenue or a breach at it, a deal between it and another, goods from it, a move away
    from it, its founders, what it shipped, leaving or joining it, its departments, its
    silence."""
    assert organization in names(text)[1]


@pytest.mark.parametrize(
    "text",
    [
        "She left Paris in June.",
        "He left Maria a voicemail.",
        "Come and join Anna for lunch.",
        "The deal between Maria and Tom fell apart.",
        "Prices at Easter went up.",
        "The agreement between Licensor and Licensee ends in 2025.",
        "The update from Monday broke the build.",
        "Maria declined to comment.",
    ],
)
def test_those_cues_before_a_place_a_given_name_or_a_term_name_no_firm(text: str) -> None:
    """A place, a given name, a holiday, a defined term or a day after the same cues."""
    assert names(text)[1] == []


@pytest.mark.parametrize(
    ("text", "organization"),
    [
        ("Velmora is laying off a tenth of its staff.", "Velmora"),
        ("Tavolent is taking applications for its graduate scheme.", "Tavolent"),
        ("I spent an hour on hold with Pellbrook yesterday.", "Pellbrook"),
        ("The invoice no. 88 from Caskwell was paid twice.", "Caskwell"),
        ("We ordered 40 chairs from Benthurst.", "Benthurst"),
        ("Our electricity is from Voltaro now.", "Voltaro"),
        ("The council awarded the road repair contract to Grendale.", "Grendale"),
        ("Thanks to everyone at Lorrimax for the tour.", "Lorrimax"),
        ("Users complain about Ostrava's pricing.", "Ostrava"),
        ("The bankruptcy of Fenwright cost savers millions.", "Fenwright"),
    ],
)
def test_what_a_firm_does_sends_and_sells_names_a_proper_word(text: str, organization: str) -> None:
    """Layoffs and hiring; being on hold with it, its invoices and goods, a contract awarded
    to it, its staff, its pricing, its bankruptcy."""
    assert organization in names(text)[1]


@pytest.mark.parametrize(
    "text",
    [
        "I was on hold with Maria for an hour.",
        "Maria is looking for a flat.",
        "Jones has denied the allegations.",
        "Thistlewood apologised for the noise.",  # people apologise and deny too
        "Hannah's website sells her pottery.",
        "I have a booking with Thistlewood at noon.",
        "The invoice from March is unpaid.",
        "Our broadband is from Monday to Friday down.",
        "She gave the contract to Jane.",
        "Quotes: Anna, Ben and Carl.",
        "My experience with Python is limited.",
    ],
)
def test_the_same_cues_before_a_person_a_month_or_a_day_name_no_firm(text: str) -> None:
    """A given or family name, a month, a day or a language after those cues is no firm."""
    assert names(text)[1] == []


@pytest.mark.parametrize(
    ("text", "organization"),
    [
        ("She works at IBM in Pune.", "IBM"),
        ("I work at TCS as an analyst.", "TCS"),
        ("He joined KPMG last year.", "KPMG"),
    ],
)
def test_an_acronym_after_a_phrase_only_a_firm_follows_is_a_firm(
    text: str, organization: str
) -> None:
    """Working at or joining an acronym names the firm it stands for."""
    assert names(text)[1] == [organization]


@pytest.mark.parametrize(
    "text",
    [
        "He works in IT.",
        "She works at HQ on Mondays.",
        "I work for the CFO.",
        "The refund request from Lakshmi was approved.",  # people ask for refunds
        "The spare parts came from Nyeri by lorry.",  # parts come from places too
        "The collapse of Morandi bridge shocked the city.",
        "A payment of 40 euros from Dembele came in.",
    ],
)
def test_an_office_a_department_or_what_people_send_names_no_firm(text: str) -> None:
    """Generic acronyms (IT, HQ, CFO), refunds or payments from someone, parts from a place
    and a bridge's collapse are no firm."""
    assert names(text)[1] == []
