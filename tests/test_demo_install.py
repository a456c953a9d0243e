"""`make demo` installs the ``demo`` extra only: the demo runs with nothing else importable."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from dependency_support import closure, mirror

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[1]
MAKEFILE = ROOT / "Makefile"

RUN_DEMO = textwrap.dedent(
    """
    import sys
    try:
        import langgraph  # of the agents extra: not in the demo's site folder
    except ModuleNotFoundError:
        pass
    else:
        sys.exit("langgraph is importable: the site folder holds more than the demo extra")
    from rag_guard_integrations.cli import main

    sys.exit(main(["demo"]))
    """
)


def test_make_demo_installs_the_demo_extra_alone() -> None:
    """The demo's install step names the ``demo`` extra and no other."""
    text = MAKEFILE.read_text(encoding="utf-8")
    recipe = text.split("$(DEMO_STAMP):", 1)[1].split("\n\n", 1)[0]
    assert re.findall(r"\.\[([^\]]*)\]", recipe) == ["demo"]


def test_the_demo_runs_with_only_the_demo_extra_installed(tmp_path: Path) -> None:
    """In a site folder holding only the distributions the ``demo`` extra pulls in (no site
    packages besides), ``rag-guard demo`` runs every section to the end."""
    needed = closure("demo")
    site = tmp_path / "site-packages"
    assert mirror(set(needed), site) == len(needed)
    env = {
        **os.environ,
        "HF_HUB_OFFLINE": "1",
        "PYTHONPATH": os.pathsep.join([str(site), str(ROOT)]),
    }
    done = subprocess.run(
        [sys.executable, "-S", "-c", RUN_DEMO],  # -S: no site packages but the folder above
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    for section in ("Clause guard", "LangChain", "LlamaIndex", "Domain guard", "Combination"):
        assert section in done.stdout, section
