"""The clause evaluation (``rag-guard eval clauses``): how well each clause fingerprint
recognises real contract clauses.

The reference is CUAD (The Atticus Project): excerpts of real contracts, each labelled with one
of its categories. For every clause id of a policy, recall is the share of the excerpts of its
corresponding CUAD categories that its fingerprint accepts, and the false-match rate is the
share of the excerpts of every other category that it accepts. Each signal is measured alone
too: the regex, the semantic signal (at its ``min_score``), and the two combined as the clause
guard combines them (``combine: either``: the regex, or else the semantic signal).

``--split`` measures the two halves of a fixed split as well: an excerpt belongs to the *tune*
half when the first byte of the SHA-256 of its document name (``contract_title``, else
``document_name``) is even, else to the *held-back* half (:mod:`~.split`, the split that
``rag-guard calibrate --split`` applies to query texts). Every excerpt of one contract falls in
the same half, so what is chosen while looking at the tune half is measured on contracts it
has never seen.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rag_guard_integrations.core.errors import DataError
from rag_guard_integrations.core.patterns import compile_pattern
from rag_guard_integrations.core.sentences import clause_text
from rag_guard_integrations.data.jsonl import read_jsonl
from rag_guard_integrations.evaluation.split import SPLITS, half_of
from rag_guard_integrations.guards.clause_semantic import SemanticSignal

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence
    from pathlib import Path

    from rag_guard_integrations.policy.schema import ClauseSpec, Policy

__all__ = [
    "CUAD_CATEGORIES", "FALSE_MATCH_TARGET", "RECALL_TARGET", "SPLITS", "SignalTable",
    "evaluate_clauses", "evaluate_split", "load_records", "signal_table", "split_of",
]  # fmt: skip

RECALL_TARGET = 0.9
FALSE_MATCH_TARGET = 0.05

CUAD_CATEGORIES: dict[str, tuple[str, ...]] = {
    # A convenience termination right is stated as the notice it needs; the notice that stops a
    # renewal is the same clause seen from the end of a term.
    "TERMINATION_NOTICE": ("Termination For Convenience", "Notice Period To Terminate Renewal"),
    # CUAD files the sentence that makes a term renew under both renewal categories.
    "RENEWAL": ("Renewal Term", "Notice Period To Terminate Renewal"),
    "GOVERNING_LAW": ("Governing Law",),
    # "Uncapped Liability" excerpts are limitation-of-liability clauses read for their
    # carve-outs, so both categories are this clause.
    "LIMITATION_OF_LIABILITY": ("Cap On Liability", "Uncapped Liability"),
    "ASSIGNMENT": ("Anti-Assignment",),
    "NON_COMPETE": ("Non-Compete",),
    "EXCLUSIVITY": ("Exclusivity",),
    "AUDIT_RIGHTS": ("Audit Rights",),
    "INSURANCE": ("Insurance",),
    "CHANGE_OF_CONTROL": ("Change Of Control",),
    "NON_SOLICIT": ("No-Solicit Of Employees",),
    "WARRANTY": ("Warranty Duration",),
}
"""Clause id -> the CUAD categories whose excerpts are that clause.

Clause ids missing here (TERMINATION_FOR_CAUSE, CONFIDENTIALITY_TERM, PAYMENT_TERMS) have no
CUAD category; on CUAD they get a false-match rate over every excerpt and no recall. An
excerpt whose category is a clause id itself (as in ``data/clauses/checks.jsonl``) is that
clause's.
"""


def is_own(clause_id: str, category: str) -> bool:
    """Whether an excerpt of ``category`` is clause ``clause_id`` (see :data:`CUAD_CATEGORIES`)."""
    return category == clause_id or category in CUAD_CATEGORIES.get(clause_id, ())


@dataclass(frozen=True, slots=True)
class SignalTable:
    """Each signal of each clause fingerprint on each excerpt, computed once, so that any
    ``min_score`` can be judged again without embedding (``rag-guard calibrate --clauses``).

    ``regex[clause][i]``: whether the regex matches excerpt i (None: the clause has no regex);
    ``semantic[clause][i]``: its semantic score (absent: the clause has no semantic signal).
    """

    categories: tuple[str, ...]
    regex: Mapping[str, tuple[bool | None, ...]]
    semantic: Mapping[str, tuple[float, ...]]

    def accepted(self, spec: ClauseSpec, clause_id: str, min_score: float | None) -> list[bool]:
        """Whether the fingerprint, as the clause guard combines it, accepts each excerpt."""
        regex = self.regex[clause_id]
        if clause_id not in self.semantic or spec.semantic is None:
            return [hit is not False for hit in regex]
        threshold = spec.semantic.min_score if min_score is None else min_score
        semantic = [score >= threshold for score in self.semantic[clause_id]]
        if spec.combine == "both":
            return [r is not False and s for r, s in zip(regex, semantic, strict=True)]
        return [bool(r) or s for r, s in zip(regex, semantic, strict=True)]

    def subset(self, indices: Sequence[int]) -> SignalTable:
        """The table of the excerpts at ``indices``."""
        return SignalTable(
            tuple(self.categories[i] for i in indices),
            {c: tuple(v[i] for i in indices) for c, v in self.regex.items()},
            {c: tuple(v[i] for i in indices) for c, v in self.semantic.items()},
        )


def signal_table(records: Iterable[Mapping[str, Any]], policy: Policy) -> SignalTable:
    """Compute every signal of ``policy``'s fingerprints on ``records`` (one embedding batch
    per example set; no embedding when no fingerprint has a semantic signal)."""
    excerpts = list(_checked(records))
    texts = [clause_text(text) for _, text in excerpts]
    regex: dict[str, tuple[bool | None, ...]] = {}
    wanted: dict[str, dict[str, str]] = {}  # example set -> clause id -> label
    for clause_id, spec in policy.clauses.items():
        pattern = spec.fingerprint_regex
        compiled = None if pattern is None else compile_pattern(pattern)
        regex[clause_id] = tuple(
            None if compiled is None else compiled.search(text) is not None for text in texts
        )
        if spec.semantic is not None:
            label = spec.semantic.label or clause_id
            wanted.setdefault(spec.semantic.examples, {})[clause_id] = label
    semantic: dict[str, tuple[float, ...]] = {}
    for examples, labels in wanted.items():
        verdicts = SemanticSignal(examples).verdicts(
            [text for _, text in excerpts], [list(labels.values())] * len(excerpts)
        )
        for column, clause_id in enumerate(labels):
            semantic[clause_id] = tuple(row[column].score for row in verdicts)
    return SignalTable(tuple(category for category, _ in excerpts), regex, semantic)


def evaluate_clauses(
    records: Iterable[Mapping[str, Any]] | SignalTable, policy: Policy
) -> dict[str, Any]:
    """Recall and false-match rate of every clause fingerprint of ``policy`` on ``records``.

    Args:
        records: Labelled excerpts, each a mapping with string ``text`` and ``category`` (or
            their :func:`signal_table`).
        policy: The policy whose ``clauses`` are measured; a clause without a fingerprint
            accepts every text, as the clause guard does.

    Returns:
        ``{"clauses": {CLAUSE_ID: {"categories": [...], "recall": r, "false_match_rate": f,
        "regex": {...}, "semantic": {...}}}}`` for every clause but ``whole_contract`` ones
        (a summary question, which no chunk is): the fingerprint as the guard applies it, then
        each signal alone (``semantic`` only for a clause that has one, with its
        ``min_score``); a rate is None when it has no excerpts to be measured on.

    Example:
        >>> from rag_guard_integrations import load_policy
        >>> rows = [{"text": "This Agreement is governed by the laws of Ohio.",
        ...          "category": "Governing Law"}]
        >>> evaluate_clauses(rows, load_policy("contracts"))["clauses"]["GOVERNING_LAW"]["recall"]
        1.0
    """
    table = records if isinstance(records, SignalTable) else signal_table(records, policy)
    results: dict[str, Any] = {}
    for clause_id, spec in _chunk_clauses(policy):
        own = [is_own(clause_id, category) for category in table.categories]
        scores: dict[str, Any] = {"categories": list(CUAD_CATEGORIES.get(clause_id, ()))}
        scores.update(rates(table.accepted(spec, clause_id, None), own))
        scores["regex"] = rates([hit is not False for hit in table.regex[clause_id]], own)
        if spec.semantic is not None and clause_id in table.semantic:
            threshold = spec.semantic.min_score
            hits = [score >= threshold for score in table.semantic[clause_id]]
            scores["semantic"] = {**rates(hits, own), "min_score": threshold}
        results[clause_id] = scores
    return {"clauses": results}


def rates(accepted: Sequence[bool], own: Sequence[bool]) -> dict[str, float | None]:
    """``recall`` (share of ``own`` excerpts accepted) and ``false_match_rate`` (of the rest)."""
    mine = [hit for hit, mine_too in zip(accepted, own, strict=True) if mine_too]
    other = [hit for hit, mine_too in zip(accepted, own, strict=True) if not mine_too]
    return {"recall": _share(mine), "false_match_rate": _share(other)}


def split_of(record: Mapping[str, Any]) -> str:
    """The half of the documented split ``record`` belongs to: ``tune`` or ``held_back``.

    Example:
        >>> split_of({"contract_title": "ACME-EX-10.1-SUPPLY AGREEMENT", "text": "..."})
        'held_back'
    """
    name = record.get("contract_title") or record.get("document_name") or record.get("text")
    return half_of(str(name))


def halves(records: Sequence[Mapping[str, Any]]) -> dict[str, list[int]]:
    """The indices of ``records`` in each half of :func:`split_of`."""
    found: dict[str, list[int]] = {half: [] for half in SPLITS}
    for index, record in enumerate(records):
        found[split_of(record)].append(index)
    return found


def evaluate_split(records: Iterable[Mapping[str, Any]], policy: Policy) -> dict[str, Any]:
    """:func:`evaluate_clauses` on all ``records`` and on each half of :func:`split_of`.

    Returns:
        The result on every record, plus ``{"split": {"tune": ..., "held_back": ...}}`` with
        each half's ``clauses``, ``records`` count and ``pooled_recall`` (every mapped excerpt
        of the half, whichever clause it belongs to).
    """
    rows = list(records)
    table = signal_table(rows, policy)
    result = evaluate_clauses(table, policy)
    result["pooled_recall"] = _pooled(table, policy)
    result["split"] = {}
    for half, indices in halves(rows).items():
        part = table.subset(indices)
        scored = evaluate_clauses(part, policy)
        scored["records"] = len(indices)
        scored["pooled_recall"] = _pooled(part, policy)
        result["split"][half] = scored
    return result


def _pooled(table: SignalTable, policy: Policy) -> float | None:
    """Share of the (excerpt, clause id) pairs of mapped categories that the fingerprint hits."""
    hits: list[bool] = []
    for clause_id, spec in _chunk_clauses(policy):
        accepted = table.accepted(spec, clause_id, None)
        hits += [
            hit for hit, c in zip(accepted, table.categories, strict=True) if is_own(clause_id, c)
        ]
    return _share(hits)


def _chunk_clauses(policy: Policy) -> list[tuple[str, ClauseSpec]]:
    """The clauses a chunk can be (a ``whole_contract`` clause is a kind of question)."""
    return [(c, spec) for c, spec in policy.clauses.items() if not spec.whole_contract]


def load_records(path: Path) -> list[dict[str, Any]]:
    """Read labelled excerpts from a JSONL file (one object with ``text`` and ``category``)."""
    records = [record for _, record in read_jsonl(path)]
    if not records:
        raise DataError(f"{path}: no records; give a JSONL file of {{'text', 'category'}} lines")
    return records


def _checked(records: Iterable[Mapping[str, Any]]) -> Iterable[tuple[str, str]]:
    for index, record in enumerate(records):
        text, category = record.get("text"), record.get("category")
        if not isinstance(text, str) or not isinstance(category, str):
            raise DataError(
                f"record {index} needs string fields 'text' and 'category'; "
                f"got keys {sorted(record)}"
            )
        yield category, text


def _share(hits: list[bool]) -> float | None:
    return sum(hits) / len(hits) if hits else None
