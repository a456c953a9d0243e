"""Tests for the demo, check, lint, bench and eval leakage commands run as a user would."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from rag_guard_integrations.cli import main
from rag_guard_integrations.data import load_corpus

if TYPE_CHECKING:
    from pathlib import Path


def test_demo_shows_the_three_termination_cases(capsys: pytest.CaptureFixture[str]) -> None:
    """The clause section passes the 30-day clause for MSA, 45 days for SOW, and refuses none."""
    assert main(["demo", "--section", "clause"]) == 0
    out = capsys.readouterr().out
    cases = out.split("-- caller may see: ")[1:]
    assert len(cases) == 3
    msa, sow, nothing = cases
    assert "LLM context: Either party may terminate this Agreement" in msa
    assert "thirty (30)" in msa
    assert "LLM context: Either party may terminate this Statement of Work" in sow
    assert "45" in sow.split("LLM context:")[1]
    assert "answer: 'No authorized matching clause found.'" in nothing
    assert "default deny" in nothing


@pytest.mark.parametrize("section", ["langchain", "llamaindex"])
def test_demo_framework_sections_answer_from_the_right_clause(
    section: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """The LangChain chain and the LlamaIndex engine answer each case from its own contract."""
    assert main(["demo", "--section", section]) == 0
    rows = [
        line
        for line in capsys.readouterr().out.splitlines()
        if line.startswith(("MSA ", "SOW ", "nothing "))
    ]
    assert [row.split()[0] for row in rows] == ["MSA", "SOW", "nothing"]
    assert "this Agreement" in rows[0]
    assert "Statement of Work" in rows[1]
    assert "No authorized matching clause found." in rows[2]


def test_demo_domain_and_combination_sections(capsys: pytest.CaptureFixture[str]) -> None:
    """The domain section names deciding tiers; the combination section blocks, links and warns."""
    assert main(["demo", "--section", "domain"]) == 0
    assert main(["demo", "--section", "combination"]) == 0
    out = capsys.readouterr().out
    assert "blocklist" in out
    assert "root" in out
    assert "BLOCK default_financials_client" in out
    assert "linked by #0~#1 (employee_id=e-77) -> #1~#2 (account_id=acc-9)" in out
    assert "WARN default_contact_directory" in out
    # Where labels come from: the pack's recognisers reading the text, or chunk metadata.
    assert "BLOCK default_cardholder" in out
    assert "payment_card (text: credit_card), person_name (text: person)" in out
    assert "entity_identifier (text: organization, company_number)" in out
    assert "performance_review (metadata)" in out
    rows = {line.split("  ")[0]: line for line in out.splitlines()}
    assert "accept   identifier" in rows["IS 2062 requirements"]
    assert "reject" in rows["What is 269 plus 1?"]


def write_chunks(tmp_path: Path) -> Path:
    path = tmp_path / "chunks.jsonl"
    chunks = [
        c for c in load_corpus("contracts") if c.metadata["clause_id"] == "TERMINATION_NOTICE"
    ]
    path.write_text(
        "".join(json.dumps({"text": c.text, "metadata": dict(c.metadata)}) + "\n" for c in chunks),
        encoding="utf-8",
    )
    return path


def test_check_prints_the_decisions_as_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """check with --allow passes only the allowed contract type and prints the audit record."""
    code = main(
        [
            "check",
            "--policy",
            "contracts",
            "--query",
            "termination notice period?",
            "--chunks",
            str(write_chunks(tmp_path)),
            "--allow",
            "contract_type=SOW",
        ]
    )
    record = json.loads(capsys.readouterr().out)
    assert code == 0
    allowed = [d for d in record["decisions"] if d["allowed"]]
    assert [d["metadata"]["contract_type"] for d in allowed] == ["SOW"]
    assert record["query"]["intents"] == ["TERMINATION_NOTICE"]


def test_check_exits_1_when_a_block_rule_fires(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A fired block rule is a finding: exit 1, and the violation is in the output."""
    path = tmp_path / "mosaic.jsonl"
    path.write_text(
        '{"text": "Q3 revenue $4.2M", "meta": {"classification": "financial"}}\n'
        '{"text": "Client: Northwind", "meta": {"classification": "entity_identifier"}}\n',
        encoding="utf-8",
    )
    assert main(["check", "--policy", "default", "--query", "q", "--chunks", str(path)]) == 1
    assert (
        json.loads(capsys.readouterr().out)["violations"][0]["rule"] == "default_financials_client"
    )


def test_lint_reports_every_problem_and_exit_codes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """lint prints OK for a built-in and each problem of a broken file, exiting 1."""
    assert main(["lint", "contracts"]) == 0
    assert "contracts: OK" in capsys.readouterr().out
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        "labels: {a: {}}\nrules:\n  - name: r\n    trigger: {all_present: [a, typo]}\n"
        "classifiers: {builtin: {emial: a}}\n",
        encoding="utf-8",
    )
    assert main(["lint", str(bad)]) == 1
    out = capsys.readouterr().out
    # Reported once, with what it means and the fix.
    assert len([line for line in out.splitlines() if "'typo'" in line]) == 1
    assert "triggers on label 'typo', which no label declaration" in out
    assert "unknown recogniser 'emial'" in out


def test_lint_of_a_file_extending_a_missing_pack_reports_it_as_its_problem(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The file is there to lint: the misspelt pack it extends is a problem (exit 1, on
    stdout with the other problems), not a usage error."""
    policy = tmp_path / "mine.yaml"
    policy.write_text("version: 1\nextends: [defualt]\nname: mine\n", encoding="utf-8")
    assert main(["lint", str(policy)]) == 1
    out = capsys.readouterr().out
    assert "extends 'defualt' is not a built-in policy" in out
    assert "default" in out


@pytest.mark.parametrize("name", ["missing.yaml", "folder"])
def test_lint_of_a_path_that_is_no_policy_file_is_an_input_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    """Nothing to lint is a usage error: exit 2, one line on stderr, nothing on stdout."""
    (tmp_path / "folder").mkdir()
    assert main(["lint", str(tmp_path / name)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1
    assert name in captured.err


def test_bench_reports_latency_cells(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """bench on a small grid prints one cell per (k, rules) and writes the plot."""
    png = tmp_path / "bench.png"
    args = [
        "bench",
        "--ks",
        "10,20",
        "--rules",
        "5",
        "--budget",
        "0.01",
        "--no-embedder",
        "--plot",
        str(png),
        "--json",
    ]
    assert main(args) == 0
    report = json.loads(capsys.readouterr().out)
    assert [(c["k"], c["rules"]) for c in report["cells"]] == [(10, 5), (20, 5)]
    assert all(0 < c["median_us"] <= c["p99_us"] for c in report["cells"])
    assert png.read_bytes().startswith(b"\x89PNG")


def test_eval_leakage_small_run_has_no_guarded_leak(capsys: pytest.CaptureFixture[str]) -> None:
    """On a small synthetic run the guarded paths leak nothing and every rate is a rate."""
    assert main(["eval", "leakage", "--contracts", "24", "--cases", "40", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["cases"] == 40
    pipelines = report["pipelines"]
    assert set(pipelines) == {"naive", "langchain", "llamaindex"}
    for rates in pipelines.values():
        assert all(0.0 <= value <= 1.0 for value in rates.values())
    assert pipelines["langchain"]["leakage_rate"] == 0.0
    assert pipelines["llamaindex"]["leakage_rate"] == 0.0
    assert pipelines["naive"]["leakage_rate"] > 0.5
    assert pipelines["langchain"]["authorised_recall"] >= 0.95


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["bench", "--ks", "ten"], "--ks 'ten' must be whole numbers"),
        (
            ["check", "--policy", "nope", "--query", "q", "--chunks", "x.jsonl"],
            "not a built-in policy",
        ),
        (["eval", "leakage", "--cases", "0"], "must be at least 1"),
        (
            ["check", "--policy", "contracts", "--query", " ", "--chunks", "x.jsonl"],
            "--query is empty; pass the question to check",
        ),
    ],
)
def test_bad_arguments_exit_2_with_one_line(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Usage and input errors are one line on stderr with exit 2."""
    assert main(args) == 2
    err = capsys.readouterr().err
    assert message in err
    assert err.count("\n") == 1
