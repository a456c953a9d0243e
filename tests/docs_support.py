"""Runs the code blocks of a documentation page (a page of docs/, or the README) as a reader
would, in order, in one working folder: python blocks in one namespace (each ``print(...)  #
text`` line must print that text), yaml blocks as policies, json blocks parsed, bash blocks'
``rag-guard`` lines through the CLI. docs/contributing.md describes the markers."""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shlex
import sys
import tempfile
import types
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
README = ROOT / "README.md"

FENCE = re.compile(
    r"^(?P<indent>[ \t]*)```(?P<language>[\w-]*)[^\n]*\n(?P<body>.*?)^(?P=indent)```[ \t]*$",
    re.MULTILINE | re.DOTALL,
)
MARKER = re.compile(r"<!--\s*(?P<kind>skip|file):\s*(?P<value>.*?)\s*-->\s*$")
EXPECTED = re.compile(r"^print\((?P<call>.*)\)\s+# (?P<text>.+)$")
RUN = {"python", "yaml", "json", "bash"}
SHOWN = {"text"}  # output shown to the reader, not code
EXIT_USAGE = 2


@dataclass(frozen=True, slots=True)
class Block:
    """One fenced block of a page and the marker on the line before it, if any."""

    page: Path
    line: int
    language: str
    text: str
    skip: str | None = None
    file: str | None = None

    @property
    def where(self) -> str:
        """``page:line`` for messages."""
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def pages() -> list[Path]:
    """Every page of the site (docs/**/*.md)."""
    return sorted(p for p in DOCS.rglob("*.md") if "hooks" not in p.relative_to(DOCS).parts)


def blocks(page: Path) -> list[Block]:
    """The page's fenced blocks in order, each with the marker of the line before it."""
    text = page.read_text(encoding="utf-8")
    found = []
    for match in FENCE.finditer(text):
        before = text[: match.start()].rstrip("\n").rpartition("\n")[2]
        marker = MARKER.search(before)
        body = "\n".join(
            line.removeprefix(match.group("indent")) for line in match.group("body").splitlines()
        )
        kind = marker.group("kind") if marker else None
        found.append(
            Block(
                page=page,
                line=text.count("\n", 0, match.start()) + 1,
                language=match.group("language"),
                text=body + "\n",
                skip=marker.group("value") if kind == "skip" else None,
                file=marker.group("value") if kind == "file" else None,
            )
        )
    return found


def problem(block: Block) -> str | None:
    """Why the block breaks the rules (no language, a language that does not run without a
    marker, a skip without its reason), or None."""
    if block.skip is not None:
        return None if block.skip else f"{block.where}: a skip marker needs its reason"
    if block.file is not None or block.language in RUN | SHOWN:
        return None
    return (
        f"{block.where}: a ```{block.language or '(no language)'} block runs nowhere; use one of "
        f"{sorted(RUN | SHOWN)} or mark it <!-- skip: why it cannot run here -->"
    )


@cache
def run_page(page: Path) -> dict[str, Any]:
    """Run every block of ``page`` in a fresh working folder; the python namespace left."""
    # A module of its own, as a reader's script would be: classes the page defines resolve
    # their module (dataclasses, pickling).
    module = types.ModuleType(f"docs_page_{page.stem}")
    sys.modules[module.__name__] = module
    namespace = module.__dict__
    folder = Path(tempfile.mkdtemp(prefix=f"docs-{page.stem}-"))
    previous = Path.cwd()
    os.chdir(folder)
    try:
        for block in blocks(page):
            run_block(block, namespace)
    finally:
        os.chdir(previous)
    return namespace


def run_block(block: Block, namespace: dict[str, Any]) -> None:
    """Run one block in the current working folder (a marked skip does nothing)."""
    if block.skip is not None:
        return
    if block.file is not None:
        Path(block.file).write_text(block.text, encoding="utf-8")
    elif block.language == "python":
        _run_python(block, namespace)
    elif block.language == "yaml":
        from rag_guard_integrations import parse_policy

        parse_policy(block.text, block.where)
    elif block.language == "json":
        json.loads(block.text)
    elif block.language == "bash":
        _run_commands(block)


def _run_python(block: Block, namespace: dict[str, Any]) -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        # dont_inherit: the page's code is compiled as written, not under this module's
        # ``from __future__`` imports.
        exec(compile(block.text, block.where, "exec", dont_inherit=True), namespace)
    printed = out.getvalue()
    for line in block.text.splitlines():
        if match := EXPECTED.match(line.strip()):
            # "# {'SOW'}: the default": what follows ": " explains, it is not printed.
            want = match.group("text").split(": ")[0]
            assert want in printed, f"{block.where}: {want!r} not printed; got {printed!r}"


def _run_commands(block: Block) -> None:
    from rag_guard_integrations.cli import main

    for line in block.text.splitlines():
        words = shlex.split(line, comments=True)
        if not words:
            continue
        assert words[0] == "rag-guard", (
            f"{block.where}: only rag-guard commands run here; mark the block "
            "<!-- skip: why --> for others"
        )
        with contextlib.redirect_stdout(io.StringIO()):
            code = main(words[1:])
        assert code != EXIT_USAGE, f"{block.where}: {line!r} exited {code}"
