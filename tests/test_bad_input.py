"""Bad input: every malformed chunk, query, policy or command line gets a clear one-line error
naming the value and the fix, or a documented safe outcome; never a crash deep in the stack."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import TYPE_CHECKING, Any

import pytest

from rag_guard_integrations import (
    AccessContext,
    Chunk,
    ChunkError,
    Guard,
    InputError,
    PolicyError,
    RagGuardError,
    load_policy,
    parse_policy,
)
from rag_guard_integrations.cli import main
from rag_guard_integrations.core.access import AccessError
from rag_guard_integrations.core.errors import ArgumentError

if TYPE_CHECKING:
    from pathlib import Path

POLICY = r"""
version: 1
access: {attributes: [tenant]}
clauses:
  PAYMENT_TERMS:
    intents: ['\bpayment terms?\b']
    fingerprint: '\bwithin \d+ days\b'
domain:
  blocklist: [bitcoin]
  min_similarity: 0.3
  retriever_scores: cosine
labels:
  financial: {description: money figures}
  person: {description: names of people}
rules:
  - name: money_and_names
    trigger: {all_present: [financial, person]}
"""
QUERY = "What are the payment terms?"
ACCESS = AccessContext(tenant={"t"})
META = {"tenant": "t", "clause_id": "PAYMENT_TERMS"}
TEXT = "Invoices are payable within 30 days."


@pytest.fixture(scope="module")
def guard() -> Guard:
    return Guard(parse_policy(POLICY))


def one_line(error: BaseException) -> str:
    message = str(error)
    assert "\n" not in message, message
    return message


@pytest.mark.parametrize(
    ("chunks", "expected"),
    [
        (None, "chunks must be a list, got NoneType; wrap a single chunk in a list"),
        ("text", "chunks must be a list, got str"),
        ({"text": TEXT}, "chunks must be a list, got dict"),
        ([None], "chunk 0 is None; pass a dict with 'text', a Document or a node"),
        ([{"text": TEXT}, 3], "chunk 1 is an int; pass a dict with 'text' (or 'page_content')"),
        ([["a", "list"]], "chunk 0 is a list; pass a dict with 'text'"),
        ([{"text": 3}], "chunk 0 text is an int, not str; decode or drop it"),
        ([{"text": b"bytes"}], "chunk 0 text is a bytes, not str; decode or drop it"),
        ([{"page_content": ["a"]}], "chunk 0 text is a list, not str"),
        ([{"text": TEXT, "meta": ["a"]}], "chunk 0 metadata is a list; it must be a mapping"),
        ([{"text": TEXT, "score": "high"}], "chunk 0 score is 'high'; it must be a number"),
        ([{"text": TEXT, "score": True}], "chunk 0 score is True; it must be a number"),
    ],
)
def test_malformed_chunks_are_one_line_chunk_errors(
    guard: Guard, chunks: Any, expected: str
) -> None:
    """A chunk list or chunk of the wrong shape is a ChunkError (a TypeError) naming the
    position, the offending type and the fix."""
    with pytest.raises(ChunkError) as caught:
        guard.check(QUERY, chunks, access=ACCESS)
    assert isinstance(caught.value, TypeError)
    assert expected in one_line(caught.value)


@pytest.mark.parametrize("item", [{"meta": META, "score": 0.9}, {"metadata": META, "score": 0.9}])
def test_chunk_without_text_is_judged_as_empty_text(guard: Guard, item: dict[str, Any]) -> None:
    """Documented safe outcome: a chunk without text is an empty chunk, which no fingerprint
    matches, so a clause guard withholds it."""
    result = guard.check(QUERY, [item, {"text": TEXT, "meta": META, "score": 0.9}], access=ACCESS)
    assert result.decisions[0].chunk.text == ""
    assert (result.decisions[0].allowed, result.decisions[0].stage) == (False, "clause")
    assert result.allowed_indices == (1,)


@pytest.mark.parametrize(
    ("metadata", "problem"),
    [
        ({"classification": 3}, "metadata 'classification' is an int, not a string or list"),
        ({"classification": {"a": 1}}, "metadata 'classification' is a dict"),
        ({"classifications": [["financial"]]}, "metadata 'classifications' holds a list"),
        ({"classifications": [None, "person"]}, "holds a NoneType, not a string"),
        ({"classifications": ["financial", 7]}, "holds a int, not a string"),
    ],
)
def test_malformed_classifications_give_unclassified_and_are_withheld(
    guard: Guard, metadata: dict[str, Any], problem: str
) -> None:
    """Documented safe outcome: unreadable label metadata gives the chunk ``unclassified``;
    it is withheld with the problem as reason, while well-formed chunks are still judged."""
    chunks = [Chunk(TEXT, {**META, **metadata}, 0.9), Chunk(TEXT, META, 0.9)]
    result = guard.check(QUERY, chunks, access=ACCESS)
    bad, good = result.decisions
    assert "unclassified" in bad.labels
    assert (bad.allowed, bad.stage) == (False, "labels")
    assert problem in bad.reason
    assert good.allowed


@pytest.mark.parametrize("mode", ["report", "block"])
def test_ten_thousand_labels_are_handled(mode: str) -> None:
    """A chunk carrying 10,000 labels is judged; all are reported as unknown, and in block
    mode the reason stays one short line."""
    guard = Guard(parse_policy(POLICY + f"on_unknown_label: {mode}\n"))
    labels = [f"label_{i:05d}" for i in range(10_000)]
    chunk = Chunk(TEXT, {**META, "classifications": [*labels, "financial"]}, 0.9)
    result = guard.check(QUERY, [chunk], access=ACCESS)
    assert len(result.unknown_labels[0]) == 10_000
    decision = result.decisions[0]
    if mode == "report":
        assert decision.allowed
    else:
        assert (decision.allowed, decision.stage) == (False, "labels")
        assert decision.reason.endswith("label_00004 and 9995 more")


@pytest.mark.parametrize("query", [b"What are the payment terms?", None, 42, ["q"]])
def test_non_string_query_is_an_input_error(guard: Guard, query: Any) -> None:
    """A query that is not a str is an InputError (a TypeError) naming its type and the fix."""
    with pytest.raises(InputError) as caught:
        guard.check(query, [], access=ACCESS)
    assert isinstance(caught.value, TypeError)
    assert f"query must be a str, got {type(query).__name__}; decode it first" in one_line(
        caught.value
    )


@pytest.mark.parametrize("query", ["", "   ", "\u200b\u202e\u00ad"])
def test_empty_query_asks_for_nothing_and_passes_nothing(guard: Guard, query: str) -> None:
    """Documented safe outcome: an empty (or invisible) query names no clause, so nothing passes
    and the refusal is set."""
    result = guard.check(query, [Chunk(TEXT, META, 0.9)], access=ACCESS)
    assert result.query.intents == ()
    assert result.allowed == []
    assert result.refusal == "No authorized matching clause found."


def test_huge_query_is_judged_to_its_end(guard: Guard) -> None:
    """A 1 MB query is checked whole: a blocklisted term after a megabyte of padding is still
    found, and without it the clause asked for at the end is detected."""
    padding = "please read this carefully " * 40_000
    assert len(padding) > 1_000_000
    chunks = [Chunk(TEXT, META, 0.9)]
    rejected = guard.check(padding + "and the bitcoin payment terms", chunks, access=ACCESS)
    assert (rejected.query.tier, rejected.allowed) == ("blocklist", [])
    accepted = guard.check(padding + QUERY, chunks, access=ACCESS)
    assert accepted.query.intents == ("PAYMENT_TERMS",)
    assert accepted.allowed == chunks


@pytest.mark.parametrize(
    ("access", "expected"),
    [
        (3, "access must be an AccessContext or a mapping of attribute to values, got int"),
        ({"tenant": 3}, "access allowlist tenant is an int; give a value or a list of values"),
        ({"tenant": {"t": False}}, "access allowlist tenant is a dict; give a value or a list"),
        ({"tenant": {"t": True}}, "access allowlist tenant is a dict"),
        ({"tenant": b"t"}, "access allowlist tenant is a bytes"),
        ({"tenant": None}, "access allowlist tenant is None"),
        ({"tenant": [{"t": 1}]}, "access allowlist tenant holds a dict; list strings or numbers"),
        ({"tenant": [["t"]]}, "access allowlist tenant holds a list"),
        ({"tenant": [None]}, "access allowlist tenant holds a NoneType"),
        ({"tenant": [True]}, "access allowlist tenant holds a bool"),
    ],
    ids=[
        "not_a_mapping",
        "int",
        "mapping_false",
        "mapping_true",
        "bytes",
        "none",
        "list_of_mappings",
        "nested_list",
        "list_of_none",
        "list_of_bool",
    ],
)
def test_malformed_access_is_an_input_error(guard: Guard, access: Any, expected: str) -> None:
    """An access context of the wrong shape (a mapping as an allowlist grants nothing) is a
    one-line AccessError naming the attribute."""
    with pytest.raises(AccessError) as caught:
        guard.check(QUERY, [], access=access)
    assert expected in one_line(caught.value)
    with pytest.raises(AccessError):
        AccessContext.coerce(access)


BOMB = "\n".join(
    ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    + [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 9)]
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", "the policy is empty; add at least 'version: 1'"),
        ("# nothing but a comment\n", "the policy is empty"),
        ("a: [1, 2\n", "not valid YAML"),
        ("\x00\x01", "not valid YAML: special characters are not allowed; fix the syntax"),
        ("version: 1\n\tx: y\n", "found character '\\t' that cannot start any token (line 2)"),
        ("!!python/object:os.system {}\n", "could not determine a constructor for the tag"),
        ("just a string\n", "the policy must be a mapping of sections, got a str"),
        (BOMB, "the YAML expands to more than 100000 nodes (an alias bomb?)"),
        ("a: &a [*a]\n", "the YAML expands to more than 100000 nodes"),
        ("rules: " + "[" * 1_500 + "]" * 1_500, "the YAML is nested too deeply; flatten it"),
        ("access: {attributes: tenant}\n", "access.attributes is a str: input should be a valid"),
        ("domain: {min_similarity: high}\n", "domain.min_similarity is a str"),
        ("domain: {min_similarity: .nan}\n", "domain.min_similarity must be between -1 and 1"),
        ("on_block: explode\n", "on_block is 'explode' (line 1); use one of 'drop_chunks'"),
        (
            "rulez: []\n",
            "rulez is an unknown key (line 1); remove it or check its spelling; did you mean "
            "'rules'?",
        ),
        ("zzzz: 1\n", "zzzz is an unknown key (line 1); remove it or check its spelling"),
        ("clauses: {X: {intents: [x], fingerprnt: y}}\n", "clauses.X.fingerprnt is an unknown key"),
        ("version: 1\nversion: 1\n", "key 'version' appears twice in one mapping (line 2); keep"),
        (
            "rules:\n  - {name: r, trigger: {all_present: [a]}}\n"
            "  - {name: r, trigger: {all_present: [b]}}\n",
            "rules[1].name 'r' is defined twice; rename one",
        ),
        ("extends: [no_such_pack]\n", "'no_such_pack' is not a built-in policy; use one of"),
        (
            "rules:\n  - {name: r, trigger: {all_present: [secret, Unknown]}}\n",
            "names the label 'unknown', which chunk metadata reads as no label",
        ),
        ("labels: {N/A: {}}\n", "names the label 'n/a', which chunk metadata reads as no label"),
        (
            "labels:\n  financial: {description: money}\n  Financial: {description: weather}\n",
            "declares 'financial' and 'Financial', one label once case and spacing are folded",
        ),
    ],
)
def test_bad_policy_text_is_a_one_line_policy_error(text: str, expected: str) -> None:
    """Empty, non-YAML, unsafe, bomb, wrongly typed, unknown-key and duplicate-name policies
    are each a PolicyError whose single line names the problem and the fix."""
    with pytest.raises(PolicyError) as caught:
        parse_policy(text, source="bad.yaml")
    message = one_line(caught.value)
    assert expected in message
    assert message.startswith("bad.yaml: ") or "no_such_pack" in message


@pytest.mark.parametrize("ref", [None, 3, b"contracts", ["contracts"]])
def test_policy_reference_of_the_wrong_type_is_a_policy_error(ref: Any) -> None:
    """load_policy and parse_policy name a reference or text of the wrong type."""
    with pytest.raises(PolicyError, match="pass a built-in name or a path"):
        load_policy(ref)
    with pytest.raises(PolicyError, match="pass YAML as a str"):
        parse_policy(ref)


@pytest.mark.parametrize("policy", ["contracts", None, ["contracts"], {"version": 1}])
def test_guard_of_anything_but_a_policy_names_the_type_and_from_policy(policy: Any) -> None:
    """Guard(...) takes a loaded Policy; a name, a list or a dict is one ArgumentError naming
    its type and Guard.from_policy, not an AttributeError deep in the constructor."""
    with pytest.raises(ArgumentError) as caught:
        Guard(policy)
    message = one_line(caught.value)
    assert type(policy).__name__ in message
    assert "Guard.from_policy(" in message


@pytest.mark.parametrize("check", [42, "tenant", object()])
def test_a_check_that_is_no_callable_is_one_argument_error(check: Any) -> None:
    """checks=[...] takes callables check(chunk, request); anything else is named at once."""
    with pytest.raises(ArgumentError, match=f"checks: {type(check).__name__} is not a check"):
        Guard.from_policy("contracts", checks=[check])


def test_extends_cycle_and_duplicate_clause_across_files(tmp_path: Path) -> None:
    """A file extending itself says "cycle"; a clause defined in two merged files names both."""
    (tmp_path / "self.yaml").write_text("extends: [self.yaml]\n", encoding="utf-8")
    with pytest.raises(PolicyError, match=r"extends cycle self\.yaml -> self\.yaml"):
        load_policy(tmp_path / "self.yaml")
    clause = "clauses:\n  X:\n    intents: [x]\n"
    (tmp_path / "a.yaml").write_text(clause, encoding="utf-8")
    (tmp_path / "b.yaml").write_text(clause, encoding="utf-8")
    with pytest.raises(PolicyError) as caught:
        load_policy(tmp_path / "a.yaml", tmp_path / "b.yaml")
    assert "clause 'X' is already defined in" in one_line(caught.value)
    assert "a.yaml" in str(caught.value)
    assert "rename one of them" in str(caught.value)


def test_missing_policy_file_is_a_file_not_found_error(tmp_path: Path) -> None:
    """A missing path is a PolicyNotFoundError, also a FileNotFoundError, naming the path."""
    with pytest.raises(FileNotFoundError) as caught:
        load_policy(tmp_path / "missing.yaml")
    assert isinstance(caught.value, RagGuardError)
    assert "missing.yaml: no such policy file; check the path" in one_line(caught.value)


def run_check(tmp_path: Path, lines: list[str] | None, *extra: str) -> list[str]:
    chunks = tmp_path / "chunks.jsonl"
    if lines is not None:
        chunks.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return ["check", "--policy", "contracts", "--query", QUERY, "--chunks", str(chunks), *extra]


GOOD = json.dumps({"text": TEXT, "meta": {"contract_type": "MSA"}})


@pytest.mark.parametrize(
    ("lines", "extra", "expected"),
    [
        ([GOOD, "{not json"], (), "chunks.jsonl line 2: not valid JSON"),
        (None, (), "No such file or directory"),
        ([GOOD], ("--allow", "contract_type"), "must look like attribute=value1,value2"),
        ([GOOD], ("--allow", "=MSA"), "must look like attribute=value1,value2"),
        ([GOOD, "3"], (), "chunks.jsonl line 2: expected a JSON object, got int"),
        ([json.dumps({"text": 3})], (), "chunk 0 text is an int, not str"),
        ([GOOD], ("--policy", "no_such_pack"), "'no_such_pack' is not a built-in policy"),
        (['{"text": "a", "meta": {"a": NaN}}'], (), "line 1: not valid JSON (NaN is not"),
        (['{"text": "a", "score": -Infinity}'], (), "line 1: not valid JSON (-Infinity is not"),
    ],
    ids=[
        "bad_jsonl",
        "missing_file",
        "allow_no_equals",
        "allow_no_name",
        "not_object",
        "text_not_str",
        "unknown_policy",
        "nan",
        "infinity",
    ],
)
def test_cli_check_bad_input_exits_2_with_one_line(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    lines: list[str] | None,
    extra: tuple[str, ...],
    expected: str,
) -> None:
    """``rag-guard check`` with bad input exits 2 with one line on stderr and no traceback."""
    code = main(run_check(tmp_path, lines, *extra))
    captured = capsys.readouterr()
    assert code == 2
    assert captured.out == ""
    assert captured.err.count("\n") == 1
    assert captured.err.startswith("rag-guard check: ")
    assert expected in captured.err
    assert "Traceback" not in captured.err


def test_cli_check_undecodable_file_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A chunks file that is not UTF-8 exits 2 with one line naming the decoding problem."""
    chunks = tmp_path / "chunks.jsonl"
    chunks.write_bytes(b'{"text": "\xff\xfe"}\n')
    code = main(["check", "--policy", "contracts", "--query", QUERY, "--chunks", str(chunks)])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1
    assert "codec can't decode" in err


def test_a_policy_folder_is_named_as_a_folder(tmp_path: Path) -> None:
    """A path to a folder says it is a folder and asks for the YAML file in it."""
    with pytest.raises(FileNotFoundError) as caught:
        load_policy(tmp_path)
    assert f"{tmp_path} is a folder; name the policy's YAML file in it" in one_line(caught.value)


@pytest.mark.parametrize("budget", ["-1", "0", "nan"])
def test_cli_bench_refuses_a_budget_that_is_not_positive(
    budget: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """``bench --budget`` below or at zero exits 2 with one line, before any measuring."""
    code = main(["bench", "--no-embedder", "--budget", budget])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1
    assert f"--budget {float(budget)} must be a positive number of seconds" in err


def test_cli_output_to_a_closed_pipe_stops_quietly(tmp_path: Path) -> None:
    """``rag-guard check ... | head -n 1``: the command stops with 141 and no traceback."""
    chunks = tmp_path / "chunks.jsonl"
    chunks.write_text('{"text": "hello world"}\n' * 3000, encoding="utf-8")
    command = [sys.executable, "-m", "rag_guard_integrations.cli", "check", "--policy",
               "default", "--query", "q", "--chunks", str(chunks)]  # fmt: skip
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as process:
        assert process.stdout is not None
        process.stdout.readline()
        process.stdout.close()
        _, err = process.communicate(timeout=120)
    assert process.returncode == 141
    assert b"Traceback" not in err


def test_a_missing_extended_file_is_named_with_the_file_that_extends_it(tmp_path: Path) -> None:
    """A file that extends a missing one: the error names both, in one line."""
    child = tmp_path / "child.yaml"
    child.write_text("version: 1\nextends: [gone.yaml]\n", encoding="utf-8")
    with pytest.raises(FileNotFoundError) as caught:
        load_policy(child)
    assert f"{child}: extends gone.yaml: no such policy file" in one_line(caught.value)
