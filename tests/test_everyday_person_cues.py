"""Persons named the way everyday text names them: by whose relative, friend or colleague they
are, by the service they give, after a relative's title, beside another given name that shares
a family name, after a German title, and, in text written all in lower case, beside a word
that says they speak or are spoken to, after an honorific, or listed with another name."""

from __future__ import annotations

import pytest
from names_support import persons


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("My grandmother Evpraksiya still bakes every Sunday.", "Evpraksiya"),
        ("We visited his cousin Ruslanbek Tsechoev in spring.", "Ruslanbek Tsechoev"),
        ("We thanked his coach, Baptiste, after the final.", "Baptiste"),
        ("The waitress, Yusra, brought the bill.", "Yusra"),
        ("Lunch at Tío Wenceslao is always long.", "Wenceslao"),
        ("The account was opened by Marlon and Keisha Jackson in 2020.", "Marlon"),
        ("z. Hd. Herrn Wolfram Kettler, Lindenweg 4", "Wolfram Kettler"),
        ("Enrico shouted at Gary across the yard.", "Gary"),
        ("She smiled at Anneliese and left.", "Anneliese"),
        ("The nurse smiled at Jane Smith.", "Jane Smith"),  # after a job: still no workplace
        ("The agent shouted at Okafor about the card.", "Okafor"),
        ("Card 4111 1111 1111 1111 issued to Mark Smith.", "Mark Smith"),  # a worded given name
        ("Grace Wilson called about her card.", "Grace Wilson"),
        ("Card 4111 1111 1111 1111 issued to Jack McAllister.", "Jack McAllister"),
        ("Card 4111 1111 1111 1111 issued to Faith O'Brien.", "Faith O'Brien"),
        ("Card 4111 1111 1111 1111 issued to DAWN HARTLEY.", "DAWN HARTLEY"),  # embossed
        ("Patient Grace Field has asthma.", "Grace Field"),  # a worded family name, after a cue
    ],
)
def test_a_relative_a_colleague_a_server_or_a_title_names_a_person(text: str, name: str) -> None:
    """Whose someone is, the service they give, a relative's or a German title, what one does
    at someone, or a shared family name makes the word after it (or before it) a person's
    name; a family name makes a given name that is also a word (``Mark``, ``Grace``) one."""
    assert name in persons(text)


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("omg bogdana said the bus is late again", ["bogdana"]),
        ("texted ifeoma but no reply yet", ["ifeoma"]),
        ("did you ask dr mensah about the results", ["mensah"]),
        ("sipho, nomvula and themba are driving up tomorrow", ["sipho", "nomvula", "themba"]),
        ("apparently josé says the shop is shut", ["josé"]),
        ("ok i think her name was radka, she left a number", ["radka"]),
    ],
)
def test_lower_case_chat_names_who_speaks_is_spoken_to_or_is_listed(
    text: str, names: list[str]
) -> None:
    """In text written all in lower case a given name that is no common word or place is a
    person beside a word of speaking or being spoken to, after an honorific, or in a list of
    such names; marks in the name do not hide it."""
    assert persons(text) == names


@pytest.mark.parametrize(
    "text",
    [
        "sis said the party is off",
        "ask mr. about the parking",
        "the kids loved the flan",
        "we said goodbye at the station",
        "My cousin's car broke down.",
        "The manager said the shop opens at nine.",
        "Walk down Mark Lane to the office.",
        "Meet me in the Rose Garden at noon.",
        "MARK LANE OFFICE HOURS",
        "Grace Hill is a lovely spot for a walk.",  # a worded family name, no cue
        "Rose Quartz pendant, paid by card.",  # a word the names table lacks: no family name
    ],
)
def test_family_calls_titles_and_plain_words_make_no_person(text: str) -> None:
    """What family call each other, a title with no name after it, words that are no given
    name, and a cue with no name beside it give no person."""
    assert persons(text) == []
