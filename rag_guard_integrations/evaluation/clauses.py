"""The clause evaluation (``rag-guard eval clauses``): how well each clause fingerprint
recognises real contract clauses.

The reference is CUAD (The Atticus Project): excerpts of real contracts, each labelled with one
of its categories. For every clause id of a policy, recall is the share of the excerpts of its
corresponding CUAD categories that its fingerprint matches, and the false-match rate is the
share of the excerpts of every other category that it matches.

``--split`` measures the two halves of a fixed split as well: an excerpt belongs to the *tune*
half when the first byte of the SHA-256 of its document name (``contract_title``, else
``document_name``) is even, else to the *held-back* half (:mod:`~.split`, the split that
``rag-guard calibrate --split`` applies to query texts). Every excerpt of one contract falls in
the same half, so patterns written while looking at the tune half's misses are measured on
contracts they have never seen.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rag_guard_integrations.core.errors import DataError
from rag_guard_integrations.core.patterns import compile_pattern
from rag_guard_integrations.core.sentences import clause_text
from rag_guard_integrations.data.jsonl import read_jsonl
from rag_guard_integrations.evaluation.split import SPLITS, half_of

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping
    from pathlib import Path

    from rag_guard_integrations.policy.schema import Policy

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
CUAD category; they get a false-match rate over every excerpt and no recall.
"""


def evaluate_clauses(records: Iterable[Mapping[str, Any]], policy: Policy) -> dict[str, Any]:
    """Recall and false-match rate of every clause fingerprint of ``policy`` on ``records``.

    Args:
        records: Labelled excerpts, each a mapping with string ``text`` and ``category``.
        policy: The policy whose ``clauses`` are measured; a clause without a fingerprint
            accepts every text, as the clause guard does.

    Returns:
        ``{"clauses": {CLAUSE_ID: {"categories": [...], "recall": r, "false_match_rate": f}}}``;
        a rate is None when it has no excerpts to be measured on.

    Example:
        >>> from rag_guard_integrations import load_policy
        >>> rows = [{"text": "This Agreement is governed by the laws of Ohio.",
        ...          "category": "Governing Law"}]
        >>> evaluate_clauses(rows, load_policy("contracts"))["clauses"]["GOVERNING_LAW"]["recall"]
        1.0
    """
    excerpts = [(category, clause_text(text)) for category, text in _checked(records)]
    results: dict[str, Any] = {}
    for clause_id, spec in policy.clauses.items():
        categories = CUAD_CATEGORIES.get(clause_id, ())
        regex = spec.fingerprint_regex
        pattern = None if regex is None else compile_pattern(regex)
        own: list[bool] = []
        other: list[bool] = []
        for category, text in excerpts:
            hit = pattern is None or pattern.search(text) is not None
            (own if category in categories else other).append(hit)
        results[clause_id] = {
            "categories": list(categories),
            "recall": _share(own),
            "false_match_rate": _share(other),
        }
    return {"clauses": results}


def split_of(record: Mapping[str, Any]) -> str:
    """The half of the documented split ``record`` belongs to: ``tune`` or ``held_back``.

    Example:
        >>> split_of({"contract_title": "ACME-EX-10.1-SUPPLY AGREEMENT", "text": "..."})
        'held_back'
    """
    name = record.get("contract_title") or record.get("document_name") or record.get("text")
    return half_of(str(name))


def evaluate_split(records: Iterable[Mapping[str, Any]], policy: Policy) -> dict[str, Any]:
    """:func:`evaluate_clauses` on all ``records`` and on each half of :func:`split_of`.

    Returns:
        The result on every record, plus ``{"split": {"tune": ..., "held_back": ...}}`` with
        each half's ``clauses``, ``records`` count and ``pooled_recall`` (every mapped excerpt
        of the half, whichever clause it belongs to).
    """
    rows = list(records)
    result = evaluate_clauses(rows, policy)
    result["pooled_recall"] = _pooled(rows, policy)
    result["split"] = {}
    for half in SPLITS:
        part = [r for r in rows if split_of(r) == half]
        scored = evaluate_clauses(part, policy)
        scored["records"] = len(part)
        scored["pooled_recall"] = _pooled(part, policy)
        result["split"][half] = scored
    return result


def _pooled(records: list[Mapping[str, Any]], policy: Policy) -> float | None:
    """Share of the (excerpt, clause id) pairs of mapped categories that the fingerprint hits."""
    hits: list[bool] = []
    for category, text in _checked(records):
        for clause_id, spec in policy.clauses.items():
            regex = spec.fingerprint_regex
            if category in CUAD_CATEGORIES.get(clause_id, ()):
                hits.append(
                    regex is None or compile_pattern(regex).search(clause_text(text)) is not None
                )
    return _share(hits)


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
