"""Names in the forms records, logs and minutes write them: a firm's legal form before the next
sentence, two initials before a family name, a numbered field's label, a role or a job written
as a title, whoever a task goes to, the cells of a table under a name's column, a clinic's
name, and a list of full names that is no inverted name."""

from __future__ import annotations

import pytest
from names_support import names, persons


@pytest.mark.parametrize(
    ("text", "person"),
    [
        ("Report countersigned by K. A. Mensah yesterday.", "K. A. Mensah"),
        ("Seat 2: Anjali Verma. Seat 3: Rohan Verma.", "Rohan Verma"),
        ("Daughter Losa Tuimavave rang the ward at noon.", "Losa Tuimavave"),
        ("Caller Tomasz Zielinski reported the outage.", "Tomasz Zielinski"),
        ("[09:15] Agent Radka: How can I help today?", "Radka"),
        ("Manager Okafor approved the refund.", "Okafor"),
        ("ACTION: Ingrid to circulate the agenda by Monday.", "Ingrid"),
        ("Next steps: (3) Tendai to chase the supplier", "Tendai"),
    ],
)
def test_a_record_s_label_a_title_or_a_task_names_a_person(text: str, person: str) -> None:
    """A numbered field's label, a role or job written as a title, two initials, or a task
    given in minutes makes the words after it (or before ``to``) a person's name."""
    assert person in persons(text)


@pytest.mark.parametrize(
    ("text", "organization"),
    [
        ("Invoice settled with Kestrel Freight Ltd. Previous balance was zero.", "Kestrel"),
        ("Claim against Borrowdale Haulage LLC. Counsel appeared for both.", "Borrowdale"),
        ("She was transferred to Hollins Infirmary overnight.", "Hollins Infirmary"),
        ("Bloods were taken at Westbrook Medical Centre.", "Westbrook Medical Centre"),
    ],
)
def test_a_legal_form_before_the_next_sentence_or_a_clinic_names_a_firm(
    text: str, organization: str
) -> None:
    """A legal form with its period ends the firm's name when the next sentence starts, and
    an infirmary or a medical centre is an organisation."""
    assert any(organization in found for found in names(text)[1])


def test_the_cells_under_a_name_s_column_are_names() -> None:
    """A CSV export's header names which columns hold persons and firms; every row's cell
    there counts, whatever the words, and the other cells do not."""
    text = (
        "id,first_name,surname,company,city\n"
        "1,Ayodele,Ogunleye,Harrowgate Mills,Leeds\n"
        "2,Ines,Carvalho,,Porto\n"
    )
    found_persons, found_organizations = names(text)
    assert found_persons == ["Ayodele", "Ogunleye", "Ines", "Carvalho"]
    assert found_organizations == ["Harrowgate Mills"]


def test_a_list_of_full_names_is_not_an_inverted_name() -> None:
    """``Al-Sayed, Leon Thomas`` is not read as family name, comma, given names when
    ``Al-Sayed`` ends the full name before it."""
    assert persons("Finalists: Karim Al-Sayed, Leon Thomas and Priya Nair.") == [
        "Karim Al-Sayed",
        "Leon Thomas",
        "Priya Nair",
    ]


@pytest.mark.parametrize(
    "text",
    [
        "Paris to host the summit next year.",
        "Open the Manager Console to change it.",
        "Our estate agent Foxtons sold the flat.",
        "She lives at 12 Anna Road.",
        "name,price\nBasic Plan,9.99\nFamily Plan,14.99",
        "We met in the City Centre.",
        "task,owner\nBackups,Ops Team\nAudit,TBD\nPatching,Unassigned\nOnboarding,Vacant",
        "- Legal to review the lease\n- Facilities to book the van",
        "Open the Inspector Panel to see the layout.",
        "Open Manager Settings to add a user.",
        "Final grade: B. A. Distinction.",
    ],
)
def test_places_products_and_firms_in_those_forms_stay_unnamed(text: str) -> None:
    """A place before ``to``, a job word in lower case or before a word no name table holds, a
    house number, a column called only ``name``, a city centre, a team, a placeholder or a
    department in a table or a to-do list, and a degree after initials name nobody."""
    assert persons(text) == []


def test_a_firm_column_s_placeholders_are_no_firms() -> None:
    """A single common word in a firm's column (``Retired``, ``Self-employed``) is no
    organisation; a firm's name beside them is."""
    text = "employee,company\nAda Nwosu,Retired\nLiam Byrne,Self-employed\nMei Tan,Harlow Glass Ltd"
    assert names(text)[1] == ["Harlow Glass Ltd"]


@pytest.mark.parametrize(
    ("text", "person"),
    [
        ("Cardholder jane roe, card number 4111 1111 1111 1111.", "jane roe"),
        ("Patient name: ana silva, DOB 1990-01-01", "ana silva"),
        ("Customer = maria lopez; plan: gold", "maria lopez"),
        ("Cardholder jean de la fontaine, card 4111 1111 1111 1111", "jean de la fontaine"),
        ("Patient jane.roe, DOB 1990-01-01", "jane.roe"),
        ("Cardholder jane  roe, card 4111 1111 1111 1111", "jane  roe"),
        ("Cardholder maría garcía, card 4111 1111 1111 1111", "maría garcía"),
        ("Cardholder jane roe-smith, card 4111 1111 1111 1111", "jane roe-smith"),
        ("Cardholder jane r. roe, card 4111 1111 1111 1111", "jane r. roe"),
        ("Policyholder: jane roe", "jane roe"),
        ("Name | jane roe", "jane roe"),
    ],
)
def test_a_name_in_lower_case_after_a_persons_label_is_a_person(text: str, person: str) -> None:
    """In a text with capitals elsewhere, a given and a family name written in lower case right
    after a label naming a person are that person, with particles between or joined by a
    dot."""
    assert persons(text) == [person]


@pytest.mark.parametrize(
    "text",
    [
        "Customer service is closed today.",
        "Member since 2019, renewed online.",
        "Contact us now.",
        "Name: john.py",
    ],
)
def test_lower_case_words_after_a_persons_label_that_are_no_name_name_none(text: str) -> None:
    """Words that are not a given and a family name of the table stay words."""
    assert persons(text) == []
