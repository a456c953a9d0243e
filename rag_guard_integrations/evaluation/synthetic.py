"""A deterministic synthetic contract corpus and (query, principal) cases for the leakage run.

Clauses of one kind are paraphrased differently per contract and worded alike across contract
types, so embedding search finds the clause's neighbourhood but cannot tell whose it is.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from rag_guard_integrations.core.chunk import Chunk

CONTRACT_TYPES = ("MSA", "SOW", "NDA", "DPA", "CHANNEL", "LICENSE")
PARTIES = (
    "Acme Corp",
    "Globex",
    "Initech",
    "Umbrella Ltd",
    "Hooli",
    "Vandelay Industries",
    "Stark Supplies",
    "Wayne Logistics",
    "Tyrell Systems",
    "Soylent Foods",
)
STATES = ("New York", "Delaware", "California", "Texas", "Illinois", "England and Wales")
NUMBER_WORDS = {
    10: "ten",
    15: "fifteen",
    20: "twenty",
    30: "thirty",
    45: "forty-five",
    60: "sixty",
    90: "ninety",
    120: "one hundred twenty",
}

CLAUSES: dict[str, tuple[str, ...]] = {
    "TERMINATION_NOTICE": (
        "Either party may terminate this {doc} for convenience upon {days} days' prior written "
        "notice to the other party.",
        "{party} may end this {doc} at any time by giving {days} days' written notice of "
        "termination.",
        "This {doc} may be terminated without cause by either party on not less than {days} "
        "days' written notice.",
    ),
    "TERMINATION_FOR_CAUSE": (
        "Either party may terminate this {doc} if the other party materially breaches it and "
        "fails to cure the breach within {days} days after written notice of the breach.",
        "If {party} commits a material breach of this {doc} that remains uncured {days} days "
        "after notice, the other party may terminate this {doc} for cause.",
    ),
    "GOVERNING_LAW": (
        "This {doc} shall be governed by and construed in accordance with the laws of {state}.",
        "The laws of {state} govern this {doc}, without regard to its conflict of laws rules.",
    ),
    "LIMITATION_OF_LIABILITY": (
        "In no event shall either party's aggregate liability under this {doc} exceed the fees "
        "paid in the {months} months preceding the claim.",
        "Each party's total liability arising out of this {doc} is limited to the amounts paid "
        "by {party} during the {months} months before the event giving rise to liability.",
    ),
    "CONFIDENTIALITY_TERM": (
        "The obligations of confidentiality under this {doc} survive for {years} years after its "
        "termination or expiration.",
        "Each party shall keep the other party's Confidential Information confidential for a "
        "period of {years} years from the date of disclosure.",
    ),
    "PAYMENT_TERMS": (
        "{party} shall pay each undisputed invoice within {days} days of the invoice date.",
        "All invoices under this {doc} are due and payable {days} days after receipt; late "
        "payments bear interest at one percent per month.",
    ),
    "RENEWAL": (
        "This {doc} shall automatically renew for successive one-year terms unless either party "
        "gives notice of non-renewal at least {days} days before the end of the current term.",
        "After the initial term, this {doc} renews automatically for additional {months}-month "
        "renewal terms unless terminated in accordance with its terms.",
    ),
    "ASSIGNMENT": (
        "Neither party may assign this {doc} without the prior written consent of the other "
        "party, except to a successor in a merger or sale of substantially all of its assets.",
        "{party} shall not assign or transfer any of its rights or obligations under this {doc} "
        "without the other party's prior written consent.",
    ),
}
QUESTIONS: dict[str, tuple[str, ...]] = {
    "TERMINATION_NOTICE": (
        "What is the termination notice period?",
        "How much notice do we need to give to terminate the contract?",
        "Can we end the agreement for convenience, and with what notice?",
    ),
    "TERMINATION_FOR_CAUSE": (
        "Can we terminate if the other side breaches the agreement?",
        "What is the cure period before termination for cause?",
    ),
    "GOVERNING_LAW": ("What is the governing law?", "Which state's law applies to the contract?"),
    "LIMITATION_OF_LIABILITY": (
        "What is the liability cap?",
        "Is there a limitation of liability, and how much is it?",
    ),
    "CONFIDENTIALITY_TERM": (
        "How long do the confidentiality obligations last?",
        "What is the confidentiality period?",
    ),
    "PAYMENT_TERMS": ("What are the payment terms?", "When are invoices due?"),
    "RENEWAL": ("Does the contract renew automatically?", "What are the renewal terms?"),
    "ASSIGNMENT": (
        "Can the agreement be assigned to another company?",
        "Are we allowed to assign this contract?",
    ),
}
DOC_NAMES = {
    "MSA": "Agreement",
    "SOW": "Statement of Work",
    "NDA": "Agreement",
    "DPA": "Addendum",
    "CHANNEL": "Agreement",
    "LICENSE": "License Agreement",
}


@dataclass(frozen=True, slots=True)
class Case:
    """One evaluation case: a question about one clause, asked by a principal."""

    query: str
    clause_id: str
    allowed_types: frozenset[str]


def _days(rng: random.Random) -> str:
    days = rng.choice(sorted(NUMBER_WORDS))
    return f"{NUMBER_WORDS[days]} ({days})" if rng.random() < 0.5 else str(days)


def generate_corpus(contracts: int = 200, seed: int = 13) -> list[Chunk]:
    """``contracts`` contracts, each with one chunk per clause id, deterministic for ``seed``."""
    rng = random.Random(seed)
    chunks = []
    for number in range(contracts):
        contract_type = CONTRACT_TYPES[number % len(CONTRACT_TYPES)]
        contract_id = f"{contract_type}-{number:04d}"
        for clause_id, templates in CLAUSES.items():
            text = rng.choice(templates).format(
                doc=DOC_NAMES[contract_type],
                party=rng.choice(PARTIES),
                state=rng.choice(STATES),
                days=_days(rng),
                months=rng.choice((6, 12, 24)),
                years=rng.choice((2, 3, 5)),
            )
            meta = {
                "contract_type": contract_type,
                "contract_id": contract_id,
                "clause_id": clause_id,
            }
            chunks.append(Chunk(text, meta, id=f"{contract_id}:{clause_id}"))
    return chunks


def generate_cases(count: int = 1000, seed: int = 17) -> list[Case]:
    """``count`` cases: a random clause question and an allowlist of one or two contract types."""
    rng = random.Random(seed)
    cases = []
    for _ in range(count):
        clause_id = rng.choice(sorted(QUESTIONS))
        allowed = frozenset(rng.sample(CONTRACT_TYPES, rng.choice((1, 1, 2))))
        cases.append(Case(rng.choice(QUESTIONS[clause_id]), clause_id, allowed))
    return cases
