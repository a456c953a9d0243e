"""Tests for ``rag-guard check --explain`` and ``rag-guard audit FILE``, run as a user would."""

from __future__ import annotations

import json
import logging
import unicodedata
from typing import TYPE_CHECKING

import jsonschema
import pytest

from rag_guard_integrations import AccessContext, Chunk, Guard, parse_policy
from rag_guard_integrations.cli import main
from rag_guard_integrations.cli.audit_schema import KEYWORDS
from rag_guard_integrations.core.audit import audit_schema

if TYPE_CHECKING:
    from pathlib import Path

SHADOW = "version: 1\nname: shadow\nextends: [default]\nloosen: [mode]\nmode: shadow\n"
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
        ('{"version": 1, "request_id": "x"}\n', "the record lacks time, principal, access"),
        ('{"version": 2, "request_id": "x", "principal": null}\n', "lacks time, access"),
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


REDACTING = """
version: 1
name: redacting
classifiers: {builtin: {email: contact_details}}
labels: {contact_details: {}, financial: {}, entity_identifier: {}}
rules:
  - {name: no_contact, action: redact, trigger: {all_present: [contact_details]}}
  - {name: money_and_client, trigger: {all_present: [financial, entity_identifier]}}
"""
WRONG_VALUES: tuple[object, ...] = (None, True, 0, -1, 1.5, "x", [], {}, [None], {"k": None})


def valid_record() -> dict[str, object]:
    """A real audit record with every kind of field filled: chunk decisions of each outcome,
    a redaction, fired rules, a notice and an access."""
    chunks = [
        Chunk("Write to ann@example.com", id="mail"),
        Chunk("Q3 revenue $4.2M", {"classification": "financial"}, id="rev"),
        Chunk("Client: Northwind", {"classification": "entity_identifier"}, id="who"),
        Chunk("Offices open at nine.", id="plain"),
    ]
    guard = Guard(parse_policy(REDACTING))
    result = guard.check("q", chunks, access=AccessContext("ann", region={"EU"}))
    record = result.audit()
    assert {c["decision"] for c in record["chunks"]} == {"allow", "deny", "redact"}
    assert record["rules"]
    assert record["notices"]
    return record


def paths(value: object, prefix: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
    """Every key path inside ``value`` (objects and arrays)."""
    found: list[tuple[object, ...]] = []
    items = (
        value.items()
        if isinstance(value, dict)
        else enumerate(value)
        if isinstance(value, list)
        else ()
    )
    for key, item in items:
        found.append((*prefix, key))
        found.extend(paths(item, (*prefix, key)))
    return found


def replaced(record: object, path: tuple[object, ...], value: object) -> object:
    copy = json.loads(json.dumps(record))
    holder = copy
    for key in path[:-1]:
        holder = holder[key]
    if value is DELETE:
        del holder[path[-1]]
    else:
        holder[path[-1]] = value
    return copy


DELETE = object()


def test_audit_refuses_every_malformed_field_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every field of a real record replaced by each wrong type (or removed) gives exit 2 and
    one line naming the field exactly when the shipped schema refuses it (judged by the
    jsonschema reference validator); values the schema allows are summarised."""
    reference = jsonschema.Draft202012Validator(audit_schema())
    record = valid_record()
    path = tmp_path / "fuzz.jsonl"
    checked = 0
    for where in paths(record):
        for value in (*WRONG_VALUES, DELETE):
            mutated = replaced(record, where, value)
            path.write_text(json.dumps(mutated) + "\n", encoding="utf-8")
            code = main(["audit", str(path), "--json"])
            err = capsys.readouterr().err
            if reference.is_valid(mutated):
                assert code in {0, 1}, (where, value, err)
            else:
                assert code == 2, (where, value)
                assert err.count("\n") == 1, err
                assert err.startswith(f"rag-guard audit: {path} line 1: "), err
                checked += 1
    assert checked > 500


def test_audit_names_the_malformed_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The message names the field's path and what it should be."""
    record = valid_record()
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(replaced(record, ("rules", 0, "chunks"), "0,1")) + "\n")
    assert main(["audit", str(path)]) == 2
    assert "rules[0].chunks is a string, expected array" in capsys.readouterr().err
    path.write_text(json.dumps(replaced(record, ("chunks", 1, "decision"), "maybe")) + "\n")
    assert main(["audit", str(path)]) == 2
    assert "chunks[1].decision is 'maybe', expected one of 'allow'" in capsys.readouterr().err


@pytest.mark.parametrize("allow", ["principal=mallory", "principal=a,b", " principal ="])
def test_check_allow_principal_is_a_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], allow: str
) -> None:
    """--allow principal=X names who asks, not an allowlist: one line pointing to --principal,
    exit 2."""
    path = chunks_file(tmp_path)
    args = ["check", "--policy", "default", "--query", "q", "--chunks", str(path)]
    assert main([*args, "--allow", allow]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "principal names who is asking" in err
    assert "--principal" in err


HOSTILE_IDS = ("\x1b[2J\x1b[31mred", "\u202egnp.exe", "two\u2028lines", "csi\x9b31m", "lone\ud800")


def raw_controls(text: str) -> list[str]:
    """Characters in ``text`` that would reach a terminal raw (newlines between lines aside)."""
    unsafe = {"Cc", "Cf", "Zl", "Zp", "Cs"}
    return [c for c in text if c != "\n" and unicodedata.category(c) in unsafe]


@pytest.mark.parametrize("shown", ["--explain", "--audit", None])
def test_check_output_escapes_control_characters(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], shown: str | None
) -> None:
    """Chunk ids carrying terminal escapes, bidi controls, separators or lone surrogates are
    printed escaped in the decision table and in JSON (which stays valid JSON)."""
    path = tmp_path / "hostile.jsonl"
    lines = [
        json.dumps({"text": "Q3 revenue", "id": cid, "meta": {"classification": "financial"}})
        for cid in HOSTILE_IDS
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    args = ["check", "--policy", "default", "--query", "q", "--chunks", str(path)]
    main([*args, *([shown] if shown else [])])
    out = capsys.readouterr().out
    assert raw_controls(out) == []
    assert "\\u001b[2J" in out
    assert "\\u202egnp.exe" in out
    if shown != "--explain":  # JSON that parses back to the very ids
        assert all(json.dumps(cid)[1:-1] in json.dumps(json.loads(out)) for cid in HOSTILE_IDS)


def test_audit_tables_escape_control_characters(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A principal or rule name holding control characters is printed escaped in the tables."""
    record = valid_record()
    hostile = replaced(record, ("principal",), "\x1b]0;owned\x07eve\u202e")
    path = tmp_path / "audit.jsonl"
    path.write_text(json.dumps(hostile) + "\n", encoding="utf-8")
    assert main(["audit", str(path)]) == 1
    out = capsys.readouterr().out
    assert raw_controls(out) == []
    assert "\\u001b]0;owned\\u0007eve\\u202e" in out


def test_an_error_quoting_control_characters_stays_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A path holding a newline and an escape sequence is quoted escaped: one line on stderr."""
    missing = tmp_path / "no\nsuch\x1b[2J.jsonl"
    assert main(["audit", str(missing)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert raw_controls(err[:-1]) == []
    assert "no\\u000asuch\\u001b[2J.jsonl" in err


def test_the_record_check_reads_every_keyword_the_shipped_schema_uses() -> None:
    """The audit schema uses no JSON Schema keyword the record check would skip."""
    used: set[str] = set()
    stack: list[object] = [audit_schema()]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            for key, value in node.items():
                # property and definition names are data, not keywords
                if key in {"properties", "$defs"}:
                    stack.extend(value.values())
                else:
                    used.add(key)
                    stack.append(value)
        elif isinstance(node, list):
            stack.extend(node)
    assert used <= KEYWORDS, used - KEYWORDS
