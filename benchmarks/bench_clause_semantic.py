"""The cost of the clause fingerprints' semantic signal, per chunk, against the regex alone.

Run: .venv/bin/python benchmarks/bench_clause_semantic.py [--json] [--repeats N]

Every question of the bundled corpus's clauses is checked against the whole corpus (75 chunks,
five of them the clause asked for) with ``Guard.check``, three ways:

- ``regex``: the ``contracts`` pack with its semantic signals removed (the check before them);
- ``pack``: the ``contracts`` pack as shipped (the semantic signal judges what the regex
  misses; on the bundled corpus the regex decides every chunk, so nothing is embedded);
- ``semantic``: every fingerprint semantic-only, so each chunk of the clause asked for is
  embedded and scored: ``warm`` with its passages already in the embedder's cache (a chunk the
  guard has seen), ``cold`` with texts it has not (each repetition gets new texts).

Prints CPU time per chunk checked (median over repetitions), the same per chunk that reached
its fingerprint (the clause asked for: one in fifteen), and each ratio to ``regex``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from rag_guard_integrations import AccessContext, Guard, load_policy
from rag_guard_integrations.data import load_corpus
from rag_guard_integrations.embeddings import default_embedder
from rag_guard_integrations.policy.schema import FingerprintSpec, SemanticSpec

if TYPE_CHECKING:
    from collections.abc import Callable

    from rag_guard_integrations.core.chunk import Chunk
    from rag_guard_integrations.policy.schema import Policy

QUESTIONS = {
    "TERMINATION_NOTICE": "What is the termination notice period?",
    "TERMINATION_FOR_CAUSE": "What is the cure period before termination for cause?",
    "GOVERNING_LAW": "What is the governing law?",
    "LIMITATION_OF_LIABILITY": "What is the liability cap?",
    "CONFIDENTIALITY_TERM": "How long do confidentiality obligations last?",
    "PAYMENT_TERMS": "When are invoices due?",
    "RENEWAL": "Does the agreement renew automatically?",
    "ASSIGNMENT": "Can we assign the agreement?",
    "NON_COMPETE": "Is there a non-compete?",
    "EXCLUSIVITY": "Is the reseller exclusive?",
    "AUDIT_RIGHTS": "Can we audit the vendor?",
    "INSURANCE": "What insurance must the provider carry?",
    "CHANGE_OF_CONTROL": "What happens on a change of control?",
    "NON_SOLICIT": "Is there a non-solicitation clause?",
    "WARRANTY": "What is the warranty period?",
}
ACCESS = AccessContext(principal="bench", contract_type={"MSA", "SOW", "CHANNEL", "NDA", "DPA"})


def variant(policy: Policy, keep: str) -> Policy:
    """``policy`` with its fingerprints cut to the regex (``regex``) or to a semantic signal."""
    clauses = {}
    for clause_id, spec in policy.clauses.items():
        if spec.fingerprint is not None:
            semantic = spec.semantic or SemanticSpec()
            regex = spec.fingerprint_regex if keep == "regex" else None
            fingerprint = FingerprintSpec(regex=regex, semantic=None if regex else semantic)
            spec = spec.model_copy(update={"fingerprint": fingerprint})  # noqa: PLW2901
        clauses[clause_id] = spec
    return policy.model_copy(update={"clauses": clauses})


def per_chunk_us(run: Callable[[], object], chunks: int, repeats: int) -> float:
    """Median CPU microseconds per chunk of ``run`` (which checks ``chunks`` chunks)."""
    samples = []
    for _ in range(repeats):
        start = time.process_time()
        run()
        samples.append((time.process_time() - start) * 1e6 / chunks)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    pack = load_policy("contracts")
    corpus = load_corpus("contracts")
    guards = {name: Guard(variant(pack, name)) for name in ("regex", "semantic")}
    guards["pack"] = Guard(pack)
    default_embedder()  # loaded once, outside the timing

    def check_all(guard: Guard, chunks: list[Chunk]) -> None:
        for question in QUESTIONS.values():
            guard.check(question, chunks, access=ACCESS)

    checked = len(corpus) * len(QUESTIONS)
    check_all(guards["semantic"], corpus)  # model loaded and the corpus's passages cached
    fresh = iter(range(1, 10**6))

    def cold() -> None:
        number = next(fresh)
        check_all(guards["semantic"], [replace(c, text=f"{number}. {c.text}") for c in corpus])

    def timed(name: str) -> float:
        return per_chunk_us(lambda: check_all(guards[name], corpus), checked, args.repeats)

    result: dict[str, Any] = {
        "chunks_per_run": checked,
        "us_per_chunk": {
            "regex": timed("regex"),
            "pack": timed("pack"),
            "semantic_warm": timed("semantic"),
            "semantic_cold": per_chunk_us(cold, checked, max(1, args.repeats // 2)),
        },
    }
    base = result["us_per_chunk"]["regex"]
    result["ratio_to_regex"] = {k: v / base for k, v in result["us_per_chunk"].items()}
    fingerprinted = sum(c.metadata["clause_id"] in QUESTIONS for c in corpus)
    result["us_per_fingerprinted_chunk"] = {
        k: v * checked / fingerprinted for k, v in result["us_per_chunk"].items()
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(f"{checked} chunk checks a run ({len(corpus)} chunks x {len(QUESTIONS)} questions)")
    print(f"{'variant':>14} {'us/chunk':>10} {'us/fingerprinted':>17} {'x regex':>8}")
    for name, value in result["us_per_chunk"].items():
        each = result["us_per_fingerprinted_chunk"][name]
        print(f"{name:>14} {value:>10.2f} {each:>17.1f} {result['ratio_to_regex'][name]:>8.2f}")


if __name__ == "__main__":
    main()
