"""``rag-guard audit FILE``: summarise a JSONL file of audit records (v2, and v1 written before)
per rule, stage, principal and audit key, as tables or ``--json``."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rag_guard_integrations.cli.audit_schema import record_problem
from rag_guard_integrations.cli.console import print_json, table
from rag_guard_integrations.cli.help import CommandHelp, add_command
from rag_guard_integrations.core.audit import AUDIT_VERSION, READABLE_VERSIONS
from rag_guard_integrations.core.errors import DataError
from rag_guard_integrations.data.jsonl import read_jsonl

if TYPE_CHECKING:
    import argparse

EXIT_OK, EXIT_FINDINGS = 0, 1
# v1 records hashed with plain sha256: no key, so their hashes match any other v1 record's.
_UNKEYED = "(v1, plain sha256)"


HELP = CommandHelp(
    summary="summarise audit records (JSONL) per rule, stage and principal",
    reads="a JSONL file, one audit record (v2, or v1 written before) a line, as the "
    "rag_guard_integrations.audit logger writes them; each must fit the shipped JSON schema.",
    reads_example='{"version": 2, "request_id": "...", "principal": "alice", "chunks": [...]}',
    prints="tables: totals (chunks allowed, denied, redacted, shadow), records per audit key "
    "id, then counts per rule, stage and principal; --json: the same as one object.",
    findings="some chunk was withheld or masked",
    example="rag-guard audit audit.jsonl --json",
)


def register(commands: argparse._SubParsersAction[Any]) -> None:
    """Add the ``audit`` sub-command."""
    parser = add_command(commands, "audit", HELP)
    parser.add_argument("file", type=Path, help="JSONL file, one audit record a line")
    parser.add_argument("--json", action="store_true", help="machine-readable summary")
    parser.set_defaults(run=run)


@dataclass
class Tally:
    """Counts for one rule, stage or principal."""

    requests: set[str] = field(default_factory=set)
    counts: Counter[str] = field(default_factory=Counter)

    def add(self, request_id: str, *keys: str) -> None:
        self.requests.add(request_id)
        self.counts.update(keys)

    def to_dict(self) -> dict[str, int]:
        return {"requests": len(self.requests), **dict(sorted(self.counts.items()))}


def summarise(records: list[tuple[int, Any]], source: Path) -> dict[str, Any]:
    """Totals and per-rule, per-stage and per-principal counts of ``records``, and the records
    per audit key id (hashes match only between records of one key).

    Raises:
        DataError: a line is not an audit record (the message names the line and the first
            field that does not fit the shipped schema of its version).
    """
    totals: Counter[str] = Counter()
    keys: Counter[str] = Counter()
    rules: dict[str, Tally] = {}
    stages: dict[str, Tally] = {}
    principals: dict[str, Tally] = {}
    for number, record in records:
        _validate(record, source, number)
        request = str(record["request_id"])
        who = principals.setdefault(str(record["principal"] or "(none)"), Tally())
        totals["requests"] += 1
        keys[str(record.get("key_id", _UNKEYED))] += 1
        totals["refused"] += record["refused"]
        totals["refused_shadow"] += bool(record.get("refused_shadow"))
        totals["shadow_mode"] += record["mode"] == "shadow"
        who.add(request, "requests", *(["refused"] if record["refused"] else []))
        for chunk in record["chunks"]:
            outcome = _outcome(chunk)
            totals.update(["chunks", outcome])
            who.add(request, f"chunks_{outcome}")
            if chunk["decision"] != "allow":
                stages.setdefault(str(chunk["stage"]), Tally()).add(request, outcome)
            if chunk["rule"] is not None:
                rules.setdefault(str(chunk["rule"]), Tally()).add(request, outcome)
        for rule in record["rules"]:
            fired = "fired" if rule["enforced"] else "fired_shadow"
            rules.setdefault(str(rule["rule"]), Tally()).add(request, fired)
    return {
        "records": len(records),
        "totals": dict(sorted(totals.items())),
        "rules": {name: t.to_dict() for name, t in sorted(rules.items())},
        "stages": {name: t.to_dict() for name, t in sorted(stages.items())},
        "principals": {name: t.to_dict() for name, t in sorted(principals.items())},
        "keys": dict(sorted(keys.items())),
    }


def run(args: argparse.Namespace) -> int:
    """Exit 0 when nothing was denied by a rule or a rejected query, 1 when something was."""
    records = list(read_jsonl(args.file))
    if not records:
        raise DataError(
            f"{args.file} holds no audit records; log them with the "
            "rag_guard_integrations.audit logger, one JSON record a line"
        )
    summary = summarise(records, args.file)
    if args.json:
        print_json(summary)
    else:
        _print_tables(summary)
    flagged = summary["totals"].get("denied", 0) + summary["totals"].get("redacted", 0)
    return EXIT_FINDINGS if flagged else EXIT_OK


def _outcome(chunk: dict[str, Any]) -> str:
    decision = chunk["decision"]
    if decision == "allow":
        return "allowed"
    suffix = "" if chunk["enforced"] else "_shadow"
    return ("denied" if decision == "deny" else "redacted") + suffix


def _validate(record: Any, source: Path, number: int) -> None:
    """Refuse a line that is not an audit record of a readable version, naming the first field
    that does not fit its schema."""
    where = f"{source} line {number}"
    if not isinstance(record, dict) or record.get("version") not in READABLE_VERSIONS:
        raise DataError(
            f'{where}: not an audit record (no "version": {AUDIT_VERSION}, or 1 for older '
            "records); pass the JSON lines written by GuardResult.audit()"
        )
    if problem := record_problem(record):
        raise DataError(f"{where}: {problem}; pass the JSON lines written by GuardResult.audit()")


def _print_tables(summary: dict[str, Any]) -> None:
    totals = summary["totals"]
    print(f"{summary['records']} audit records, {totals.get('chunks', 0)} chunks")
    print(table(["total", "count"], sorted(totals.items())))
    print("\nper audit key (hashes match only within one key)")
    print(table(["key id", "records"], sorted(summary["keys"].items())))
    for title, key, first in (
        ("rule", "rules", "rule"),
        ("stage", "stages", "stage"),
        ("principal", "principals", "principal"),
    ):
        rows = summary[key]
        print(f"\nper {title}")
        if not rows:
            print("  (none)")
            continue
        columns = sorted({c for counts in rows.values() for c in counts} - {"requests"})
        print(
            table(
                [first, "requests", *columns],
                [
                    [name, counts["requests"], *(counts.get(c, 0) for c in columns)]
                    for name, counts in rows.items()
                ],
            )
        )
