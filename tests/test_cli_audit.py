"""Tests for ``rag-guard check --explain`` and ``rag-guard audit FILE``, run as a user would."""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING

import pytest

from rag_guard_integrations import AccessContext, Chunk, Guard, parse_policy
from rag_guard_integrations.cli import main

if TYPE_CHECKING:
    from pathlib import Path

SHADOW = "version: 1\nname: shadow\nextends: [default]\nmode: shadow\n"
MOSAIC = (
    '{"text": "Q3 revenue $4.2M", "id": "rev", "meta": {"classification": "financial"}}\n'
    '{"text": "Client: Northwind", "id": "who", "meta": {"classification": "entity_identifier"}}\n'
    '{"text": "Offices open at nine.", "id": "plain"}\n'
)


def chunks_file(tmp_path: Path) -> Path:
    path = tmp_path / "mosaic.jsonl"
    path.write_text(MOSAIC, encoding="utf-8")
    return path


def test_check_explain_prints_the_decision_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--explain prints one row per chunk with decision, stage, rule and reason, and exits 1."""
    path = chunks_file(tmp_path)
    args = ["check", "--policy", "default", "--query", "q", "--chunks", str(path), "--explain"]
    assert main(args) == 1
    out = capsys.readouterr().out
    rows = {line.split()[1]: line.split()[2:5] for line in out.splitlines()[3:6]}
    assert rows["rev"] == ["allow", "passed", "-"]
    assert rows["who"] == ["deny", "combination", "default_financials_client"]
    assert "rule default_financials_client block: chunks [0, 1]" in out


def test_check_audit_prints_a_record_without_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--audit --no-text prints audit record v2 holding neither chunk nor query text."""
    path = chunks_file(tmp_path)
    args = ["check", "--policy", "default", "--query", "secret question", "--chunks", str(path)]
    assert main([*args, "--audit", "--no-text", "--principal", "ann"]) == 1
    out = capsys.readouterr().out
    record = json.loads(out)
    assert (record["version"], record["principal"]) == (2, "ann")
    assert "Northwind" not in out
    assert "secret question" not in out


@pytest.fixture
def audit_log(tmp_path: Path) -> Path:
    """Audit records of five real checks, written by the audit logger to a JSONL file."""
    path = tmp_path / "audit.jsonl"
    handler = logging.FileHandler(path, encoding="utf-8")
    logger = logging.getLogger("rag_guard_integrations.audit")
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        default, shadow = Guard.from_policy("default"), Guard(parse_policy(SHADOW))
        mosaic = [
            Chunk("Q3 revenue $4.2M", {"classification": "financial"}),
            Chunk("Client: Northwind", {"classification": "entity_identifier"}),
        ]
        default.check("q", mosaic, access=AccessContext("ann"))
        default.check("q", mosaic, access=AccessContext("ann"))
        default.check("q", [Chunk("Offices open at nine.")], access=AccessContext("bob"))
        shadow.check("q", mosaic, access=AccessContext("bob"))
        Guard.from_policy("contracts").check("termination notice?", [Chunk("x")])
    finally:
        logger.removeHandler(handler)
        logger.setLevel(logging.NOTSET)
        handler.close()
    return path


def test_audit_summarises_per_rule_stage_and_principal(
    audit_log: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--json counts requests and chunk outcomes per rule, stage and principal."""
    assert main(["audit", str(audit_log), "--json"]) == 1
    summary = json.loads(capsys.readouterr().out)
    assert summary["records"] == 5
    assert summary["totals"]["requests"] == 5
    assert summary["totals"]["shadow_mode"] == 1
    rule = summary["rules"]["default_financials_client"]
    assert rule == {
        "requests": 3,
        "denied": 2,
        "denied_shadow": 1,
        "fired": 2,
        "fired_shadow": 1,
    }
    assert summary["stages"]["combination"]["denied"] == 2
    assert summary["stages"]["access"]["denied"] == 1
    assert summary["principals"]["ann"]["chunks_denied"] == 2
    assert summary["principals"]["bob"]["chunks_denied_shadow"] == 1
    assert summary["principals"]["(none)"]["refused"] == 1


def test_audit_prints_tables(audit_log: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Without --json the summary is printed as tables, one per rule, stage and principal."""
    assert main(["audit", str(audit_log)]) == 1
    out = capsys.readouterr().out
    assert out.startswith("5 audit records, 8 chunks")
    for heading in ("per rule", "per stage", "per principal"):
        assert heading in out
    assert "default_financials_client" in out


def test_audit_exits_0_when_nothing_was_withheld(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A log where every chunk was allowed is not a finding."""
    record = Guard.from_policy("default").check("q", [Chunk("Offices open at nine.")]).audit()
    path = tmp_path / "ok.jsonl"
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    assert main(["audit", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["totals"]["allowed"] == 1


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("not json\n", "line 1: not valid JSON"),
        ('{"a": 1}\n', "line 1: not an audit record"),
        ('{"version": 1, "request_id": "x"}\n', "lacks principal, chunks"),
        ('{"version": 1, "request_id": "x", "principal": null, "chunks": [{}]}\n', "chunks[]"),
        ("", "holds no audit records"),
    ],
)
def test_audit_bad_input_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, message: str
) -> None:
    """A malformed log is a one-line error naming the file and line, exit 2."""
    path = tmp_path / "bad.jsonl"
    path.write_text(content, encoding="utf-8")
    assert main(["audit", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert message in err
    assert err.startswith("rag-guard audit: ")


def test_audit_missing_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A file that does not exist is a one-line error."""
    assert main(["audit", str(tmp_path / "nope.jsonl")]) == 2
    assert "nope.jsonl" in capsys.readouterr().err


def test_check_explain_marks_shadow_decisions(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Under a shadow policy the table shows the recorded denial as not enforced, exit 0."""
    policy = tmp_path / "shadow.yaml"
    policy.write_text(SHADOW, encoding="utf-8")
    path = chunks_file(tmp_path)
    args = ["check", "--policy", str(policy), "--query", "q", "--chunks", str(path), "--explain"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "mode shadow" in out.splitlines()[0]
    assert "deny (shadow)" in out
    assert "(shadow, not enforced)" in out
