"""``rag-guard policy diff OLD NEW --cases FILE``: every decision of a case file that changes
between two policy versions; exit 1 when any does (a CI gate on policy changes)."""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rag_guard_integrations.cli.console import print_json
from rag_guard_integrations.cli.help import CommandHelp, add_command
from rag_guard_integrations.cli.policy_test import CASE_EXAMPLE
from rag_guard_integrations.core.printable import printable

if TYPE_CHECKING:
    import argparse

HELP = CommandHelp(
    summary="list the decisions that change between two policy versions (exit 1 if any)",
    reads="OLD and NEW: built-in names or YAML files; --cases: a case file in the format of "
    "`rag-guard policy test` (see its --help): its policies and expectations are ignored here, "
    "its access_source applies to both versions.",
    reads_example=CASE_EXAMPLE,
    prints="each change as:  'case name' chunk 0: allow (passed) -> deny (access): reason; "
    'then a count; --json: {"decisions": N, "changes": [...]}.',
    findings="some decision changes",
    example="rag-guard policy diff policies/v1.yaml policies/v2.yaml --cases access-tests.yaml",
)


def register(commands: argparse._SubParsersAction[Any]) -> None:
    """Add ``policy diff``."""
    parser = add_command(
        commands,
        "diff",
        HELP,
        description="Decide every case under OLD and under NEW and list what changes.",
    )
    parser.add_argument("old", metavar="OLD", help="the current policy: built-in name or path")
    parser.add_argument("new", metavar="NEW", help="the proposed policy: built-in name or path")
    parser.add_argument("--cases", type=Path, required=True, help="the case file (YAML)")
    parser.add_argument("--json", action="store_true", help="machine-readable result")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Decide each case under both versions; print the changes."""
    from rag_guard_integrations.authz.case_runs import changes  # noqa: PLC0415
    from rag_guard_integrations.authz.cases import load_cases, open_source  # noqa: PLC0415
    from rag_guard_integrations.engine.guard import Guard  # noqa: PLC0415

    cases, base = load_cases(args.cases)
    with ExitStack() as stack:
        source = open_source(cases.access_source, base, stack)
        old = Guard.from_policy(args.old, access_source=source)
        new = Guard.from_policy(args.new, access_source=source)
        compared, changed = changes(old, new, cases.cases)
    if args.json:
        rows = [{"old": a.to_dict(), "new": b.to_dict()} for a, b in changed]
        print_json({"decisions": compared, "changes": rows})
    else:
        for before, after in changed:
            change = f"{before.brief()} -> {after.brief()}: {after.reason}"
            print(printable(f"{before.case!r} chunk {before.chunk}: {change}"))
        print(f"{args.old} -> {args.new}: {len(changed)} of {compared} decisions change")
    return 1 if changed else 0
