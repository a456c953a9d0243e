"""The ``rag-guard`` command: one module per sub-command, errors as one line on stderr."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from typing import TYPE_CHECKING

from rag_guard_integrations.cli.help import USAGE_ERROR
from rag_guard_integrations.core.errors import RagGuardError
from rag_guard_integrations.core.printable import printable

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["main"]
COMMANDS = ("demo", "check", "lint", "tag", "evaluate", "calibrate", "bench", "audit", "policy")
EXIT_USAGE = 2


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every sub-command registered."""
    parser = argparse.ArgumentParser(
        prog="rag-guard",
        description="Check retrieved chunks before they reach an LLM.",
        epilog="Run `rag-guard COMMAND --help` for what a command reads, prints and exits with. "
        f"Exit codes: 0 ok, 1 findings, 2 {USAGE_ERROR}.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"rag_guard_integrations.cli.{name}").register(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit code (0 ok, 1 findings, 2 usage or input error)."""
    args = build_parser().parse_args(argv)
    try:
        code: int = args.run(args)
    except RagGuardError as error:
        # One line, whatever the message quotes (a path or value holding control characters).
        print(printable(f"rag-guard {args.command}: {error}"), file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print(f"rag-guard {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (`rag-guard check ... | head`): stop quietly, as cat does.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141
    return code
