"""Every sub-command's ``--help`` answers: what it reads (with a one-line example), what it
prints, its exit codes and an example invocation that the parser accepts; ``eval prompt
--list`` names its paths; ``demo --help`` names its sections; ``repr(Guard)`` names the
policies and their hash."""

from __future__ import annotations

import contextlib
import io
import json
import shlex
from typing import TYPE_CHECKING

import pytest

from rag_guard_integrations import Guard
from rag_guard_integrations.cli import build_parser, main
from rag_guard_integrations.cli.demo import SECTIONS
from rag_guard_integrations.cli.help import CommandHelp, leaves

if TYPE_CHECKING:
    import argparse
    from pathlib import Path

pytestmark = pytest.mark.unit

LEAVES = leaves(build_parser())
IDS = [" ".join(words) for words, _ in LEAVES]


def run_cli(*argv: str) -> tuple[int, str]:
    """Exit code and stdout of ``rag-guard ARGV``."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(list(argv))
    return code, out.getvalue()


def help_of(parser: argparse.ArgumentParser) -> CommandHelp:
    """The CommandHelp a sub-command was registered with."""
    doc = parser.get_default("command_help")
    assert isinstance(doc, CommandHelp), parser.prog
    return doc


def test_the_walk_reaches_every_sub_command() -> None:
    """The walk finds the commands and the sub-commands of eval and policy."""
    assert {"demo", "check", "lint", "tag", "audit", "calibrate", "bench"} <= set(IDS)
    assert {"eval leakage", "eval clauses", "eval domain", "eval prompt"} <= set(IDS)
    assert {"policy test", "policy diff"} <= set(IDS)


@pytest.mark.parametrize(("words", "parser"), LEAVES, ids=IDS)
def test_each_help_shows_input_output_exit_codes_and_an_example(
    words: tuple[str, ...], parser: argparse.ArgumentParser
) -> None:
    """The help has its input with a one-line example, its output, its exit codes (2 for a
    usage or input error) and an example invocation, each under its own heading."""
    text = parser.format_help()
    doc = help_of(parser)
    for heading in ("input:", "output:", "exit codes:", "example:"):
        assert f"\n{heading}\n" in text, heading
    assert f"  e.g. {doc.reads_example}\n" in text  # on one line, to be copied
    assert f"  {doc.example}" in text
    assert "2 usage or input error" in " ".join(text.split())
    assert doc.example.startswith("rag-guard " + " ".join(words))


@pytest.mark.parametrize(("words", "parser"), LEAVES, ids=IDS)
def test_each_example_invocation_parses_as_that_command(
    words: tuple[str, ...], parser: argparse.ArgumentParser
) -> None:
    """The example's arguments are accepted by the real parser and reach that command."""
    argv = shlex.split(help_of(parser).example)[1:]
    parsed = build_parser().parse_args(argv)
    assert parsed.command_help is help_of(parser)


def test_the_check_example_runs_on_its_own_input_example(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The chunk line in ``check --help``, written to chunks.jsonl, passes under the help's
    example invocation: exit 0 and the chunk allowed."""
    doc = help_of(dict(zip(IDS, (p for _, p in LEAVES), strict=True))["check"])
    (tmp_path / "chunks.jsonl").write_text(doc.reads_example + "\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    code, out = run_cli(*shlex.split(doc.example)[1:])
    assert code == 0
    assert [d["allowed"] for d in json.loads(out)["decisions"]] == [True]


def test_the_policy_test_input_example_is_a_case_file_that_passes(
    tmp_path: Path,
) -> None:
    """The one-line case file in ``policy test --help`` loads and decides as it expects."""
    doc = help_of(dict(zip(IDS, (p for _, p in LEAVES), strict=True))["policy test"])
    cases = tmp_path / "cases.yaml"
    cases.write_text(doc.reads_example + "\n", encoding="utf-8")
    code, out = run_cli("policy", "test", str(cases))
    assert code == 0
    assert "all as expected" in out


def test_eval_prompt_list_names_every_path_with_one_line_each() -> None:
    """``--list`` prints each registered path once, with a description, and runs none."""
    from rag_guard_integrations.evaluation.prompt.harness import load_paths

    code, out = run_cli("eval", "prompt", "--list")
    assert code == 0
    lines = out.splitlines()
    assert [line.split()[0] for line in lines] == list(load_paths())
    assert all(len(line.split()) > 3 for line in lines)


def test_demo_help_names_its_sections_in_order() -> None:
    """Each demo section is named, with a line saying what it shows, in the order run."""
    text = build_parser().parse_args(["demo"]).command_help.epilog()
    positions = [text.index(f"  {name}: ") for name in SECTIONS]
    assert positions == sorted(positions)
    assert list(SECTIONS) == ["clause", "langchain", "llamaindex", "domain", "combination"]


def test_repr_of_a_guard_names_its_policies_and_their_hash() -> None:
    """``repr(Guard)`` shows the policy names as loaded and the start of the merged policy's
    sha256, the one its audit records carry."""
    guard = Guard.from_policy("contracts", "default")
    record = guard.check("What is the termination notice period?", []).audit()
    text = repr(guard)
    assert "policies=['contracts', 'default']" in text
    assert f"sha256={record['policy']['sha256'][:12]}" in text
    assert repr(Guard.from_policy("default")) != text
