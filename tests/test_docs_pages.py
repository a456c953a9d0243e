"""Every code block of every documentation page runs as written: each page's blocks in order, in
one namespace and one working folder, offline (docs/contributing.md gives the rules)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from authz_support import spicedb_library
from docs_support import DOCS, Block, blocks, pages, problem, run_page

if TYPE_CHECKING:
    from pathlib import Path

pytestmark = pytest.mark.integration

PAGES = pages()


def test_the_site_has_the_pages_it_promises() -> None:
    """Quick start, both frameworks, agents, chat, pushdown, one page per authorization engine,
    the policy, CLI, audit, guarantees, measurements and API references."""
    names = {str(p.relative_to(DOCS)) for p in PAGES}
    assert {
        "index.md", "quickstart.md", "frameworks/langchain.md", "frameworks/llama_index.md",
        "agents.md", "chat.md", "pushdown.md", "authorization/index.md",
        "authorization/cedar.md", "authorization/casbin.md", "authorization/spicedb.md",
        "authorization/openfga.md", "policy.md", "cli.md", "audit.md", "guarantees.md",
        "measurements.md", "api.md", "contributing.md",
    } <= names  # fmt: skip


def test_every_block_runs_or_says_why_not() -> None:
    """No page holds a block that runs nowhere: each is python, yaml, json, bash or shown
    output, a file for a later block, or skipped with its reason."""
    assert [p for page in PAGES for b in blocks(page) if (p := problem(b))] == []


def test_the_rules_catch_a_block_that_cannot_run(tmp_path: Path) -> None:
    """An unmarked block of another language, and a skip without a reason, are problems."""
    page = DOCS / "example.md"
    assert problem(Block(page, 3, "sh", "ollama pull llama3.2\n"))
    assert problem(Block(page, 3, "python", "x = 1\n", skip=""))
    assert problem(Block(page, 3, "sh", "ollama pull llama3.2\n", skip="needs Ollama")) is None


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(DOCS)) for p in PAGES])
def test_every_block_of_the_page_runs(page: Path) -> None:
    """The page's blocks run in order; every ``print(...)  # text`` prints its text."""
    if page.name == "spicedb.md":
        spicedb_library()
    run_page(page)
