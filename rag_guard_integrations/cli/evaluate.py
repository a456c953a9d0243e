"""``rag-guard eval {leakage,clauses,domain,prompt}``: each evaluation registers its sub-command."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import argparse

EVALUATIONS = (
    "rag_guard_integrations.cli.eval_leakage",
    "rag_guard_integrations.cli.eval_clauses",
    "rag_guard_integrations.cli.eval_domain",
    "rag_guard_integrations.cli.eval_prompt",
)


def register(commands: argparse._SubParsersAction[Any]) -> None:
    """Add ``eval`` and its sub-commands (each module registers its own)."""
    parser = commands.add_parser(
        "eval",
        help="measure leakage, clause recognition, domain filter, prompt leaks",
        description="Measure the guards; each evaluation prints a table, or JSON with --json. "
        "Run `rag-guard eval EVALUATION --help` for its input, output and an example.",
    )
    kinds = parser.add_subparsers(dest="evaluation", required=True, metavar="EVALUATION")
    for module in EVALUATIONS:
        importlib.import_module(module).register(kinds)
