"""Evasion suite: spelling tricks never slip past a rule that the plain spelling triggers.

Every clause intent and fingerprint of the built-in ``contracts`` policy and every blocklist
term of the built-in ``bis`` policy is checked under each transformation below (zero-width,
blank and bidi characters, soft hyphens, full-width forms, combining marks, Cyrillic, Greek and
small-capital look-alikes, mixed case, extra white space and line breaks). In the other
direction, no in-domain query and no contract clause may be blocked because of the same tricks.
Each test covers one transformation over a whole family of inputs and lists every input that
failed.
"""

from __future__ import annotations

import json
import re
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from tools_support import tool_module

from rag_guard_integrations import AccessContext, Chunk, Guard, load_policy
from rag_guard_integrations.core import confusables
from rag_guard_integrations.core.normalize import normalize
from rag_guard_integrations.core.patterns import compile_pattern
from rag_guard_integrations.data import load_corpus, load_queries
from rag_guard_integrations.guards.domain_identifiers import canonical_identifier

if TYPE_CHECKING:
    from collections.abc import Callable

    from rag_guard_integrations import GuardResult

# Look-alikes by script and case: each key is the Latin letter the glyph imitates.
CYRILLIC_LOWER = dict(zip("acdehijopqswxy", "асԁеһіјорԛѕԝху", strict=True))
GREEK_LOWER = dict(zip("aeikvoptuxwn", "αεικνορτυχωη", strict=True))
CYRILLIC_UPPER = dict(zip("ABCEHIJKMOPSTXY", "АВСЕНІЈКМОРЅТХУ", strict=True))
GREEK_UPPER = dict(zip("ABEHIKMNOPTXYZ", "ΑΒΕΗΙΚΜΝΟΡΤΧΥΖ", strict=True))
SMALL_CAPITALS = dict(zip("abcdefghijklmnoprstuvwyz", "ᴀʙᴄᴅᴇꜰɢʜɪᴊᴋʟᴍɴᴏᴘʀꜱᴛᴜᴠᴡʏᴢ", strict=True))
HOMOGLYPH_TABLES = {
    "cyrillic_lower": CYRILLIC_LOWER,
    "greek_lower": GREEK_LOWER,
    "cyrillic_upper": CYRILLIC_UPPER,
    "greek_upper": GREEK_UPPER,
    "small_capitals": SMALL_CAPITALS,
}
# Zero-width characters, and blank characters that render as nothing.
ZERO_WIDTH = {"zwsp": "\u200b", "zwnj": "\u200c", "zwj": "\u200d", "wj": "\u2060", "bom": "\ufeff"}
BLANK = {"hangul_filler": "\u3164", "halfwidth_hangul_filler": "\uffa0", "braille_blank": "\u2800"}
BIDI = {f"bidi_{ord(c):04x}": c for c in "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"}
FULL_WIDTH = {i: i + 0xFEE0 for i in range(0x21, 0x7F)} | {0x20: 0x3000}
ACCENTED = str.maketrans("aeiouncAEIOUNC", "áéíóúñçÁÉÍÓÚÑÇ")
_INSIDE_WORD = re.compile(r"(?<=\w)(?=\w)")
_LETTER = re.compile(r"([A-Za-z])")


def inside_words(char: str) -> Callable[[str], str]:
    """Insert ``char`` between every two word characters."""
    return lambda text: _INSIDE_WORD.sub(char, text)


def after_letters(mark: str) -> Callable[[str], str]:
    """Put the combining ``mark`` after every ASCII letter."""
    return lambda text: _LETTER.sub(lambda m: m.group(1) + mark, text)


def look_alike(table: dict[str, str], upper: bool) -> Callable[[str], str]:
    """Case the text as the table needs, then swap every letter the table knows."""
    return lambda text: "".join(table.get(c, c) for c in (text.upper() if upper else text.lower()))


def alternate_case(text: str) -> str:
    """``tErMiNaTiOn`` style."""
    return "".join(c.upper() if i % 2 else c.lower() for i, c in enumerate(text))


def combined(text: str) -> str:
    """Several tricks at once: mixed case, look-alikes, zero-width joins and line breaks."""
    swapped = "".join(
        CYRILLIC_UPPER.get(c, c) if c.isupper() else CYRILLIC_LOWER.get(c, c)
        for c in alternate_case(text)
    )
    return inside_words("\u200d\u00ad")(swapped).replace(" ", " \u2028\t")


TRANSFORMS: dict[str, Callable[[str], str]] = {
    **{name: inside_words(char) for name, char in ZERO_WIDTH.items()},
    **{name: inside_words(char) for name, char in BLANK.items()},
    "soft_hyphen": inside_words("\u00ad"),
    **{name: inside_words(char) for name, char in BIDI.items()},
    "full_width": lambda text: text.translate(FULL_WIDTH),
    "combining_acute": after_letters("\u0301"),
    "combining_stroke": after_letters("\u0336"),
    "combining_circle": after_letters("\u20dd"),
    "accented_letters": lambda text: text.translate(ACCENTED),
    **{name: look_alike(t, name.endswith("upper")) for name, t in HOMOGLYPH_TABLES.items()},
    "alternating_case": alternate_case,
    "upper_case": str.upper,
    "spaces_and_tabs": lambda text: "  " + text.replace(" ", " \t   ") + "\t ",
    "unicode_spaces": lambda text: text.replace(" ", "\u00a0\u2003\u3000"),
    "line_feed": lambda text: text.replace(" ", "\n"),
    "crlf_breaks": lambda text: text.replace(" ", " \r\n\r\n "),
    "unicode_breaks": lambda text: text.replace(" ", "\u2028\u0085"),
    "combined": combined,
}

# At least one plain question per intent pattern of every clause (checked below).
CLAUSE_QUERIES: dict[str, list[str]] = {
    "CONTRACT_OVERVIEW": [
        "Summarize the agreement",
        "What are the key terms of the contract?",
        "What does the agreement say?",
        "Walk me through the contract",
    ],
    "TERMINATION_NOTICE": [
        "What is the notice period?",
        "Can we terminate the agreement with notice?",
        "How much notice before we cancel the contract?",
        "What notice of non-renewal is required?",
        "Can the client terminate for convenience?",
        "Can we terminate early?",
        "Is early termination allowed?",
    ],
    "TERMINATION_FOR_CAUSE": [
        "Can we terminate if the vendor is in breach?",
        "If the supplier defaults, can we terminate?",
        "What counts as a material breach?",
        "How long is the cure period?",
    ],
    "GOVERNING_LAW": [
        "What is the governing law?",
        "Which state's laws apply?",
        "What law applies to this contract?",
        "Which courts have jurisdiction?",
    ],
    "LIMITATION_OF_LIABILITY": [
        "Is there a liability cap?",
        "Is there a limitation of liability?",
        "What is the total liability of the vendor?",
        "Is liability capped?",
        "Are consequential damages excluded?",
        "How much can we recover from the supplier?",
    ],
    "CONFIDENTIALITY_TERM": [
        "How many years does confidentiality last?",
        "How long must we keep the information secret?",
        "When does the NDA expire?",
    ],
    "PAYMENT_TERMS": [
        "What are the payment terms?",
        "When do we have to pay the invoices?",
        "Are late fees charged on unpaid invoices?",
    ],
    "RENEWAL": ["Does the agreement renew automatically?", "Can we extend the term?"],
    "ASSIGNMENT": [
        "Can the vendor assign the contract?",
        "Can we transfer the agreement to an affiliate?",
        "May the supplier subcontract the work?",
    ],
    "NON_COMPETE": [
        "Is there a non-compete?",
        "Can the distributor compete with us?",
        "Can we work with a competitor?",
    ],
    "EXCLUSIVITY": ["Is the arrangement exclusive?", "Are we the sole supplier?"],
    "AUDIT_RIGHTS": [
        "Do we have audit rights?",
        "Can we inspect their books?",
        "Can we get the records to review?",
    ],
    "INSURANCE": ["What insurance must the vendor carry?"],
    "CHANGE_OF_CONTROL": [
        "What happens on a change of control?",
        "What if the supplier is acquired?",
    ],
    "NON_SOLICIT": ["Is there a non-solicitation clause?", "Can we hire their employees?"],
    "WARRANTY": ["What warranty does the vendor give?", "Who fixes defects?"],
}
QUERIES = [(clause, q) for clause, queries in CLAUSE_QUERIES.items() for q in queries]
# The case change each re-casing transformation makes before its other tricks. Case is meaning
# to tier 2 ("IS 2062" is a standard, "is 2062" may be the verb), so a re-cased query is judged
# against the plain query re-cased the same way; what case alone changes is tested apart.
CASE_CHANGE: dict[str, Callable[[str], str]] = {
    **{name: str.upper if name.endswith("upper") else str.lower for name in HOMOGLYPH_TABLES},
    "alternating_case": alternate_case,
    "upper_case": str.upper,
    "combined": alternate_case,
}
CONTRACTS = load_policy("contracts")
BIS = load_policy("bis")
BLOCKLIST = BIS.domain.blocklist if BIS.domain else []
BLOCKED_QUERIES = [(term, f"tell me about {term} today") for term in BLOCKLIST]
IN_DOMAIN = [str(q["query"]) for q in load_queries("bis") if q["in_domain"]]
# Scores between the root floor (0.20) and the dense threshold (0.45): the decision then rests
# on the lexical tiers that spelling tricks attack, and no embedding is needed.
BIS_SCORE = 0.3


@pytest.fixture(scope="module")
def contracts() -> Guard:
    return Guard(CONTRACTS)


@pytest.fixture(scope="module")
def everyone() -> AccessContext:
    types = {str(c.metadata["contract_type"]) for c in load_corpus("contracts")}
    return AccessContext(contract_type=types)


@pytest.fixture(scope="module")
def bis() -> Guard:
    return Guard(BIS)


@pytest.fixture(scope="module")
def bis_chunks() -> list[Chunk]:
    return [Chunk(c.text, c.metadata, BIS_SCORE, c.id) for c in load_corpus("bis")]


def query_outcome(result: GuardResult) -> tuple[object, ...]:
    """What a spelling trick must not change about the query decision (the evidence quotes an
    identifier as the query spelt it, so it is compared in its canonical form)."""
    q = result.query
    evidence = dict(q.evidence)
    if "identifier" in evidence:
        evidence["identifier"] = canonical_identifier(normalize(evidence["identifier"]))
    return q.allowed, q.tier, q.intents, evidence


def test_look_alike_tables_fold_to_their_latin_letter() -> None:
    """Every look-alike used below normalises to the Latin letter it imitates."""
    wrong = {
        glyph: normalize(glyph)
        for table in HOMOGLYPH_TABLES.values()
        for latin, glyph in table.items()
        if normalize(glyph) != latin.lower()
    }
    assert not wrong


@pytest.mark.parametrize("name", TRANSFORMS)
def test_every_transformation_changes_every_input(name: str) -> None:
    """No variant is vacuous: each transformation alters every query, term and clause text."""
    inputs = [q for _, q in QUERIES] + [q for _, q in BLOCKED_QUERIES] + IN_DOMAIN
    inputs += [c.text for c in load_corpus("contracts")]
    assert [text for text in inputs if TRANSFORMS[name](text) == text] == []


def test_every_intent_pattern_has_a_plain_query() -> None:
    """Each intent regex of each clause is triggered by at least one plain query of the table."""
    missing = [
        (clause, pattern)
        for clause, spec in CONTRACTS.clauses.items()
        for pattern in spec.intents
        if not any(
            compile_pattern(pattern).search(normalize(q)) for q in CLAUSE_QUERIES.get(clause, [])
        )
    ]
    assert missing == [], "add a plain query for these intents to CLAUSE_QUERIES"


@pytest.mark.parametrize("name", TRANSFORMS)
def test_intents_survive_spelling_tricks(
    name: str, contracts: Guard, everyone: AccessContext
) -> None:
    """A transformed question asks for exactly the clauses its plain spelling asks for."""
    failed = []
    for clause, query in QUERIES:
        plain = contracts.check(query, [], access=everyone).query.intents
        assert clause in plain, query
        variant = TRANSFORMS[name](query)
        if contracts.check(variant, [], access=everyone).query.intents != plain:
            failed.append(variant)
    assert failed == []


@pytest.mark.parametrize("name", TRANSFORMS)
def test_fingerprints_survive_spelling_tricks(
    name: str, contracts: Guard, everyone: AccessContext
) -> None:
    """Every bundled clause, transformed, still matches its own fingerprint and passes."""
    failed = []
    for chunk in load_corpus("contracts"):
        query = CLAUSE_QUERIES[str(chunk.metadata["clause_id"])][0]
        assert contracts.check(query, [chunk], access=everyone).allowed == [chunk], chunk.id
        variant = Chunk(TRANSFORMS[name](chunk.text), chunk.metadata, chunk.score, chunk.id)
        result = contracts.check(query, [variant], access=everyone)
        if result.allowed != [variant]:
            failed.append((chunk.id, result.decisions[0].reason))
    assert failed == []


@pytest.mark.parametrize("name", TRANSFORMS)
def test_blocklisted_queries_stay_rejected(name: str, bis: Guard, bis_chunks: list[Chunk]) -> None:
    """A transformed blocklist term is still rejected at tier 1, naming the same term."""
    failed = []
    for term, query in BLOCKED_QUERIES:
        plain = bis.check(query, bis_chunks)
        assert (plain.query.tier, plain.query.evidence.get("term")) == ("blocklist", term)
        variant = TRANSFORMS[name](query)
        result = bis.check(variant, bis_chunks)
        if query_outcome(result) != query_outcome(plain) or result.allowed:
            failed.append(variant)
    assert failed == []


@pytest.mark.parametrize("name", TRANSFORMS)
def test_in_domain_queries_are_not_blocked_by_normalisation(
    name: str, bis: Guard, bis_chunks: list[Chunk]
) -> None:
    """A transformed in-domain query is decided exactly as its plain spelling (in the same case):
    never blocklisted, and the identifier or domain-root evidence that accepted it is still
    found."""
    failed = []
    recase = CASE_CHANGE.get(name, str)
    for query in IN_DOMAIN:
        plain = bis.check(recase(query), bis_chunks)
        assert plain.query.tier != "blocklist", query
        result = bis.check(TRANSFORMS[name](query), bis_chunks)
        if query_outcome(result) != query_outcome(plain):
            failed.append((query, result.query.tier, plain.query.tier))
    assert failed == []


@pytest.mark.parametrize("recase", [str.upper, str.lower, alternate_case])
def test_case_alone_only_moves_a_word_prefixed_identifier_off_tier_two(
    recase: Callable[[str], str], bis: Guard, bis_chunks: list[Chunk]
) -> None:
    """Re-casing an in-domain query changes no decision, except that a standard named with the
    word prefix "IS" in a query that then has no case to read ("is 1239" after a noun, at the
    start) is no longer read at tier 2 and goes on to the later tiers."""
    failed = []
    for query in IN_DOMAIN:
        plain = bis.check(query, bis_chunks)
        result = bis.check(recase(query), bis_chunks)
        if query_outcome(result) == query_outcome(plain):
            continue
        named = str(plain.query.evidence.get("identifier", ""))
        word_prefixed = plain.query.tier == "identifier" and named.upper().startswith("IS ")
        if not word_prefixed or result.query.tier in {"blocklist", "identifier"}:
            failed.append((query, result.query.tier, plain.query.tier))
    assert failed == []


def uts39_prototypes() -> dict[str, str]:
    """Every non-ASCII letter whose UTS #39 prototype (the confusables data shipped by
    ``confusable-homoglyphs``) is one ASCII letter, with that letter as our normaliser reads it."""
    data = json.loads(
        resources.files("confusable_homoglyphs").joinpath("confusables.json").read_text("utf-8")
    )
    out = {}
    for char, entries in data.items():
        targets = {e["c"] for e in entries if len(e["c"]) == 1 and e["c"].isascii()}
        if len(char) == 1 and not char.isascii() and char.isalpha() and len(targets) == 1:
            (target,) = targets
            if target.isalpha():
                # UTS #39 writes capital I as l; an ASCII I reads i once case-folded.
                out[char] = "i" if char.isupper() and target == "l" else target.lower()
    return out


def test_every_uts39_letter_look_alike_folds_to_its_prototype() -> None:
    """All (over a thousand) letter look-alikes of UTS #39 fold to the ASCII letter they imitate:
    the table comes from the Unicode data, not a hand list."""
    prototypes = uts39_prototypes()
    assert len(prototypes) > 1000
    wrong = {c: normalize(c) for c, latin in prototypes.items() if normalize(c) != latin}
    assert wrong == {}


@pytest.mark.parametrize(
    "query",
    [
        "bitc\u0585in price",  # Armenian oh
        "bitc\u2c9fin price",  # Coptic o
        "b\u13a5tcoin price",  # Cherokee v (looks like i)
        "\u0432itcoin price",  # Cyrillic ve, a small capital B
        "bitcoi\u0578 price",  # Armenian vo (looks like n)
        "\U0001d41bitcoin price",  # mathematical bold b
        "bit\u217dоin price",  # small roman numeral one hundred and Cyrillic o
    ],
    ids=["armenian", "coptic", "cherokee", "cyrillic_ve", "armenian_vo", "math_bold", "roman"],
)
def test_look_alikes_of_other_scripts_do_not_slip_past_the_blocklist(
    query: str, bis: Guard, bis_chunks: list[Chunk]
) -> None:
    """``bitc\\u0585in`` is rejected at tier 1 like ``bitcoin``."""
    result = bis.check(query, bis_chunks)
    assert (result.query.tier, result.query.evidence.get("term")) == ("blocklist", "bitcoin")


def test_the_shipped_fold_table_is_what_the_generator_builds() -> None:
    """``core/confusables.py`` is up to date with the installed confusables data and Python."""
    generator = tool_module("gen_confusables")
    shipped = Path(confusables.__file__).read_text(encoding="utf-8")
    assert generator.render(generator.build()) == shipped
