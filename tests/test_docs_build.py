"""The site builds in MkDocs' strict mode (no broken link, page left out of the navigation or
unresolved API reference), with the CLI and policy references generated from the code."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from typing import TYPE_CHECKING

import pytest
from docs_support import DOCS, ROOT

from rag_guard_integrations.cli import build_parser
from rag_guard_integrations.cli.help import leaves

if TYPE_CHECKING:
    from pathlib import Path
    from types import ModuleType

pytestmark = pytest.mark.integration


def hooks() -> ModuleType:
    """The site's build hook module."""
    spec = importlib.util.spec_from_file_location("docs_hooks", DOCS / "hooks" / "generated.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_site_builds_strict(tmp_path: Path) -> None:
    """``mkdocs build --strict`` succeeds and writes a page per navigation entry, the API
    reference rendered from docstrings."""
    site = tmp_path / "site"
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},  # the theme's notice of its successor
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert (site / "authorization" / "spicedb" / "index.html").exists()
    api = (site / "api" / "index.html").read_text(encoding="utf-8")
    assert "from_policy" in api
    cli = (site / "cli" / "index.html").read_text(encoding="utf-8")
    assert "rag-guard eval prompt" in cli


def test_the_cli_reference_holds_every_sub_command_help() -> None:
    """The generated CLI reference holds each sub-command's help, word for word."""
    text = hooks().cli_reference()
    for words, parser in leaves(build_parser()):
        assert f"`rag-guard {' '.join(words)}`" in text
        assert parser.format_help().rstrip() in text


def test_the_policy_reference_lists_every_key_with_its_description() -> None:
    """Every policy key a file may hold has a row with its schema description; keys set by
    loading have none."""
    module = hooks()
    text = module.policy_reference()
    keys = list(module.policy_keys(module.Policy))
    for path, _, _, description in keys:
        assert f"| `{path}` |" in text
        assert description, path
    paths = {path for path, *_ in keys}
    assert {"rules[].trigger.all_present", "clauses.NAME.intents", "domain.min_similarity"} <= paths
    assert "sources" not in paths
    page = (DOCS / "policy.md").read_text(encoding="utf-8")
    assert module.on_page_markdown(page).count("| `rules[].action` |") == 1
