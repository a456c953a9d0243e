"""``rag-guard check``: a query and a JSONL file of chunks in, the GuardResult as JSON out."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from rag_guard_integrations.cli.console import print_json, print_line, table
from rag_guard_integrations.cli.help import CommandHelp, add_command
from rag_guard_integrations.core.errors import ArgumentError
from rag_guard_integrations.data.jsonl import read_jsonl

if TYPE_CHECKING:
    import argparse


HELP = CommandHelp(
    summary="check chunks for a query; print the decisions",
    reads="--chunks: a JSONL file, one chunk a line: an object with 'text' and 'meta' (or "
    "'page_content' and 'metadata'), optionally 'id' and 'score'.",
    reads_example='{"id": "msa-7", "text": "Either party may terminate on 30 days\' written '
    'notice.", "meta": {"contract_type": "MSA", "clause_id": "TERMINATION_NOTICE"}}',
    prints="JSON on stdout: the query decision and one decision per chunk (allowed, stage, "
    "reason; the text unless --no-text); --explain: a decision table; --audit: the audit "
    "record v2.",
    findings="the query was rejected or a block rule fired",
    example="rag-guard check --policy contracts --query 'What is the termination notice "
    "period?' --chunks chunks.jsonl --allow contract_type=MSA",
)


def register(commands: argparse._SubParsersAction[Any]) -> None:
    """Add the ``check`` sub-command."""
    parser = add_command(commands, "check", HELP)
    parser.add_argument("--policy", action="append", required=True, help="name or path (repeat)")
    parser.add_argument("--query", required=True, help="the user's query")
    parser.add_argument("--chunks", required=True, type=Path, help="JSONL file, one chunk a line")
    parser.add_argument(
        "--allow",
        action="append",
        default=[],
        metavar="ATTR=V1,V2",
        help="an allowlist for an access attribute (repeat)",
    )
    parser.add_argument("--principal", help="who is asking (recorded in the audit)")
    parser.add_argument("--no-text", action="store_true", help="leave chunk text out")
    shown = parser.add_mutually_exclusive_group()
    shown.add_argument("--explain", action="store_true", help="print the decision table")
    shown.add_argument("--audit", action="store_true", help="print the audit record (v2)")
    parser.set_defaults(run=run)


def parse_allow(values: list[str]) -> dict[str, list[str]]:
    """``["contract_type=MSA,SOW"]`` -> ``{"contract_type": ["MSA", "SOW"]}``.

    Raises:
        ArgumentError: a value is not ``attribute=values``, or names ``principal`` (who asks,
            given with ``--principal``, is not an allowlist).

    Example:
        >>> parse_allow(["contract_type=MSA,SOW", "region=EU"])
        {'contract_type': ['MSA', 'SOW'], 'region': ['EU']}
    """
    allow: dict[str, list[str]] = {}
    for value in values:
        name, sep, items = value.partition("=")
        name = name.strip()
        if not sep or not name:
            raise ArgumentError(f"--allow {value!r} must look like attribute=value1,value2")
        if name == "principal":
            raise ArgumentError(
                f"--allow {value!r}: principal names who is asking, not an access attribute; "
                f"pass --principal {items.strip() or 'NAME'} instead"
            )
        allow.setdefault(name, []).extend(v.strip() for v in items.split(",") if v.strip())
    return allow


def run(args: argparse.Namespace) -> int:
    """Exit 0 when the context is safe, 1 when the query was rejected or a block rule fired."""
    from rag_guard_integrations import AccessContext, Guard, load_policy  # noqa: PLC0415

    # Every input is read before the guard is built, so a bad one is the only line printed.
    if not args.query.strip():  # an unset shell variable, most often
        raise ArgumentError("--query is empty; pass the question to check")
    policy = load_policy(*args.policy)
    access = AccessContext(args.principal, **parse_allow(args.allow))
    chunks = [chunk for _, chunk in read_jsonl(args.chunks)]
    result = Guard(policy).check(args.query, chunks, access=access)
    if args.explain:
        explain(result.audit(include_query=not args.no_text))
    elif args.audit:
        print_json(result.audit(include_query=not args.no_text))
    else:
        print_json(result.to_dict(include_text=not args.no_text))
    return 0 if result.query.allowed and result.is_safe else 1


def explain(record: dict[str, Any]) -> None:
    """The query verdict, one row per chunk (decision, stage, rule, reason), rules and notices."""
    query = record["query"]
    verdict = "allowed" if query["allowed"] else "rejected"
    intents = ", ".join(query["intents"]) or "none"
    print_line(
        f"query {verdict} (tier {query['tier'] or '-'}; intents {intents}); mode {record['mode']}"
    )
    rows = [
        [
            c["index"],
            c["id"] or c["content_hmac"][:12],
            c["decision"] if c["enforced"] else f"{c['decision']} (shadow)",
            c["stage"],
            c["rule"] or "-",
            c["reason"],
        ]
        for c in record["chunks"]
    ]
    print(table(["#", "chunk", "decision", "stage", "rule", "reason"], rows))
    for rule in record["rules"]:
        state = "" if rule["enforced"] else " (shadow, not enforced)"
        print_line(f"rule {rule['rule']} {rule['action']}{state}: chunks {rule['chunks']}")
    for notice in record["notices"]:
        print_line(f"notice: {notice}")
