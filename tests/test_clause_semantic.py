"""The semantic signal of clause fingerprints, judged through the clause guard with the real
MiniLM embedder and the bundled classifier: what it accepts and rejects, how it combines with
the regex, when it embeds, and what happens when it cannot run."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import pytest

from rag_guard_integrations import Guard, PolicyError, parse_policy
from rag_guard_integrations.core.errors import EmbedderUnavailableError
from rag_guard_integrations.guards.clause import ClauseGuard

if TYPE_CHECKING:
    from rag_guard_integrations.policy.schema import Policy

ACCESS = {"contract_type": ["MSA"]}
# Ohio law governs, said without "governed by": the regex below misses it.
PLAIN_LAW = "All questions about this Agreement are to be decided under the laws of Ohio."
INSURANCE = "Supplier shall carry general liability insurance of at least $2,000,000 per claim."
LAW_BY_REGEX = "This Agreement is governed by the laws of Ohio."


def law_policy(fingerprint: str) -> Policy:
    """A GOVERNING_LAW clause with the given fingerprint (YAML flow mapping or string)."""
    return parse_policy(
        "access: {attributes: [contract_type]}\n"
        "clauses:\n  GOVERNING_LAW:\n    intents: ['\\bgoverning law\\b']\n"
        f"    fingerprint: {fingerprint}\n"
    )


def check(policy: Policy, *texts: str, **guard: Any) -> list[str | None]:
    """The decision reasons (None: allowed) for GOVERNING_LAW chunks with these texts."""
    chunks = [{"text": t, "meta": {"contract_type": "MSA", "clause_id": "GOVERNING_LAW"}}
              for t in texts]  # fmt: skip
    result = Guard(policy, **guard).check("What is the governing law?", chunks, access=ACCESS)
    return [None if d.allowed else d.reason for d in result.decisions]


EITHER = law_policy("{regex: '\\bgoverned by\\b', semantic: {min_score: 0.5}}")


def test_the_semantic_signal_accepts_a_clause_the_regex_misses() -> None:
    """A governing-law clause in words the regex does not know passes on its meaning."""
    assert check(EITHER, PLAIN_LAW) == [None]


def test_the_semantic_signal_rejects_another_clauses_text() -> None:
    """An insurance clause tagged GOVERNING_LAW is denied, and the reason says what it is."""
    (reason,) = check(EITHER, INSURANCE)
    assert reason is not None
    assert reason.startswith("the text does not match the GOVERNING_LAW fingerprint (semantic")
    assert "nearest INSURANCE" in reason
    assert reason.endswith("below 0.50)")


def test_a_regex_match_is_accepted_without_embedding(monkeypatch: pytest.MonkeyPatch) -> None:
    """The embedder is not called for chunks the regex accepts, and is called once for all
    the chunks of a check that the regex leaves to it."""
    from rag_guard_integrations import embeddings

    real = embeddings.default_embedder()
    calls: list[int] = []

    class Counting:
        """The real MiniLM embedder, counting its batches."""

        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            calls.append(len(texts))
            return real.embed_documents(texts)

        def embed_query(self, text: str) -> list[float]:
            return self.embed_documents([text])[0]

    monkeypatch.setattr(embeddings, "default_embedder", Counting)
    assert check(EITHER, LAW_BY_REGEX, LAW_BY_REGEX) == [None, None]
    assert calls == []
    reasons = check(EITHER, LAW_BY_REGEX, PLAIN_LAW, INSURANCE, PLAIN_LAW + " Ohio courts sit.")
    assert len(calls) == 1
    assert [r is None for r in reasons] == [True, True, False, True]


def test_combine_both_makes_the_semantic_signal_confirm_the_regex() -> None:
    """Under ``combine: both`` a regex match that is not the clause is denied, and a clause the
    regex misses is denied too."""
    both = law_policy("{regex: '\\blaws? of\\b', semantic: {min_score: 0.5}, combine: both}")
    odd = "Buyer shall comply with the laws of every country into which it ships the goods."
    reasons = check(both, LAW_BY_REGEX, odd, "Ohio law applies to this Agreement.")
    assert reasons[0] is None
    assert reasons[1] is not None
    assert "semantic GOVERNING_LAW" in reasons[1]
    assert reasons[2] == "the text does not match the GOVERNING_LAW fingerprint"
    assert check(law_policy("{regex: '\\blaws? of\\b'}"), odd) == [None]


def test_a_fingerprint_may_be_semantic_alone() -> None:
    """With no regex, the semantic signal decides every chunk."""
    semantic = law_policy("{semantic: {min_score: 0.5}}")
    reasons = check(semantic, LAW_BY_REGEX, PLAIN_LAW, INSURANCE)
    assert [r is None for r in reasons] == [True, True, False]


class Unavailable:
    """Stands in for an embedder whose package is not installed: a real one cannot be
    uninstalled inside the test run, and this raises what the loader raises then."""

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        raise EmbedderUnavailableError("the embedding model is not installed; run pip install ...")

    def embed_query(self, text: str) -> list[float]:
        return self.embed_documents([text])[0]


def test_without_the_embedder_what_the_regex_cannot_decide_is_denied() -> None:
    """The regex still accepts its matches; a chunk it leaves to the semantic signal is denied
    with a reason naming the missing model (fail closed)."""
    clause = ClauseGuard(EITHER.clauses, embedder=Unavailable())
    guard = Guard(parse_policy("access: {attributes: [contract_type]}"), checks=[clause])
    chunks = [{"text": t, "meta": {"contract_type": "MSA", "clause_id": "GOVERNING_LAW"}}
              for t in (LAW_BY_REGEX, PLAIN_LAW)]  # fmt: skip
    result = guard.check("What is the governing law?", chunks, access=ACCESS)
    assert [d.allowed for d in result.decisions] == [True, False]
    assert result.decisions[1].reason == (
        "the GOVERNING_LAW fingerprint's semantic check could not run (EmbedderUnavailableError: "
        "the embedding model is not installed; run pip install ...); denied (fail closed)"
    )


@pytest.mark.parametrize(
    ("fingerprint", "message"),
    [
        ("{combine: both}", "names neither regex nor semantic"),
        ("{semantic: {min_score: 1.5}}", "less than 1"),
        ("{semantic: {examples: legal}}", "neither the bundled set 'contracts' nor a .yaml"),
        ("{semantic: {label: NOPE}}", "label 'NOPE' has no sentences in examples 'contracts'"),
        ("{regex: '(?<=a)b', semantic: {}}", "is not a pattern RE2 can run"),
    ],
)
def test_a_bad_fingerprint_is_a_policy_error(fingerprint: str, message: str) -> None:
    """Each malformed fingerprint fails when the policy (or its guard) is built, saying why."""
    with pytest.raises(PolicyError, match=message):
        Guard(law_policy(fingerprint))


def test_the_plain_regex_forms_still_load() -> None:
    """A string, a list and ``{regex: ...}`` are the same fingerprint."""
    forms = ["'\\bgoverned by\\b'", "['\\bgoverned by\\b']", "{regex: '\\bgoverned by\\b'}"]
    regexes = {law_policy(form).clauses["GOVERNING_LAW"].fingerprint_regex for form in forms}
    assert regexes == {"\\bgoverned by\\b", "(?:\\bgoverned by\\b)"}
    assert all(law_policy(form).clauses["GOVERNING_LAW"].semantic is None for form in forms)


def test_without_the_embedder_a_domain_policy_says_what_to_install(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The domain guard's similarity tiers cannot run: every query is refused (fail closed),
    the query's reason names the install, and one WARNING says so however many queries."""
    guard = Guard.from_policy("bis", embedder=Unavailable())
    with caplog.at_level(logging.WARNING, logger="rag_guard_integrations"):
        results = [
            guard.check(query, [{"text": "IS 1786 covers high strength deformed steel bars."}])
            for query in ("Which standard covers TMT rebar?", "What does the cement standard say?")
        ]
    assert [r.query.allowed for r in results] == [False, False]
    assert "run pip install ..." in results[0].query.reason
    warned = [r.getMessage() for r in caplog.records if "refused" in r.getMessage()]
    assert warned == [
        "every query is refused (fail closed): the embedding model is not installed; "
        "run pip install ..."
    ]
