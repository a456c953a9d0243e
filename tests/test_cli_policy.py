"""``rag-guard policy test`` and ``policy diff``: case files of expected decisions, run under
each real engine; a mismatch or a change is exit 1 with a readable diff, bad input one line
and exit 2."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest
from authz_support import spicedb_library

from rag_guard_integrations.authz.sample import (
    CASBIN_MODEL,
    CEDAR_POLICIES,
    SPICEDB_SCHEMA,
    SampleOrg,
)
from rag_guard_integrations.cli import main

if TYPE_CHECKING:
    from pathlib import Path

pytestmark = pytest.mark.unit

ORG = SampleOrg.build()
CLAUSE = "Either party may terminate this Agreement on thirty (30) days' written notice."
CASES = """\
policies: [contracts]
access_source:
  {source}
cases:
  - name: a backend engineer reads the backend MSA clause
    principal: ana
    access: {{contract_type: [MSA]}}
    query: What is the termination notice period?
    chunk: {{text: "{clause}", meta: {{doc_id: backend-0, contract_type: MSA,
             clause_id: TERMINATION_NOTICE}}}}
    expect: allow
  - name: payroll's clause is withheld from her, whatever the index metadata says
    principal: ana
    access: {{contract_type: [MSA]}}
    query: What is the termination notice period?
    chunks:
      - {{text: "{clause}", meta: {{doc_id: payroll-0, contract_type: MSA,
          clause_id: TERMINATION_NOTICE}}, expect: deny, stage: authz}}
      - {{text: "{clause}", meta: {{doc_id: payroll-1, contract_type: SOW,
          clause_id: TERMINATION_NOTICE}}, expect: deny, stage: access}}
  - name: nobody without a principal
    access: {{contract_type: [MSA]}}
    query: What is the termination notice period?
    chunk: {{text: "{clause}", meta: {{doc_id: staff-0, contract_type: MSA,
             clause_id: TERMINATION_NOTICE}}}}
    expect: deny
    stage: authz
"""
SOURCES = {
    "cedar": "cedar: {policies: access.cedar, entities: entities.json, resource_key: doc_id}",
    "casbin": (
        "casbin: {model: model.conf, policy: policy.csv, domain: acme, resource_key: doc_id}"
    ),
    "spicedb": (
        "spicedb: {schema: schema.zed, relationships: relationships.txt, resource_key: doc_id}"
    ),
}


def case_file(folder: Path, engine: str, **replace: str) -> Path:
    """The case file over ``engine``, with the engine's files beside it."""
    (folder / "access.cedar").write_text(CEDAR_POLICIES)
    (folder / "entities.json").write_text(ORG.cedar_entities_json())
    (folder / "model.conf").write_text(CASBIN_MODEL)
    (folder / "policy.csv").write_text(ORG.casbin_policy())
    (folder / "schema.zed").write_text(SPICEDB_SCHEMA)
    (folder / "relationships.txt").write_text("\n".join(ORG.spicedb_relationships()))
    text = CASES.format(source=SOURCES[engine], clause=CLAUSE)
    for old, new in replace.items():
        text = text.replace(old, new)
    path = folder / "cases.yaml"
    path.write_text(text)
    return path


@pytest.mark.parametrize("engine", ["cedar", "casbin", "spicedb"])
def test_every_case_decides_as_expected_under_each_engine(
    engine: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Allowed, withheld live (authz), withheld by the allowlist and no principal: exit 0."""
    if engine == "spicedb":
        spicedb_library()
    assert main(["policy", "test", str(case_file(tmp_path, engine))]) == 0
    assert "3 cases, 4 decisions, all as expected" in capsys.readouterr().out


def test_a_mismatch_is_exit_1_with_expected_and_got(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A case expecting the wrong outcome prints its name, what was expected and what came."""
    path = case_file(tmp_path, "cedar", **{"expect: deny, stage: authz": "expect: allow"})
    assert main(["policy", "test", str(path)]) == 1
    out = capsys.readouterr().out
    assert 'FAIL "payroll\'s clause is withheld from her, whatever the index metadata says"' in out
    assert "  - expected: allow" in out
    assert "  + got:      deny (authz): cedar: not granted for resource 'payroll-0'" in out
    assert "1 differ" in out


def test_the_json_result_lists_the_mismatches(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--json gives the decision count and each mismatch with expected and got."""
    path = case_file(tmp_path, "cedar", **{"stage: access": "stage: clause"})
    assert main(["policy", "test", str(path), "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["decisions"] == 4
    [mismatch] = report["mismatches"]
    assert (mismatch["expected"], mismatch["stage"]) == ("deny (clause)", "access")


@pytest.mark.parametrize(
    ("replace", "message"),
    [
        ({"expect: allow": "expect: maybe"}, "cases[0].expect"),
        ({"    principal: ana\n": "    principle: ana\n"}, "cases[0].principle is an unknown key"),
        ({"policies: [contracts]": "policies: [nope.yaml]"}, "nope.yaml: no such policy file"),
        ({"entities.json": "missing.json"}, "missing.json: cannot be read"),
        ({"cases:": "cases: [\n"}, "not valid YAML"),
        ({"    chunks:\n": "    chunk: {text: x}\n    chunks:\n"}, "either chunk"),
    ],
)
def test_bad_case_files_are_one_line_and_exit_2(
    replace: dict[str, str],
    message: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A bad value, unknown key, missing policy or engine file, broken YAML or both chunk
    forms: one line on stderr naming it, exit 2."""
    path = case_file(tmp_path, "cedar", **replace)
    assert main(["policy", "test", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert message in err


def test_diff_lists_each_changed_decision_and_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Loosening the allowlist to any contract type changes one decision (the SOW chunk);
    the same policy on both sides changes none."""
    cases = case_file(tmp_path, "cedar")
    old = tmp_path / "old.yaml"
    old.write_text("version: 1\nname: old\naccess: {attributes: [contract_type]}\n")
    new = tmp_path / "new.yaml"
    new.write_text("version: 1\nname: new\n")
    assert main(["policy", "diff", str(old), str(new), "--cases", str(cases)]) == 1
    out = capsys.readouterr().out
    assert "chunk 1: deny (access) -> allow (passed)" in out
    assert "1 of 4 decisions change" in out
    assert main(["policy", "diff", str(old), str(old), "--cases", str(cases), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"decisions": 4, "changes": []}


def test_help_shows_the_file_format_and_an_example(capsys: pytest.CaptureFixture[str]) -> None:
    """Both sub-commands' help name the format, the exit codes and an example invocation."""
    for command in (["policy", "test", "--help"], ["policy", "diff", "--help"]):
        with pytest.raises(SystemExit):
            main(command)
        out = capsys.readouterr().out
        assert "exit codes:\n  0 ok" in out
        assert "example:\n  rag-guard policy" in out
