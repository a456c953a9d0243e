"""Tests for the package as shipped: public names, no framework import, the wheel's policies."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import rag_guard_integrations

ROOT = Path(__file__).resolve().parents[1]
BLOCK_FRAMEWORKS = """
import sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {"langchain_core", "llama_index", "torch",
                                  "sentence_transformers"}:
            raise ImportError(f"blocked {name}")
sys.meta_path.insert(0, Block())
"""


def test_public_names_are_exactly_all() -> None:
    """The package exports the names of the design contract and nothing private."""
    assert set(rag_guard_integrations.__all__) >= {
        "Guard",
        "AccessContext",
        "Chunk",
        "load_policy",
        "PolicyError",
        "GuardResult",
        "QueryRejected",
        "RagGuardError",
    }
    for name in rag_guard_integrations.__all__:
        assert getattr(rag_guard_integrations, name) is not None


def test_core_imports_and_checks_without_any_framework() -> None:
    """With LangChain, LlamaIndex and torch unimportable, the core still loads and checks."""
    code = BLOCK_FRAMEWORKS + (
        "from rag_guard_integrations import Guard\n"
        "import rag_guard_integrations.classify\n"
        "r = Guard.from_policy('contracts').check('termination notice period?', [], access=None)\n"
        "print(r.is_safe)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "True"


def test_wheel_installed_in_a_fresh_venv_loads_every_builtin_policy(tmp_path: Path) -> None:
    """The wheel carries the top-level ``policies/`` inside the package: installed by pip into a
    fresh virtualenv (its dependencies seen from this one), every pack loads by name."""
    subprocess.run(
        [sys.executable, "-m", "hatchling", "build", "-t", "wheel", "-d", str(tmp_path)],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    (wheel,) = tmp_path.glob("*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
    shipped = sorted(p.stem for p in (ROOT / "policies").glob("*.yaml"))
    assert shipped
    assert all(f"rag_guard_integrations/policies/{n}.yaml" in names for n in shipped)
    assert "rag_guard_integrations/py.typed" in names
    # The names table of the person and organisation recognisers, with its sources' notices.
    data = "rag_guard_integrations/classify/recognizers/data"
    assert {f"{data}/names.txt.gz", f"{data}/NOTICE.md"} <= set(names)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    site = Path(
        subprocess.run(
            [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True, text=True, check=True,
        ).stdout.strip()
    )  # fmt: skip
    pip = [sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "--quiet"]
    subprocess.run([*pip, "--target", str(site), str(wheel)], check=True, capture_output=True)
    # The dependencies (pyyaml, pydantic, RE2) from this environment, after the fresh site: a
    # path line only, so this environment's editable install of the package is not read.
    deps = next(p for p in map(Path, sys.path) if p.name == "site-packages" and p.is_dir())
    (site / "zz_dependencies.pth").write_text(f"{deps}\n")
    code = (
        "import rag_guard_integrations as p\n"
        "from rag_guard_integrations.policy.loader import builtin_dir, builtin_names\n"
        f"assert p.__file__.startswith({str(site)!r}), p.__file__\n"
        f"assert str(builtin_dir()).startswith({str(site)!r}), builtin_dir()\n"
        "for name in builtin_names(): p.load_policy(name)\n"
        "print(','.join(builtin_names()))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run(
        [python, "-c", code], capture_output=True, text=True, cwd=tmp_path, env=env, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().split(",") == shipped
