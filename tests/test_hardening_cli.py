"""``rag-guard check`` and ``tag`` on hostile input: one-line errors, exit 2, no record lost,
and labels written where the guard reads them."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pytest

from rag_guard_integrations import Chunk, Guard, cli
from rag_guard_integrations.core.errors import ChunkError

if TYPE_CHECKING:
    from pathlib import Path

DEEP = "[" * 100_000 + "]" * 100_000
DEEP_METADATA = '{"text": "x", "meta": ' + '{"a": ' * 200 + "1" + "}" * 200 + "}"
BAD_LINES = {
    "nested_100000_deep": DEEP,
    "metadata_200_deep": DEEP_METADATA,
    "metadata_is_a_string": '{"text": "x", "metadata": "str"}',
    "meta_is_a_list": '{"text": "x", "meta": [1, 2]}',
    "text_and_page_content": '{"text": "x", "page_content": "y"}',
    "meta_and_metadata": '{"text": "x", "meta": {}, "metadata": {}}',
    "not_json": '{"text": ',
    "not_an_object": "[1, 2]",
}


def run_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """Run the command line; return the exit code, stdout and stderr."""
    code = cli.main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def one_line_error(err: str) -> None:
    """Stderr holds exactly one line and no traceback."""
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err


@pytest.mark.parametrize("line", BAD_LINES.values(), ids=BAD_LINES.keys())
def test_check_refuses_a_hostile_line_with_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], line: str
) -> None:
    """Every malformed line gives exit 2 and one line on stderr."""
    chunks = tmp_path / "chunks.jsonl"
    chunks.write_text('{"text": "fine"}\n' + line + "\n", encoding="utf-8")
    code, out, err = run_cli(
        capsys, "check", "--policy", "default", "--query", "q", "--chunks", str(chunks)
    )
    assert code == 2
    assert out == ""
    one_line_error(err)


@pytest.mark.parametrize("line", BAD_LINES.values(), ids=BAD_LINES.keys())
def test_tag_refuses_a_hostile_line_with_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], line: str
) -> None:
    """``tag`` gives exit 2 and one line naming the line number."""
    source = tmp_path / "in.jsonl"
    source.write_text('{"id": 1, "text": "fine"}\n' + line + "\n", encoding="utf-8")
    code, _, err = run_cli(capsys, "tag", str(source), "--out", str(tmp_path / "out.jsonl"))
    assert code == 2
    one_line_error(err)
    assert "line 2" in err


@pytest.mark.parametrize(
    "records",
    [
        [{"id": 2, "text": "a"}, {"text": "b"}],
        [{"text": "a"}, {"id": 1, "text": "b"}],
        [{"id": "x", "text": "a"}, {"id": "x", "text": "b"}],
    ],
    ids=["id_then_line_number", "line_number_then_id", "repeated_id"],
)
def test_tag_never_drops_a_record_silently(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], records: list[dict[str, Any]]
) -> None:
    """Two records that would share a key stop the run with exit 2 instead of losing one."""
    source = tmp_path / "in.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    code, _, err = run_cli(capsys, "tag", str(source), "--out", str(tmp_path / "out.jsonl"))
    assert code == 2
    one_line_error(err)
    assert "unique id" in err


def test_tag_keeps_every_record_of_a_mixed_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Records with and without ids whose keys do not clash are all written."""
    records = [{"id": "a", "text": "x"}, {"text": "y"}, {"id": 7, "text": "z"}, {"text": "w"}]
    source = tmp_path / "in.jsonl"
    out = tmp_path / "out.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    code, _, _ = run_cli(capsys, "tag", str(source), "--out", str(out))
    assert code == 0
    written = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [r["id"] for r in written] == ["a", 2, 7, 4]


@pytest.mark.parametrize("key", ["meta", "metadata"])
def test_tag_writes_labels_where_the_guard_reads_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], key: str
) -> None:
    """A tagged record read back by the guard carries the labels the tagger wrote."""
    record = {"id": 1, "text": "Card 4111 1111 1111 1111", key: {"source": "crm"}}
    source = tmp_path / "in.jsonl"
    out = tmp_path / "out.jsonl"
    source.write_text(json.dumps(record) + "\n", encoding="utf-8")
    assert run_cli(capsys, "tag", str(source), "--out", str(out))[0] == 0
    written = json.loads(out.read_text(encoding="utf-8"))
    assert set(written) == {"id", "text", key}
    chunk = Chunk.from_any(written)
    assert chunk.metadata["source"] == "crm"
    assert "financial" in chunk.metadata["classifications"]


@pytest.mark.parametrize(
    "item",
    [
        {"text": "checked", "page_content": "secret"},
        {"page_content": "checked", "text": "secret"},
        {"text": "t", "meta": {"classification": "public"}, "metadata": {"x": 1}},
        {"text": "t", "meta": None, "metadata": {"x": 1}},
    ],
    ids=["text_and_page_content", "page_content_and_text", "meta_and_metadata", "meta_none"],
)
def test_ambiguous_chunk_dicts_are_refused(item: dict[str, Any]) -> None:
    """A dict with two texts or two metadata mappings is a ChunkError, also inside a check."""
    with pytest.raises(ChunkError, match="both"):
        Chunk.from_any(item)
    with pytest.raises(ChunkError, match="both"):
        Guard.from_policy("default").check("q", [item])


CASE = (
    "policies: [contracts]\n"
    "cases:\n"
    "  - name: n\n"
    "    access: {contract_type: [MSA]}\n"
    "    query: What is the termination notice period?\n"
    "    chunk: {text: Either party may terminate on thirty (30) days' notice.,\n"
    '            meta: {contract_type: MSA, clause_id: "FE\\e[31mES\\u202e"}}\n'
    "    expect: allow\n"
)


@pytest.mark.parametrize(
    "command", [["policy", "test"], ["policy", "diff", "contracts", "default"]]
)
def test_a_case_file_that_is_not_utf8_is_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, command: list[str]
) -> None:
    """Exit 1 means a mismatch or a change for these commands: undecodable bytes are an input
    error (exit 2, one line naming the file), never a crash a CI gate would misread."""
    cases = tmp_path / "cases.yaml"
    cases.write_bytes(b"\xff\xfe\x00")
    where = ["--cases", str(cases)] if command[1] == "diff" else [str(cases)]
    code, _, err = run_cli(capsys, *command, *where)
    assert code == 2
    one_line_error(err)
    assert "not UTF-8" in err


def test_policy_test_and_lint_escape_control_characters_from_the_files(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A clause id with a terminal escape and a bidi override, quoted in a mismatch line, and
    an unknown key written the same way, quoted by lint, print as escapes."""
    cases = tmp_path / "cases.yaml"
    cases.write_text(CASE, encoding="utf-8")
    code, out, _ = run_cli(capsys, "policy", "test", str(cases))
    assert code == 1
    assert "\x1b" not in out
    assert "\u202e" not in out
    assert "\\u001b[31m" in out
    policy = tmp_path / "p.yaml"
    policy.write_text('version: 1\nname: p\n"ke\\e[31my\\u202e": 1\n', encoding="utf-8")
    code, out, _ = run_cli(capsys, "lint", str(policy))
    assert code == 1
    assert "\x1b" not in out
    assert "\\u001b[31my\\u202e" in out


def test_tag_keeps_a_lone_surrogate_as_its_escape(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """JSON input may hold a lone surrogate, which UTF-8 cannot: the tagged record keeps it as
    its escape, and the run completes."""
    source, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    source.write_text('{"id": "a", "text": "x \\ud800", "meta": {}}\n', encoding="utf-8")
    code, _, err = run_cli(capsys, "tag", str(source), "--out", str(out))
    assert code == 0, err
    assert json.loads(out.read_text(encoding="utf-8"))["text"] == "x \ud800"


def test_eval_prompt_refuses_paths_that_name_none(capsys: pytest.CaptureFixture[str]) -> None:
    """``--paths ,,`` would measure nothing and pass: it is an input error."""
    code, _, err = run_cli(capsys, "eval", "prompt", "--paths", ",,")
    assert code == 2
    one_line_error(err)
    assert "names no path" in err
