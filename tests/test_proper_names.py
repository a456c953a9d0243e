"""The person and organisation recognisers on sentences written for their conventions: what
they find (with spans), what they must not (sentence starts, headings, defined terms, places,
products), Unicode and particle names, letter heads, and the names table."""

from __future__ import annotations

import gzip

import pytest

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


def names(text: str) -> tuple[list[str], list[str]]:
    """The persons and organisations of ``text``, as the text they cover."""
    found = find_names(text)
    return (
        [text[s:e] for s, e in found.persons],
        [text[s:e] for s, e in found.organizations],
    )


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


def test_a_text_in_lower_case_names_a_person_only_on_a_line_of_their_own() -> None:
    """Without capitals, a given and a family name alone on a line of a block count."""
    assert names("maria lopez\nnurse\nphone: 555 0100")[0] == ["maria lopez"]
    assert names("we met maria lopez at noon") == ([], [])


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
    assert header.startswith("# names-dataset 3.3.1, spacy-lookups-data 1.0.5;")
    assert "given rank <= 2000, family rank <= 3000" in header


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
    import importlib.util
    from importlib import resources
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "tools" / "gen_names.py"
    spec = importlib.util.spec_from_file_location("gen_names", path)
    assert spec is not None
    assert spec.loader is not None
    generator = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generator)
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
