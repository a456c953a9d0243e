"""``rag-guard policy test FILE``: run a case file of expected decisions; exit 1 on a
mismatch, with a readable diff of each."""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rag_guard_integrations.cli.console import print_json
from rag_guard_integrations.cli.help import CommandHelp, add_command
from rag_guard_integrations.core.printable import printable

if TYPE_CHECKING:
    import argparse

FORMAT = """\
  policies: [contracts]            built-in names or paths, relative to the file
  access_source:                   optional, one engine; files relative to the case file
    cedar:  {policies: FILE.cedar, entities: FILE.json, resource_key: doc_id}
    casbin: {model: FILE.conf, policy: FILE.csv, domain: acme, resource_key: doc_id}
    spicedb: {schema: FILE.zed, relationships: FILE.txt, resource_key: doc_id}   (embedded)
  cases:
    - name: an MSA reader sees the MSA termination clause
      principal: alice             optional; access: {attribute: [values]} optional
      access: {contract_type: [MSA]}
      query: What is the termination notice period?
      chunk: {text: "...", meta: {doc_id: msa-1, contract_type: MSA}}
      expect: allow                allow | deny | redact; stage: and rule: optional
    - name: several chunks judged together
      query: ...
      chunks: [{text: ..., expect: deny, stage: authz}, {text: ..., expect: allow}]"""

CASE_EXAMPLE = (
    "{policies: [contracts], cases: [{name: no access, query: 'What is the notice period?', "
    "chunk: {text: 30 days notice, meta: {contract_type: MSA}}, expect: deny}]}"
)
HELP = CommandHelp(
    summary="run a case file of expected decisions (exit 1 on a mismatch)",
    reads="FILE: a YAML case file: the policies, optionally an access source, and cases of "
    "principal, access, query and chunk(s), each with its expected decision (format below).",
    reads_example=CASE_EXAMPLE,
    sections={"the case file": FORMAT},
    prints="each mismatch as expected/got lines, then one line: cases, decisions and how many "
    'differ; --json: {"decisions": N, "mismatches": [...]}.',
    findings="a decision differs from the expected one",
    example="rag-guard policy test access-tests.yaml",
)


def register(commands: argparse._SubParsersAction[Any]) -> None:
    """Add ``policy test``."""
    parser = add_command(
        commands, "test", HELP, description="Check that every case decides as the file expects."
    )
    parser.add_argument("file", type=Path, help="the case file (YAML, format below)")
    parser.add_argument("--json", action="store_true", help="machine-readable result")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Run the cases; print each mismatch as expected/got lines."""
    from rag_guard_integrations.authz.case_runs import mismatches  # noqa: PLC0415
    from rag_guard_integrations.authz.cases import (  # noqa: PLC0415
        load_cases,
        open_source,
        policy_refs,
    )
    from rag_guard_integrations.core.errors import DataError  # noqa: PLC0415
    from rag_guard_integrations.engine.guard import Guard  # noqa: PLC0415

    cases, base = load_cases(args.file)
    if not cases.policies:
        raise DataError(f"{args.file}: policies is empty; name the policies the cases test")
    with ExitStack() as stack:
        source = open_source(cases.access_source, base, stack)
        guard = Guard.from_policy(*policy_refs(cases.policies, base), access_source=source)
        checked, found = mismatches(guard, cases.cases)
    if args.json:
        print_json({"decisions": checked, "mismatches": [m.to_dict() for m in found]})
    else:
        for mismatch in found:
            got = mismatch.decided
            # Reasons quote the cases' chunks: escaped, as every table is.
            print(printable(f"FAIL {got.case!r} chunk {got.chunk}"))
            print(printable(f"  - expected: {mismatch.expected}"))
            print(printable(f"  + got:      {got.brief()}: {got.reason}"))
        verdict = "all as expected" if not found else f"{len(found)} differ"
        print(printable(f"{args.file}: {len(cases.cases)} cases, {checked} decisions, {verdict}"))
    return 1 if found else 0
