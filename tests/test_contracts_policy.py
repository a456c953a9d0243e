"""The bundled contract corpus and the built-in ``contracts`` policy: fingerprints and intents."""

from __future__ import annotations

import itertools
import re

import pytest

from rag_guard_integrations import load_policy
from rag_guard_integrations.core.normalize import normalize
from rag_guard_integrations.core.patterns import compile_pattern
from rag_guard_integrations.data import load_corpus
from rag_guard_integrations.guards.clause import ClauseGuard

POLICY = load_policy("contracts")
CORPUS = load_corpus("contracts")
CONTRACT_TYPES = ("MSA", "SOW", "CHANNEL", "NDA", "DPA")
# The clauses a chunk can be (a whole_contract clause is a kind of question, not of chunk).
CLAUSE_IDS = tuple(c for c, spec in POLICY.clauses.items() if not spec.whole_contract)
GUARD = ClauseGuard(POLICY.clauses)


def fingerprint_matches(clause_id: str, text: str) -> bool:
    """Whether the clause's fingerprint matches ``text`` as the guard sees it (normalised)."""
    fingerprint = POLICY.clauses[clause_id].fingerprint_regex
    assert fingerprint is not None
    return compile_pattern(fingerprint).search(normalize(text)) is not None


def detect(query: str) -> tuple[str, ...]:
    """The clause ids the clause guard detects in a raw query."""
    return GUARD.detect(normalize(query))


def obfuscate_zero_width(text: str) -> str:
    """Put a zero-width space inside every word and a soft hyphen after every third letter."""
    words = [w[:1] + "\u200b" + w[1:] for w in text.split(" ")]
    return "".join(c + "\u00ad" if i % 3 == 2 else c for i, c in enumerate(" ".join(words)))


def full_width(text: str) -> str:
    """The full-width form of every printable ASCII character (and an ideographic space)."""
    return "".join(
        "\u3000" if c == " " else chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text
    )


# --- the policy ------------------------------------------------------------------------------


def test_policy_is_the_clause_guard_on_the_base_pack() -> None:
    """The built-in policy is access on contract_type plus clauses; its only rule is the base
    pack's block on unclassified content."""
    assert POLICY.name == "contracts"
    assert POLICY.version == 1
    assert POLICY.access.attributes == ["contract_type"]
    assert POLICY.domain is None
    assert [rule.name for rule in POLICY.rules] == ["unclassified_content"]
    assert set(POLICY.labels) == {"unclassified"}


@pytest.mark.parametrize("clause_id", CLAUSE_IDS)
def test_every_clause_is_described_and_fingerprinted(clause_id: str) -> None:
    """Each clause has a description, at least one intent and a fingerprint."""
    spec = POLICY.clauses[clause_id]
    assert spec.description
    assert spec.intents
    assert spec.fingerprint


def test_the_overview_is_the_only_whole_contract_clause() -> None:
    """CONTRACT_OVERVIEW answers summaries from every clause, so it has no fingerprint."""
    whole = [c for c, spec in POLICY.clauses.items() if spec.whole_contract]
    assert whole == ["CONTRACT_OVERVIEW"]
    assert POLICY.clauses["CONTRACT_OVERVIEW"].fingerprint is None


# --- the corpus ------------------------------------------------------------------------------


def test_corpus_is_every_contract_type_times_every_clause_once() -> None:
    """Exactly one chunk per (contract_type, clause_id) over 5 types and every policy clause."""
    pairs = [(c.metadata["contract_type"], c.metadata["clause_id"]) for c in CORPUS]
    assert len(CLAUSE_IDS) >= 10
    assert sorted(pairs) == sorted(itertools.product(CONTRACT_TYPES, CLAUSE_IDS))


def test_corpus_records_carry_ids_and_metadata() -> None:
    """Every chunk has a unique id, a title, and the one contract_id of its contract type."""
    assert len({c.id for c in CORPUS}) == len(CORPUS)
    contract_ids = {(c.metadata["contract_type"], c.metadata["contract_id"]) for c in CORPUS}
    assert len(contract_ids) == len(CONTRACT_TYPES)
    assert all(c.id and c.metadata["contract_id"] and c.metadata["title"] for c in CORPUS)


@pytest.mark.parametrize("chunk", CORPUS, ids=lambda c: c.id)
def test_corpus_clauses_are_one_to_three_sentences(chunk) -> None:  # type: ignore[no-untyped-def]
    """A chunk is a short clause: one to three sentences."""
    sentences = [s for s in re.split(r"(?<=[.;])\s+", chunk.text.strip()) if s]
    assert 1 <= len(sentences) <= 3


@pytest.mark.parametrize(
    ("contract_type", "clause_id", "phrase"),
    [
        ("MSA", "TERMINATION_NOTICE", "thirty (30) days' written notice"),
        ("MSA", "TERMINATION_FOR_CAUSE", "fifteen (15) days to cure"),
        ("SOW", "TERMINATION_NOTICE", "45 days' written notice"),
        ("CHANNEL", "TERMINATION_NOTICE", "twenty (20) business days' written notice"),
    ],
)
def test_original_example_clauses_are_present(
    contract_type: str, clause_id: str, phrase: str
) -> None:
    """The four clauses of the original example keep their periods word for word."""
    (chunk,) = [
        c
        for c in CORPUS
        if c.metadata["contract_type"] == contract_type and c.metadata["clause_id"] == clause_id
    ]
    assert phrase in chunk.text


def test_termination_notice_periods_differ_by_contract_type() -> None:
    """NDA and DPA termination notices state periods of their own, unlike MSA, SOW and CHANNEL."""
    notices = {
        c.metadata["contract_type"]: c.text
        for c in CORPUS
        if c.metadata["clause_id"] == "TERMINATION_NOTICE"
    }
    period = re.compile(r"\S+ (?:\(\d+\) )?(?:business )?days' written notice")
    found = {t: period.findall(text) for t, text in notices.items()}
    assert all(len(periods) == 1 for periods in found.values())
    assert len({periods[0] for periods in found.values()}) == len(CONTRACT_TYPES)


# --- fingerprints ----------------------------------------------------------------------------


@pytest.mark.parametrize("clause_id", CLAUSE_IDS)
def test_fingerprint_matches_its_chunks_and_no_other(clause_id: str) -> None:
    """A fingerprint matches every corpus chunk of its clause and none of another clause."""
    for chunk in CORPUS:
        own = chunk.metadata["clause_id"] == clause_id
        assert fingerprint_matches(clause_id, chunk.text) is own, chunk.id


@pytest.mark.parametrize("chunk", CORPUS, ids=lambda c: c.id)
def test_fingerprints_survive_obfuscated_chunk_text(chunk) -> None:  # type: ignore[no-untyped-def]
    """Zero-width, soft-hyphen, full-width and curly-apostrophe variants still match."""
    clause_id = chunk.metadata["clause_id"]
    for variant in (
        obfuscate_zero_width(chunk.text),
        full_width(chunk.text),
        chunk.text.replace("'", "\u2019"),
    ):
        assert fingerprint_matches(clause_id, variant)


GENERAL_DRAFTING = [
    ("TERMINATION_NOTICE", "Either Party may terminate this Agreement upon ninety (90) days' prior written notice to the other Party."),  # noqa: E501
    ("TERMINATION_NOTICE", "Customer may cancel this Agreement at any time on 60 days notice."),
    ("TERMINATION_NOTICE", "This Agreement may be terminated by either party giving not less than three months' written notice."),  # noqa: E501
    ("TERMINATION_NOTICE", "The Supplier may terminate the Contract by giving the Buyer at least one month\u2019s notice in writing."),  # noqa: E501
    ("TERMINATION_NOTICE", "Either party may give notice of non-renewal no later than sixty (60) days prior to the end of the then-current term."),  # noqa: E501
    ("TERMINATION_FOR_CAUSE", "Either party may terminate this Agreement immediately if the other party commits a material breach which is not remedied within thirty (30) days of written notice."),  # noqa: E501
    ("TERMINATION_FOR_CAUSE", "The Company may terminate this Agreement forthwith if the Consultant becomes insolvent or bankrupt."),  # noqa: E501
    ("GOVERNING_LAW", "This Agreement shall be governed by the laws of the State of Delaware."),
    ("GOVERNING_LAW", "The validity and interpretation of this Contract shall be construed under the law of Singapore."),  # noqa: E501
    ("LIMITATION_OF_LIABILITY", "In no event shall Supplier's aggregate liability exceed the total fees paid under this Agreement."),  # noqa: E501
    ("LIMITATION_OF_LIABILITY", "Neither party shall be liable for any lost profits or consequential damages."),  # noqa: E501
    ("CONFIDENTIALITY_TERM", "The obligations of confidentiality in this Section shall survive termination of this Agreement for a period of five (5) years."),  # noqa: E501
    ("CONFIDENTIALITY_TERM", "Recipient shall hold all Confidential Information in confidence for a period of three years from the date of disclosure."),  # noqa: E501
    ("PAYMENT_TERMS", "All invoices are due and payable within thirty (30) days of receipt."),
    ("PAYMENT_TERMS", "Payment terms are net 45 from the date of invoice."),
    ("RENEWAL", "This Agreement shall automatically renew for successive one-year periods unless either party objects."),  # noqa: E501
    ("RENEWAL", "The Licensee shall have the option to renew this Agreement for two additional terms of five years each."),  # noqa: E501
    ("ASSIGNMENT", "Supplier may not assign, delegate or otherwise transfer its obligations without Customer's approval."),  # noqa: E501
    ("ASSIGNMENT", "Any purported assignment in violation of this Section is null and void."),
    ("NON_COMPETE", "During the Term, Distributor shall not manufacture or sell any products that compete with the Products."),  # noqa: E501
    ("NON_COMPETE", "Seller agrees to a non-competition covenant for a period of three years."),
    ("EXCLUSIVITY", "Supplier hereby appoints Distributor as its exclusive distributor in the Territory."),  # noqa: E501
    ("EXCLUSIVITY", "Customer shall purchase all of its requirements of the Products exclusively from Supplier."),  # noqa: E501
    ("AUDIT_RIGHTS", "The Customer shall have the right to inspect the Supplier's books relating to the Charges."),  # noqa: E501
    ("INSURANCE", "The Supplier shall name the Customer as an additional insured under its policies."),  # noqa: E501
    ("CHANGE_OF_CONTROL", "If any person acquires more than fifty percent of the voting shares of Supplier, Customer may terminate."),  # noqa: E501
    ("NON_SOLICIT", "For one year after termination, Consultant shall not recruit any personnel of the Company."),  # noqa: E501
    ("WARRANTY", "The Seller warrants that the Goods will be free from defects for a period of twelve months from delivery."),  # noqa: E501
    ("WARRANTY", "The warranty period is one (1) year from installation."),
    ("TERMINATION_NOTICE", "Either party may elect not to renew by written notice given at least 90 days prior to the date of expiration of the Term."),  # noqa: E501
    ("TERMINATION_NOTICE", "Pursuant to Section 8.3, Buyer may terminate this Agreement for convenience upon sixty (60) days written notice."),  # noqa: E501
    ("GOVERNING_LAW", "This Agreement shall be controlled by the laws of the Republic of India."),
    ("GOVERNING_LAW", "This Agreement will be construed in accordance with the laws of England and Wales."),  # noqa: E501
    ("LIMITATION_OF_LIABILITY", "The Contractor's total damages shall not exceed ten percent of the value of the Contract."),  # noqa: E501
    ("ASSIGNMENT", "The Distributor may not assign this Agreement."),
    ("ASSIGNMENT", "This Agreement shall not be assigned by either party."),
    ("EXCLUSIVITY", "During the Term, the Company will be the exclusive presenting sponsor of the Event."),  # noqa: E501
    ("AUDIT_RIGHTS", "All such records shall be open to inspection and examination by the Licensor."),  # noqa: E501
    ("RENEWAL", "This Agreement shall thereafter be renewed for further terms of one (1) year."),
    ("CHANGE_OF_CONTROL", "If the Supplier is acquired by a competitor of the Customer, the Customer may terminate."),  # noqa: E501
    ("WARRANTY", "Any Product found defective within twelve (12) months after delivery will be repaired or replaced."),  # noqa: E501
    ("ASSIGNMENT", "Neither party may assign this Agreement to any third party."),
    ("GOVERNING_LAW", "All disputes shall be resolved under the laws of the State of New York."),
    ("EXCLUSIVITY", "Supplier shall be the sole supplier of the Products to Buyer."),
    ("NON_COMPETE", "Seller shall not open a store within 10 miles of the Premises."),
    ("AUDIT_RIGHTS", "Supplier shall permit Buyer's representatives to enter its facilities to verify compliance."),  # noqa: E501
    ("CHANGE_OF_CONTROL", "Any transaction in which a third party obtains control of Licensee requires notice."),  # noqa: E501
    ("RENEWAL", "This Agreement will renew each year unless cancelled."),
    ("TERMINATION_NOTICE", "Customer may end this Agreement on 30 days' notice."),
]  # fmt: skip


@pytest.mark.parametrize(("clause_id", "text"), GENERAL_DRAFTING)
def test_fingerprint_matches_common_drafting(clause_id: str, text: str) -> None:
    """Fingerprints follow how such clauses are generally drafted, not only the bundled wording."""
    assert fingerprint_matches(clause_id, text)


@pytest.mark.parametrize(
    ("clause_id", "text"),
    [
        ("TERMINATION_NOTICE", "If either party materially breaches this Agreement and fails to cure the breach within thirty (30) days after written notice, the other party may terminate it immediately."),  # noqa: E501
        ("TERMINATION_NOTICE", "Licensee shall give Licensor thirty (30) days' prior written notice of any audit."),  # noqa: E501
        ("TERMINATION_NOTICE", "Prices may change on sixty (60) days' prior written notice."),
        ("ASSIGNMENT", "Consultant hereby assigns to the Company all right, title and interest in the Work Product."),  # noqa: E501
        ("GOVERNING_LAW", "Supplier shall comply with all applicable laws."),
        ("LIMITATION_OF_LIABILITY", "Provider shall maintain general liability insurance of at least USD 1,000,000."),  # noqa: E501
        ("EXCLUSIVITY", "Licensor grants Licensee a non-exclusive licence to use the Software."),
    ],
)  # fmt: skip
def test_fingerprint_rejects_lookalike_clauses(clause_id: str, text: str) -> None:
    """A cure period, an audit notice, an IP assignment and the like are not the clause."""
    assert not fingerprint_matches(clause_id, text)


# --- intents ---------------------------------------------------------------------------------

INTENT_TABLE = [
    ("What is the termination notice period?", ("TERMINATION_NOTICE",)),
    ("How much notice do we need to give to end the contract?", ("TERMINATION_NOTICE",)),
    ("how many days' notice to terminate the MSA?", ("TERMINATION_NOTICE",)),
    ("Can we terminate for convenience?", ("TERMINATION_NOTICE",)),
    ("Can the customer terminate without cause?", ("TERMINATION_NOTICE",)),
    ("What is the notice period?", ("TERMINATION_NOTICE",)),
    ("How much notice is needed to cancel the agreement?", ("TERMINATION_NOTICE",)),
    ("Can we terminate for breach?", ("TERMINATION_FOR_CAUSE",)),
    ("What is the cure period?", ("TERMINATION_FOR_CAUSE",)),
    ("How long does the vendor have to cure a material breach?", ("TERMINATION_FOR_CAUSE",)),
    ("Can the agreement be terminated if the other side defaults?", ("TERMINATION_FOR_CAUSE",)),
    ("termination for cause", ("TERMINATION_FOR_CAUSE",)),
    ("What is the governing law?", ("GOVERNING_LAW",)),
    ("Which state's law applies?", ("GOVERNING_LAW",)),
    ("which country\u2019s laws govern this agreement", ("GOVERNING_LAW",)),
    ("Which courts hear disputes?", ("GOVERNING_LAW",)),
    ("What is the liability cap?", ("LIMITATION_OF_LIABILITY",)),
    ("Is there a cap on liability?", ("LIMITATION_OF_LIABILITY",)),
    ("Are consequential damages excluded?", ("LIMITATION_OF_LIABILITY",)),
    ("What is the maximum liability of the provider?", ("LIMITATION_OF_LIABILITY",)),
    ("How long do confidentiality obligations last?", ("CONFIDENTIALITY_TERM",)),
    ("How long must we keep their information secret?", ("CONFIDENTIALITY_TERM",)),
    ("Does the NDA expire?", ("CONFIDENTIALITY_TERM",)),
    ("Do confidentiality obligations survive termination?", ("CONFIDENTIALITY_TERM",)),
    ("What are the payment terms?", ("PAYMENT_TERMS",)),
    ("When are invoices due?", ("PAYMENT_TERMS",)),
    ("How many days do we have to pay an invoice?", ("PAYMENT_TERMS",)),
    ("Is there interest on late payments?", ("PAYMENT_TERMS",)),
    ("Does the agreement renew automatically?", ("RENEWAL",)),
    ("Will the contract auto-renew?", ("RENEWAL",)),
    ("Is it an evergreen contract?", ("RENEWAL",)),
    ("Can we assign the agreement?", ("ASSIGNMENT",)),
    ("Can the vendor transfer the contract to an affiliate?", ("ASSIGNMENT",)),
    ("Can the processor subcontract the processing?", ("ASSIGNMENT",)),
    ("Is there a non-compete?", ("NON_COMPETE",)),
    ("Can the partner sell competing products?", ("NON_COMPETE",)),
    ("Are we restricted from working with competitors?", ("NON_COMPETE",)),
    ("Is the reseller exclusive?", ("EXCLUSIVITY",)),
    ("Are they our sole provider?", ("EXCLUSIVITY",)),
    ("Can we audit the vendor?", ("AUDIT_RIGHTS",)),
    ("Can the controller inspect the processor's records?", ("AUDIT_RIGHTS",)),
    ("What notice is needed before an audit?", ("AUDIT_RIGHTS",)),
    ("What insurance must the provider carry?", ("INSURANCE",)),
    ("What liability insurance is required?", ("INSURANCE",)),
    ("What happens on a change of control?", ("CHANGE_OF_CONTROL",)),
    ("What if the vendor is acquired?", ("CHANGE_OF_CONTROL",)),
    ("What happens if the partner merges with a competitor?", ("CHANGE_OF_CONTROL",)),
    ("Can we terminate the agreement if the vendor is acquired?", ("CHANGE_OF_CONTROL",)),
    ("Can we hire their employees?", ("NON_SOLICIT",)),
    ("Is there a non-solicitation clause?", ("NON_SOLICIT",)),
    ("Can the vendor poach our staff?", ("NON_SOLICIT",)),
    ("How long is the warranty?", ("WARRANTY",)),
    ("What is the warranty period?", ("WARRANTY",)),
    ("Are the products guaranteed against defects?", ("WARRANTY",)),
    ("How long does the warranty last after termination?", ("WARRANTY",)),
    ("What is the governing law and the liability cap?", ("GOVERNING_LAW", "LIMITATION_OF_LIABILITY")),  # noqa: E501
    ("Can we assign the contract, and how much notice is needed to terminate it?", ("TERMINATION_NOTICE", "ASSIGNMENT")),  # noqa: E501
    ("What are the payment terms and does the agreement auto-renew?", ("PAYMENT_TERMS", "RENEWAL")),
    ("How much notice to prevent automatic renewal?", ("TERMINATION_NOTICE", "RENEWAL")),
    ("How long is the warranty and what insurance is required?", ("INSURANCE", "WARRANTY")),
    ("Can we terminate early?", ("TERMINATION_NOTICE",)),
    ("Is early termination allowed?", ("TERMINATION_NOTICE",)),
    ("Can we get out of the contract before it expires?", ("TERMINATION_NOTICE",)),
    ("Can we terminate?", ("TERMINATION_NOTICE", "TERMINATION_FOR_CAUSE")),
    ("How do we cancel the agreement?", ("TERMINATION_NOTICE", "TERMINATION_FOR_CAUSE")),
    ("Summarize the termination provisions", ("TERMINATION_NOTICE", "TERMINATION_FOR_CAUSE")),
    ("Summarize the MSA", ("CONTRACT_OVERVIEW",)),
    ("Give me an overview of the statement of work", ("CONTRACT_OVERVIEW",)),
    ("What are the key terms of our NDA?", ("CONTRACT_OVERVIEW",)),
    ("What does the DPA say?", ("CONTRACT_OVERVIEW",)),
    ("Summarize the governing law of the MSA", ("GOVERNING_LAW",)),
    ("How much notice must the processor give before engaging a new subprocessor?", ()),
    ("What is the price of bitcoin?", ()),
    ("Who signed the agreement?", ()),
]  # fmt: skip


@pytest.mark.parametrize(("query", "expected"), INTENT_TABLE)
def test_intents_detect_the_clauses_a_query_asks_for(query: str, expected: tuple[str, ...]) -> None:
    """Paraphrases map to their clause, several clauses when asked together, none off-topic."""
    assert detect(query) == expected


def test_intent_table_covers_every_clause() -> None:
    """Every clause of the policy is the expected answer of some query in the table."""
    assert {c for _, expected in INTENT_TABLE for c in expected} == set(POLICY.clauses)


@pytest.mark.parametrize(("query", "expected"), [row for row in INTENT_TABLE if row[1]])
def test_intents_survive_obfuscated_queries(query: str, expected: tuple[str, ...]) -> None:
    """Zero-width characters, soft hyphens and full-width forms do not hide the clause asked for."""
    assert detect(obfuscate_zero_width(query)) == expected
    assert detect(full_width(query)) == expected
