"""Every sub-command's help has one shape: under the options, what it reads (with a one-line
example), what it prints, its exit codes and an example invocation. The docs' CLI reference
walks the same parsers (:func:`leaves`)."""

from __future__ import annotations

import argparse
import textwrap
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Mapping

WIDTH = 78
USAGE_ERROR = "usage or input error, one line on stderr"


@dataclass(frozen=True, slots=True)
class CommandHelp:
    """What a sub-command's help says besides its options.

    ``findings`` is what exit code 1 means (None: the command never finds anything, so it
    exits 0 or 2); ``sections`` adds named paragraphs (a file format, a list of choices).

    Example:
        >>> print(CommandHelp(
        ...     summary="validate policies",
        ...     reads="policy names or YAML files",
        ...     reads_example="policies/my_policy.yaml",
        ...     prints="every problem found, or OK",
        ...     findings="a problem was found",
        ...     example="rag-guard lint default",
        ... ).epilog())
        input:
          policy names or YAML files
          e.g. policies/my_policy.yaml
        output:
          every problem found, or OK
        exit codes:
          0 ok; 1 a problem was found; 2 usage or input error, one line on stderr
        example:
          rag-guard lint default
    """

    summary: str
    reads: str
    reads_example: str
    prints: str
    example: str
    findings: str | None = None
    sections: Mapping[str, str] = field(default_factory=dict)

    def exit_codes(self) -> str:
        """The exit codes as one line."""
        found = f"; 1 {self.findings}" if self.findings else ""
        return f"0 ok{found}; 2 {USAGE_ERROR}"

    def epilog(self) -> str:
        """The text after the option list; the examples stay on one line each, to be copied."""
        parts = [
            ("input", _wrapped(self.reads) + "\n  e.g. " + self.reads_example),
            *((title, _wrapped(text)) for title, text in self.sections.items()),
            ("output", _wrapped(self.prints)),
            ("exit codes", _wrapped(self.exit_codes())),
            ("example", "  " + self.example),
        ]
        return "\n".join(f"{title}:\n{text}" for title, text in parts)


def add_command(
    commands: argparse._SubParsersAction[Any],
    name: str,
    doc: CommandHelp,
    description: str | None = None,
) -> argparse.ArgumentParser:
    """Add sub-command ``name`` with ``doc`` as its help (``description`` above the options,
    else the summary)."""
    parser: argparse.ArgumentParser = commands.add_parser(
        name,
        help=doc.summary,
        description=textwrap.fill(
            description or doc.summary[0].upper() + doc.summary[1:] + ".", WIDTH
        ),
        epilog=doc.epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.set_defaults(command_help=doc)
    return parser


def leaves(
    parser: argparse.ArgumentParser, path: tuple[str, ...] = ()
) -> list[tuple[tuple[str, ...], argparse.ArgumentParser]]:
    """Every runnable sub-command under ``parser`` as ``(words after rag-guard, parser)``, in
    the order the help lists them.

    Example:
        >>> from rag_guard_integrations.cli import build_parser
        >>> [" ".join(words) for words, _ in leaves(build_parser())][:3]
        ['demo', 'check', 'lint']
    """
    found: list[tuple[tuple[str, ...], argparse.ArgumentParser]] = []
    groups = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not groups:
        return [(path, parser)]
    for group in groups:
        for name, child in group.choices.items():
            found.extend(leaves(child, (*path, name)))
    return found


def _wrapped(text: str) -> str:
    lines = []
    for paragraph in text.split("\n"):
        if paragraph.startswith(" "):  # laid out by hand (a file format): kept as it is
            lines.append("  " + paragraph)
            continue
        lines.extend(
            textwrap.wrap(
                paragraph,
                WIDTH,
                initial_indent="  ",
                subsequent_indent="    ",
                break_on_hyphens=False,
                break_long_words=False,
            )
            or [""]
        )
    return "\n".join(lines)
