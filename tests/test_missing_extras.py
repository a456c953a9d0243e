"""A framework or optional package that is not installed is named with the extra to install:
an adapter package's import, the agent components, and the CLI options that need one (a
one-line error before any work, never a traceback)."""

from __future__ import annotations

import importlib
import json
import sys
from typing import TYPE_CHECKING

import pytest

from rag_guard_integrations import cli
from rag_guard_integrations.core.errors import MissingExtraError

if TYPE_CHECKING:
    from pathlib import Path

pytestmark = pytest.mark.unit


def _without(monkeypatch: pytest.MonkeyPatch, missing: str, package: str) -> None:
    """Make ``missing`` unimportable and ``package`` (with its submodules) imported afresh."""
    monkeypatch.setitem(sys.modules, missing, None)
    for name in [n for n in sys.modules if n == package or n.startswith(f"{package}.")]:
        monkeypatch.delitem(sys.modules, name)


@pytest.mark.parametrize(
    ("package", "missing", "extra"),
    [
        ("rag_guard_integrations.langchain", "langchain_core", "langchain"),
        ("rag_guard_integrations.llama_index", "llama_index.core", "llamaindex"),
        ("rag_guard_integrations.haystack", "haystack", "haystack"),
    ],
)
def test_an_adapter_without_its_framework_names_the_extra(
    monkeypatch: pytest.MonkeyPatch, package: str, missing: str, extra: str
) -> None:
    _without(monkeypatch, missing, package)
    install = rf"pip install 'rag-guard-integrations\[{extra}\]'"
    with pytest.raises(MissingExtraError, match=install):
        importlib.import_module(package)


@pytest.mark.parametrize("name", ["GuardMiddleware", "GuardedCheckpointer"])
def test_the_agent_components_without_langgraph_name_the_agents_extra(
    monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    _without(monkeypatch, "langgraph", "rag_guard_integrations.langchain.middleware")
    monkeypatch.delitem(sys.modules, "rag_guard_integrations.langchain.checkpointer", False)
    for module in [n for n in sys.modules if n == "langgraph" or n.startswith("langgraph.")]:
        monkeypatch.setitem(sys.modules, module, None)
    for module in [n for n in sys.modules if n.startswith("langchain.agents")]:
        monkeypatch.delitem(sys.modules, module)
    adapters = importlib.import_module("rag_guard_integrations.langchain")
    with pytest.raises(MissingExtraError, match=r"\[agents\]'"):
        getattr(adapters, name)


def test_bench_plot_without_matplotlib_is_one_line_before_the_grid_runs(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    args = ["bench", "--no-embedder", "--ks", "10", "--rules", "1", "--budget", "0.01"]
    assert cli.main([*args, "--plot", str(tmp_path / "x.png")]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.strip().splitlines() == [
        "rag-guard bench: --plot needs the 'matplotlib' module: "
        "pip install 'rag-guard-integrations[plot]'"
    ]
    assert not (tmp_path / "x.png").exists()


def test_tag_with_the_llm_classifier_without_langchain_ollama_is_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.setitem(sys.modules, "langchain_ollama", None)
    source = tmp_path / "in.jsonl"
    source.write_text(json.dumps({"text": "Q3 revenue rose"}) + "\n", encoding="utf-8")
    args = ["tag", str(source), "--out", str(tmp_path / "o.jsonl")]
    assert cli.main([*args, "--classifier", "llm", "--model", "llama3.2"]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert lines == [
        "rag-guard tag: the LLM classifier needs the 'langchain_ollama' module: "
        "pip install 'rag-guard-integrations[ollama]'"
    ]
