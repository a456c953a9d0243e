"""``rag-guard eval {leakage,clauses,domain}``: each evaluation registers its own sub-command."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import argparse

EVALUATIONS = ("leakage", "clauses", "domain")


def register(commands: argparse._SubParsersAction[Any]) -> None:
    """Add ``eval`` and its sub-commands (one module each in ``evaluation/``)."""
    parser = commands.add_parser("eval", help="measure leakage, clause recognition, domain filter")
    kinds = parser.add_subparsers(dest="evaluation", required=True, metavar="EVALUATION")
    for name in EVALUATIONS:
        importlib.import_module(f"rag_guard_integrations.evaluation.{name}").register(kinds)
