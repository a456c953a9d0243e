"""The query side of the clause guard: questions that name a contract type, ask for a summary,
or ask about termination without naming the kind; judged through Guard.check, the pushdown
filter and a LangChain chain whose chat model shows what it was given."""

from __future__ import annotations

import pytest
from langchain_support import ListRetriever, contract_documents

from rag_guard_integrations import Guard, PolicyError, parse_policy
from rag_guard_integrations.core.constraints import Allowed
from rag_guard_integrations.core.normalize import normalize
from rag_guard_integrations.data import load_corpus
from rag_guard_integrations.guards.clause_query import QueryReader
from rag_guard_integrations.langchain import GuardedRetriever, build_rag_chain
from rag_guard_integrations.langchain.testing import EchoContextChat

GUARD = Guard.from_policy("contracts")
CORPUS = load_corpus("contracts")
REFUSAL = "No authorized matching clause found."
UNSEEN_SOW = f"{REFUSAL} The question names SOW, which you are not authorised to see."


def allowed(query: str, *types: str) -> list[tuple[str, str]]:
    """(contract_type, clause_id) of the bundled chunks the guard allows for ``query``."""
    result = GUARD.check(query, CORPUS, access={"contract_type": list(types)})
    return sorted((c.metadata["contract_type"], c.metadata["clause_id"]) for c in result.allowed)


def test_a_summary_is_answered_from_every_clause_of_the_named_contract() -> None:
    """ "Summarize the MSA" passes every MSA clause, and no clause of the SOW the caller sees."""
    found = allowed("Summarize the MSA", "MSA", "SOW")
    assert {t for t, _ in found} == {"MSA"}
    assert len(found) == 15


def test_a_summary_naming_no_contract_uses_every_contract_the_caller_may_see() -> None:
    """An overview of "our contracts" is the access checks alone."""
    assert {t for t, _ in allowed("Give me an overview of our contracts", "NDA", "DPA")} == {
        "NDA",
        "DPA",
    }


def test_a_question_about_one_contract_type_is_answered_from_it_only() -> None:
    """A clause question naming the SOW leaves out the MSA's clause the caller may also see."""
    assert allowed("What is the governing law of the SOW?", "MSA", "SOW") == [
        ("SOW", "GOVERNING_LAW")
    ]


@pytest.mark.parametrize(
    "query",
    [
        "And for the SOW?",
        "What is the governing law of the statement of work?",
        "What is the governing law of the statement-of-work?",
        "What is the governing law under the S.O.W.?",
    ],
)
def test_naming_a_contract_type_the_caller_may_not_see_is_refused_with_the_reason(
    query: str,
) -> None:
    """An MSA caller naming the SOW gets nothing, a refusal that says why, and every chunk's
    decision gives the reason; the pushdown filter lets nothing be fetched."""
    result = GUARD.check(query, CORPUS, access={"contract_type": ["MSA"]})
    assert result.allowed == []
    assert result.refusal == UNSEEN_SOW
    msa = [d for d in result.decisions if d.chunk.metadata["contract_type"] == "MSA"]
    assert {d.reason for d in msa} == {
        "the question names contract_type 'SOW', which the caller may not see"
    }
    assert GUARD.prefilter(query, {"contract_type": ["MSA"]}) is None


def test_a_contract_type_the_caller_sees_narrows_the_pushdown_filter() -> None:
    """The named type replaces the caller's allowlist in the store filter, beside the clause."""
    access = {"contract_type": ["MSA", "SOW"]}
    summary = GUARD.prefilter("Summarize the SOW", access)
    assert summary is not None
    assert dict(summary) == {"contract_type": Allowed(frozenset({"SOW"}))}
    law = GUARD.prefilter("Which law governs the MSA?", access)
    assert law is not None
    assert dict(law) == {
        "contract_type": Allowed(frozenset({"MSA"})),
        "clause_id": Allowed(frozenset({"GOVERNING_LAW"})),
    }


@pytest.mark.parametrize(
    ("query", "clauses"),
    [
        ("Can we terminate early?", {"TERMINATION_NOTICE"}),
        ("Can we terminate?", {"TERMINATION_NOTICE", "TERMINATION_FOR_CAUSE"}),
        ("Can we terminate for breach?", {"TERMINATION_FOR_CAUSE"}),
    ],
)
def test_termination_questions_name_the_termination_clause_they_imply(
    query: str, clauses: set[str]
) -> None:
    """Ending early is the notice clause, breach the cause clause, termination alone both."""
    assert {c for _, c in allowed(query, "MSA")} == clauses


def test_a_question_naming_no_clause_or_contract_is_still_refused() -> None:
    """Small talk under ``on_no_intent: refuse`` passes nothing and gets the plain refusal."""
    result = GUARD.check("Tell me something nice.", CORPUS, access={"contract_type": ["MSA"]})
    assert (result.allowed, result.refusal) == ([], REFUSAL)


def test_mentions_come_from_the_policy_for_any_access_attribute() -> None:
    """A policy names the values of its own attribute; nothing about contracts is built in."""
    policy = parse_policy(
        "access:\n  attributes: [region]\n"
        "  mentions: {region: {EU: ['\\beurope\\w*', '\\beu\\b'], US: ['\\bus\\b']}}\n"
        "clauses:\n  LAW:\n    intents: ['\\blaw\\b']\n"
    )
    reader = QueryReader(policy.clauses, policy.access)
    scope = reader.scope(normalize("Which law applies in Europe?"), None)
    assert scope.intents == ("LAW",)
    assert scope.unseen == (("region", "EU"),)
    assert reader.scope(normalize("And the SOW?"), None).named == {}


def test_mentions_must_name_an_access_attribute() -> None:
    """A mention of an attribute the policy does not control is a load-time error."""
    with pytest.raises(PolicyError, match="mentions names 'region', which is not in access"):
        parse_policy("access:\n  attributes: [contract_type]\n  mentions: {region: {EU: [eu]}}\n")


def test_a_whole_contract_clause_takes_no_fingerprint() -> None:
    """A summary clause accepts every clause, so a fingerprint on it is a load-time error."""
    with pytest.raises(PolicyError, match="whole_contract accepts every clause"):
        parse_policy(
            "clauses:\n  ALL:\n    intents: [summary]\n    whole_contract: true\n"
            "    fingerprint: x\n"
        )


def chain_answer(question: str, *types: str) -> str:
    """What a chat model that repeats its context answers, through a guarded retriever over
    one that returns every contract clause whatever it is asked (nothing is pushed down)."""
    retriever = GuardedRetriever(
        retriever=ListRetriever(documents=contract_documents()), guard=GUARD, k=20
    )
    config = {"configurable": {"access": {"contract_type": list(types)}}}
    return str(build_rag_chain(retriever, EchoContextChat()).invoke(question, config=config))


def test_the_model_summarising_the_msa_is_given_only_msa_clauses() -> None:
    """The prompt for "Summarize the MSA" holds MSA clause texts and no SOW text."""
    answer = chain_answer("Summarize the MSA", "MSA", "SOW")
    texts = {c.metadata["contract_type"]: [] for c in CORPUS}
    for chunk in CORPUS:
        texts[chunk.metadata["contract_type"]].append(chunk.text)
    assert sum(text in answer for text in texts["MSA"]) == 15
    assert not any(text in answer for text in texts["SOW"])


def test_the_model_is_not_asked_when_the_question_names_an_unseen_contract() -> None:
    """ "And for the SOW?" from an MSA caller is answered with the refusal and its reason."""
    assert chain_answer("And for the SOW?", "MSA") == UNSEEN_SOW


def test_a_data_protection_addendum_is_named_as_the_dpa() -> None:
    """An MSA caller asking about the "Data Protection Addendum" is refused, not answered from
    the MSA."""
    result = GUARD.check(
        "What is the governing law of the Data Protection Addendum?",
        CORPUS,
        access={"contract_type": ["MSA"]},
    )
    assert result.allowed == []
    assert result.refusal is not None
    assert "DPA" in result.refusal
