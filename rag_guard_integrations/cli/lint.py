"""``rag-guard lint POLICY...``: print every problem (exit 1) or OK (exit 0), then the notes:
the rules that need a classifier because no recogniser gives one of their labels."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rag_guard_integrations.cli.console import print_json
from rag_guard_integrations.cli.help import CommandHelp, add_command
from rag_guard_integrations.core.printable import printable

if TYPE_CHECKING:
    import argparse


HELP = CommandHelp(
    summary="validate policies and report every problem",
    reads="one or more policies: a built-in name (base, default, finance, hipaa, gdpr, "
    "contracts, bis) or a YAML file; several are merged as Guard.from_policy merges them.",
    reads_example="rag-guard lint policies/my_policy.yaml",
    prints="every problem (file, key path, line, fix), or OK; then notes: the rules that need "
    "a classifier or labels in metadata because no recogniser gives one of their labels. "
    "--json: {POLICY: [problems]}.",
    findings="a policy has a problem",
    example="rag-guard lint default my_policy.yaml",
)


def register(commands: argparse._SubParsersAction[Any]) -> None:
    """Add the ``lint`` sub-command."""
    parser = add_command(commands, "lint", HELP)
    parser.add_argument("policies", nargs="+", metavar="POLICY", help="built-in name or path")
    parser.add_argument("--json", action="store_true", help="machine-readable result")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Lint each policy; exit 1 when any has a problem."""
    from rag_guard_integrations.policy.lint import lint, notes  # noqa: PLC0415

    report: dict[str, list[str]] = {}
    noted: dict[str, list[str]] = {}
    for ref in args.policies:
        policy, problems = lint(ref)
        report[ref] = problems
        noted[ref] = [] if policy is None else notes(policy)
    if args.json:
        print_json({"policies": report, "notes": noted, "ok": not any(report.values())})
    else:
        for ref, problems in report.items():
            # A problem quotes the file's own keys and values: escaped, as every table is.
            print(printable(ref) + ": OK" if not problems else "\n".join(map(printable, problems)))
            print("".join(f"  note: {printable(line)}\n" for line in noted[ref]), end="")
    return 1 if any(report.values()) else 0
