"""Precision and recall of the pattern recognisers on annotated PII sentences (Presidio
research's synthetic set): ``python benchmarks/pii_quality.py [--json] [--data FILE] [--split]``
(the data is ``../shared/data``, or ``$RAG_GUARD_SHARED_DATA``).

Span level: a finding of a recogniser counts as correct when it overlaps an annotated span of
the corresponding entity type; an annotated span counts as found when a finding of that
recogniser overlaps it.

``--split`` also scores the two halves of a fixed split: a sentence belongs to the *tune* half
when the first byte of the SHA-256 of its text is even, else to the *held-back* half. The
recognisers were adjusted looking only at the tune half's misses; the person and organisation
rules were written looking at the tune half's sentences only, and the held-back half was
scored once they were done.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rag_guard_integrations.classify.pattern import PatternClassifier
from rag_guard_integrations.classify.recognizers import BUILTIN_RECOGNIZERS

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from rag_guard_integrations.classify.base import Classifier, Finding

SHARED = Path(
    os.environ.get("RAG_GUARD_SHARED_DATA")
    or Path(__file__).resolve().parents[2] / "shared" / "data"
)
DATA = SHARED / "pii_samples.jsonl"
CHECK = Path(__file__).with_name("names_check.txt")
"""Sentences written for the names recognisers' conventions, marked up by hand."""
_MARK = re.compile(r"\[\[(.+?)\|([PO])\]\]")
_SEPARATOR = re.compile(r"^---$", re.MULTILINE)
_MARKS = {"P": "PERSON", "O": "ORGANIZATION"}
ENTITY_RECOGNIZER = {
    "EMAIL_ADDRESS": "email",
    "CREDIT_CARD": "credit_card",
    "IBAN_CODE": "iban",
    "US_SSN": "us_ssn",
    "PHONE_NUMBER": "phone",
    "IP_ADDRESS": "ip_address",
}
"""The fixed-format types, which Presidio's pattern recognisers also find."""
NAME_RECOGNIZER = {"PERSON": "person", "ORGANIZATION": "organization"}
"""The names, found by the ``person`` and ``organization`` recognisers (named explicitly: they
are not in ``PatternClassifier()``'s default set)."""
ALL_RECOGNIZERS = {**ENTITY_RECOGNIZER, **NAME_RECOGNIZER}
# (precision, recall) each type must reach: names are harder than fixed-format values.
TARGETS = {
    **dict.fromkeys(ENTITY_RECOGNIZER, (0.95, 0.95)),
    **dict.fromkeys(NAME_RECOGNIZER, (0.9, 0.85)),
}
SPLITS = ("tune", "held_back")


def load(path: Path = DATA) -> list[dict[str, Any]]:
    """The annotated records (``text`` and ``spans``) of a JSONL file, or of a marked-up text
    file such as :data:`CHECK` (see :func:`parse_marked`)."""
    if path.suffix == ".txt":
        return parse_marked(path.read_text(encoding="utf-8"))
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def parse_marked(source: str) -> list[dict[str, Any]]:
    """Records from blocks separated by lines ``---``, names marked ``[[text|P]]`` (a person)
    or ``[[text|O]]`` (an organisation); lines starting with ``#`` are comments."""
    records = []
    lines = [line for line in source.split("\n") if not line.startswith("#")]
    for raw in _SEPARATOR.split("\n".join(lines)):
        block = raw.strip("\n")
        text, spans, position = "", [], 0
        for match in _MARK.finditer(block):
            text += block[position : match.start()]
            value, kind = match.group(1), match.group(2)
            spans.append(
                {"entity_type": _MARKS[kind], "start": len(text), "end": len(text) + len(value)}
            )
            text += value
            position = match.end()
        text += block[position:]
        if text.strip():
            records.append({"text": text, "spans": spans})
    return records


def split_of(record: Mapping[str, Any]) -> str:
    """The half of the documented split ``record`` belongs to: ``tune`` or ``held_back``."""
    return SPLITS[hashlib.sha256(record["text"].encode("utf-8")).digest()[0] % 2]


def _overlaps(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[0] < b[1] and b[0] < a[1]


def full_classifier() -> PatternClassifier:
    """Every built-in recogniser, the names ones included."""
    return PatternClassifier(BUILTIN_RECOGNIZERS.values(), cache_size=0)


def score(
    records: Iterable[Mapping[str, Any]],
    classifier: Classifier | None = None,
    entity_recognizer: Mapping[str, str] = ENTITY_RECOGNIZER,
) -> dict[str, Any]:
    """``entities``: per entity type of ``entity_recognizer`` ``precision``, ``recall``,
    ``support`` (annotated spans) and ``predicted`` (findings); ``errors``: texts the
    classifier could not classify. The classifier defaults to :func:`full_classifier`."""
    classifier = classifier or full_classifier()
    counts = {e: {"tp_pred": 0, "pred": 0, "tp_gold": 0, "gold": 0} for e in entity_recognizer}
    errors = 0
    for record in records:
        result = classifier.classify(record["text"])
        errors += result.error is not None
        findings: tuple[Finding, ...] = result.findings
        for entity, recognizer in entity_recognizer.items():
            gold = [(s["start"], s["end"]) for s in record["spans"] if s["entity_type"] == entity]
            found = [(f.start, f.end) for f in findings if f.recognizer == recognizer]
            tally = counts[entity]
            tally["gold"] += len(gold)
            tally["pred"] += len(found)
            tally["tp_gold"] += sum(any(_overlaps(g, f) for f in found) for g in gold)
            tally["tp_pred"] += sum(any(_overlaps(f, g) for g in gold) for f in found)
    entities = {
        entity: {
            "precision": t["tp_pred"] / t["pred"] if t["pred"] else 1.0,
            "recall": t["tp_gold"] / t["gold"] if t["gold"] else 1.0,
            "support": t["gold"],
            "predicted": t["pred"],
        }
        for entity, t in counts.items()
    }
    return {"entities": entities, "errors": errors}


def main(argv: list[str] | None = None) -> int:
    """Print the table (or JSON); exit 1 when an entity type misses its target."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA, help="annotated JSONL file")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.add_argument(
        "--split", action="store_true", help="also score the tune and held-back halves"
    )
    args = parser.parse_args(argv)
    records = load(args.data)
    scored = score(records, entity_recognizer=ALL_RECOGNIZERS)
    if args.split:
        scored["split"] = {
            h: score([r for r in records if split_of(r) == h], entity_recognizer=ALL_RECOGNIZERS)
            for h in SPLITS
        }
    results = scored["entities"]
    missed = [
        e
        for e, r in results.items()
        if r["precision"] < TARGETS[e][0] or r["recall"] < TARGETS[e][1]
    ]
    if args.json:
        print(json.dumps({"data": str(args.data), **scored, "missed": missed}, indent=2))
    else:
        from rag_guard_integrations.cli.console import table  # noqa: PLC0415 - only for the table

        rows = [
            (e, r["precision"], r["recall"], r["support"], r["predicted"], *TARGETS[e])
            for e, r in results.items()
        ]
        header = ("entity", "precision", "recall", "spans", "findings", "target P", "target R")
        print(table(header, rows))
        for half, part in scored.get("split", {}).items():
            cells = [
                (e, r["precision"], r["recall"], r["support"]) for e, r in part["entities"].items()
            ]
            print(f"\n{half}:")
            print(table(("entity", "precision", "recall", "spans"), cells))
        print(f"texts the classifier could not classify: {scored['errors']}")
    return 1 if missed or scored["errors"] else 0


if __name__ == "__main__":
    sys.exit(main())
