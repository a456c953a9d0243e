"""``rag-guard tag``: labels a JSONL corpus, resumes, summarises, and fails with one clear line."""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

import pytest
from ollama_server import OllamaServer, keyword_labeller

from rag_guard_integrations import cli

if TYPE_CHECKING:
    from pathlib import Path

RECORDS: list[dict[str, Any]] = [
    {"id": "a", "text": "Write to jo@example.com about it."},
    {"text": "Card 4111 1111 1111 1111 was charged $40.", "meta": {"source": "crm"}},
    {"id": "c", "text": "The weather is fine.", "metadata": {"owner": "x"}},
    {"id": "d", "text": "jo@example.com", "metadata": {"classifications": ["public"]}},
    {"id": "e", "metadata": {"owner": "y"}},
]

POLICY = """
version: 1
classify: always
labels:
  contact: {description: ways to reach a person}
classifiers:
  builtin: {email: contact, credit_card: financial}
"""


@pytest.fixture(autouse=True)
def only_tag(monkeypatch: pytest.MonkeyPatch) -> None:
    """Build the command line with the ``tag`` command alone, so other commands do not matter."""
    monkeypatch.setattr(cli, "COMMANDS", ("tag",))


def write_jsonl(path: Path, records: list[dict[str, Any]]) -> Path:
    """Write records one per line (a blank line in between, which is skipped)."""
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n\n", encoding="utf-8")
    return path


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """The records of a JSONL file."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def tag(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, Any]]:
    """Run ``rag-guard tag ARGS --json``; return the exit code and the parsed summary."""
    code = cli.main(["tag", *args, "--json"])
    captured = capsys.readouterr()
    assert captured.out, captured.err
    return code, json.loads(captured.out)


def test_tags_records_and_summarises(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Unlabelled records get labels and findings under their metadata key; counts add up."""
    source = write_jsonl(tmp_path / "in.jsonl", RECORDS)
    out = tmp_path / "out.jsonl"
    code, summary = tag(capsys, str(source), "--out", str(out))
    assert code == 1  # record "e" has no text, so it could not be classified
    assert summary["records"] == 5
    assert summary["tagged"] == 4
    assert summary["kept"] == 1
    assert summary["unclassified"] == 1
    assert summary["unlabelled"] == 1
    assert summary["labels"] == {"financial": 1, "pii": 1, "public": 1, "unclassified": 1}
    written = read_jsonl(out)
    assert [r["id"] for r in written] == ["a", 2, "c", "d", "e"]  # line number when no id
    assert written[0]["metadata"]["findings"] == [
        {"recognizer": "email", "label": "pii", "start": 9, "end": 23}
    ]
    assert written[1]["meta"]["source"] == "crm"
    assert written[1]["meta"]["classifications"] == ["financial"]
    assert written[2]["metadata"] == {"owner": "x", "classifications": [], "findings": []}
    assert written[3] == RECORDS[3]


def test_resume_skips_records_already_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A second run tags only records whose id is not yet in the output."""
    source = write_jsonl(tmp_path / "in.jsonl", RECORDS[:2])
    out = tmp_path / "out.jsonl"
    tag(capsys, str(source), "--out", str(out))
    write_jsonl(source, RECORDS[:3])
    code, summary = tag(capsys, str(source), "--out", str(out))
    assert code == 0
    assert (summary["records"], summary["skipped"], summary["tagged"]) == (3, 2, 1)
    assert [r["id"] for r in read_jsonl(out)] == ["a", 2, "c"]


def test_resume_drops_a_line_cut_off_by_an_interrupted_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A partial last line in the output is removed and its record tagged again."""
    source = write_jsonl(tmp_path / "in.jsonl", RECORDS[:3])
    out = tmp_path / "out.jsonl"
    tag(capsys, str(source), "--out", str(out))
    complete = out.read_text(encoding="utf-8").splitlines(keepends=True)
    out.write_text("".join(complete[:2]) + complete[2][:15], encoding="utf-8")
    _, summary = tag(capsys, str(source), "--out", str(out))
    assert (summary["skipped"], summary["tagged"]) == (2, 1)
    assert out.read_text(encoding="utf-8").splitlines(keepends=True) == complete


def test_policy_labels_and_classify_always(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A policy maps built-ins to its labels, drops labels outside its vocabulary, and
    ``classify: always`` relabels records that already had labels."""
    policy = tmp_path / "policy.yaml"
    policy.write_text(POLICY, encoding="utf-8")
    source = write_jsonl(tmp_path / "in.jsonl", RECORDS[:4])
    out = tmp_path / "out.jsonl"
    code, summary = tag(capsys, str(source), "--out", str(out), "--policy", str(policy))
    assert code == 0
    assert summary["kept"] == 0
    assert summary["labels"] == {"contact": 2}
    assert summary["dropped"] == {"financial": 1}
    written = read_jsonl(out)
    assert written[3]["metadata"]["classifications"] == ["contact"]
    assert written[1]["meta"]["dropped_labels"] == ["financial"]


def test_table_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Without --json the summary is a table of label counts and a table of record counts."""
    source = write_jsonl(tmp_path / "in.jsonl", RECORDS[:3])
    assert cli.main(["tag", str(source), "--out", str(tmp_path / "out.jsonl")]) == 0
    text = capsys.readouterr().out
    assert text.splitlines()[0].split() == ["label", "records"]
    assert "financial" in text
    assert re.search(r"^skipped \(already in output\) +0$", text, re.MULTILINE)
    assert re.search(r"^read +3$", text, re.MULTILINE)


def test_llm_classifier_through_a_local_ollama_api(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--classifier llm --model NAME`` labels records with a chat model on the Ollama API."""
    policy = tmp_path / "policy.yaml"
    policy.write_text(POLICY, encoding="utf-8")
    source = write_jsonl(tmp_path / "in.jsonl", RECORDS[:3])
    out = tmp_path / "out.jsonl"
    with OllamaServer(responder=keyword_labeller({"contact": ["@"]})) as server:
        monkeypatch.setenv("OLLAMA_HOST", server.base_url)
        code, summary = tag(
            capsys, str(source), "--out", str(out), "--policy", str(policy),
            "--classifier", "llm", "--model", server.model,
        )  # fmt: skip
    assert code == 0
    assert summary["labels"] == {"contact": 1}
    assert read_jsonl(out)[0]["metadata"]["classifications"] == ["contact"]


def test_embedding_classifier_uses_the_policy_labels(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], embedder: object
) -> None:
    """``--classifier embedding`` labels records with the policy's label descriptions."""
    policy = tmp_path / "policy.yaml"
    policy.write_text(
        "labels:\n"
        '  health: {description: "a patient\'s diagnosis, medication or treatment"}\n'
        '  weather: {description: "rain, sunshine and the weather forecast"}\n',
        encoding="utf-8",
    )
    records = [
        {"id": 1, "text": "The patient was diagnosed with diabetes and prescribed insulin."},
        {"id": 2, "text": "Heavy rain is forecast for tomorrow, then sunshine."},
    ]
    source = write_jsonl(tmp_path / "in.jsonl", records)
    out = tmp_path / "out.jsonl"
    code, summary = tag(
        capsys, str(source), "--out", str(out), "--policy", str(policy),
        "--classifier", "embedding",
    )  # fmt: skip
    assert code == 0
    assert summary["unclassified"] == 0
    written = read_jsonl(out)
    assert "health" in written[0]["metadata"]["classifications"]
    assert "health" not in written[1]["metadata"]["classifications"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["missing.jsonl", "--out", "o.jsonl"], "missing.jsonl: no such input file"),
        (["in.jsonl", "--out", "in.jsonl"], "is the input file"),
        (["in.jsonl", "--out", "no/o.jsonl"], "folder no does not exist"),
        (["in.jsonl", "--out", "."], "--out . is a folder; name a file"),
        (["in.jsonl", "--out", "/dev/zero"], "--out /dev/zero is not a regular file"),
        (["bad.jsonl", "--out", "o.jsonl"], "bad.jsonl line 2: not valid JSON"),
        (["list.jsonl", "--out", "o.jsonl"], "list.jsonl line 1: expected a JSON object, got list"),
        (["in.jsonl", "--out", "o.jsonl", "--model", "m"], "--model m applies to --classifier llm"),
        (["in.jsonl", "--out", "o.jsonl", "--classifier", "llm"], "needs --model NAME"),
        (["in.jsonl", "--out", "o.jsonl", "--policy", "./labels.yaml"], "declares no recognisers"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    args: list[str],
    message: str,
) -> None:
    """Input errors print one line on stderr naming the problem and exit with 2."""
    monkeypatch.chdir(tmp_path)
    write_jsonl(tmp_path / "in.jsonl", RECORDS[:1])
    (tmp_path / "bad.jsonl").write_text('{"text": "ok"}\n{"text": \n', encoding="utf-8")
    (tmp_path / "list.jsonl").write_text("[1, 2]\n", encoding="utf-8")
    (tmp_path / "labels.yaml").write_text("labels: {pii: {description: x}}\n", encoding="utf-8")
    assert cli.main(["tag", *args]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert len(captured.err.strip().splitlines()) == 1
    assert captured.err.startswith("rag-guard tag: ")
    assert message in captured.err


def test_records_the_classifier_failed_on_are_tagged_again_on_the_next_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the model's server down the records carry ``unclassified`` and stderr says why;
    run again with it up, they are tagged, each once in OUT."""
    policy = tmp_path / "policy.yaml"
    policy.write_text(POLICY, encoding="utf-8")
    source = write_jsonl(tmp_path / "in.jsonl", RECORDS[:3])
    out = tmp_path / "out.jsonl"
    args = ["tag", str(source), "--out", str(out), "--policy", str(policy), "--classifier", "llm"]
    with OllamaServer(responder=keyword_labeller({"contact": ["@"]})) as server:
        model, down = server.model, server.base_url
    monkeypatch.setenv("OLLAMA_HOST", down)  # the server is gone: connections are refused
    assert cli.main([*args, "--model", model]) == 1
    err = capsys.readouterr().err
    assert "3 record(s) could not be classified" in err
    assert "tagged again when the command is run again" in err
    assert all("classification_error" in r.get("metadata", r.get("meta")) for r in read_jsonl(out))
    with OllamaServer(responder=keyword_labeller({"contact": ["@"]})) as server:
        monkeypatch.setenv("OLLAMA_HOST", server.base_url)
        assert cli.main([*args, "--model", server.model, "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert (summary["skipped"], summary["tagged"], summary["unclassified"]) == (0, 3, 0)
    tagged = read_jsonl(out)
    assert sorted(str(r["id"]) for r in tagged) == ["2", "a", "c"]
    assert not any("classification_error" in r.get("metadata", r.get("meta")) for r in tagged)
