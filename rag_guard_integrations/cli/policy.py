"""``rag-guard policy {test,diff}``: access and policies as code, checked in CI."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import argparse

SUBCOMMANDS = ("policy_test", "policy_diff")


def register(commands: argparse._SubParsersAction[Any]) -> None:
    """Add the ``policy`` group and its sub-commands."""
    parser = commands.add_parser(
        "policy",
        help="test policies against expected decisions, or diff two versions",
        description="Access and policies as code: `policy test` checks expected decisions, "
        "`policy diff` lists the decisions two versions disagree on. Run `rag-guard policy "
        "SUBCOMMAND --help` for the case file format and an example.",
    )
    group = parser.add_subparsers(dest="policy_command", required=True, metavar="SUBCOMMAND")
    for name in SUBCOMMANDS:
        importlib.import_module(f"rag_guard_integrations.cli.{name}").register(group)
