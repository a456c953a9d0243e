"""Corpus tagging on Ray Data: the local engine's labels, record for record, failing closed."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import uuid
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from rag_guard_integrations import cli
from rag_guard_integrations.classify.factory import build_classifier
from rag_guard_integrations.classify.pattern import PatternClassifier
from rag_guard_integrations.classify.tagging import tag_records
from rag_guard_integrations.scale import (
    INSTALL_HINT,
    ClassifierSpec,
    RayUnavailableError,
    import_ray,
    ray_session,
    tag_dataset,
)
from rag_guard_integrations.scale_worker import records_of

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

    from rag_guard_integrations.classify.base import Classification

MARKER = "EXPLODE-ON-THIS"
SMALL: list[dict[str, Any]] = [
    {"id": "a", "text": "Write to jo@example.com about it."},
    {"text": "Card 4111 1111 1111 1111 was charged $40.", "meta": {"source": "crm"}},
    {"id": "c", "text": "The weather is fine.", "metadata": {"owner": "x"}},
    {"id": "d", "text": "jo@example.com", "metadata": {"classifications": ["public"]}},
    {"id": "e", "metadata": {"owner": "y"}},
]


@pytest.fixture(scope="module")
def ray() -> Iterator[Any]:
    """A local Ray instance with 2 CPUs for this module, shut down after it.

    Ray's driver talks to its own processes over local sockets only, which the suite's
    ``--allow-hosts=127.0.0.1,localhost`` already permits. Workers cannot import this test
    module, so the classifiers defined here travel to them by value.
    """
    with ray_session(num_cpus=2) as module:
        module.cloudpickle.register_pickle_by_value(sys.modules[__name__])
        yield module


@pytest.fixture(autouse=True)
def only_tag(monkeypatch: pytest.MonkeyPatch) -> None:
    """Build the command line with the ``tag`` command alone, so other commands do not matter."""
    monkeypatch.setattr(cli, "COMMANDS", ("tag",))


class ExplodingClassifier:
    """The pattern classifier, except that any call whose texts hold ``MARKER`` raises.
    Each one built leaves a file in ``ledger`` (when set), to count them across processes."""

    ledger = ""

    def __init__(self) -> None:
        self._inner = PatternClassifier()
        if self.ledger:
            Path(self.ledger, f"built-{uuid.uuid4().hex}").touch()

    def classify(self, text: str) -> Classification:
        return self.classify_many([text])[0]

    def classify_many(self, texts: Sequence[str]) -> list[Classification]:
        if any(MARKER in text for text in texts):
            raise RuntimeError("cannot read this record")
        return self._inner.classify_many(texts)

    async def aclassify_many(self, texts: Sequence[str]) -> list[Classification]:
        return self.classify_many(texts)

    def bind(self, vocabulary: object) -> ExplodingClassifier:
        return self


class CrashOnceClassifier(ExplodingClassifier):
    """Kills its worker process the first time it meets ``MARKER`` (a flag file remembers)."""

    flag = ""

    def classify_many(self, texts: Sequence[str]) -> list[Classification]:
        if any(MARKER in text for text in texts) and not os.path.exists(self.flag):
            with open(self.flag, "w"):
                pass
            os._exit(1)
        return self._inner.classify_many(texts)


def luhn_complete(digits: str) -> str:
    """``digits`` plus the check digit that makes it pass the Luhn test."""
    total = 0
    for index, char in enumerate(reversed(digits + "0")):
        value = int(char) * (2 if index % 2 else 1)
        total += value - 9 if value > 9 else value
    return digits + str((10 - total % 10) % 10)


def iban(rng: random.Random, valid: bool) -> str:
    """A British IBAN printed in groups of four, with right or wrong check digits."""
    bban = "WEST" + "".join(rng.choice("0123456789") for _ in range(14))
    number = int("".join(str(int(c, 36)) for c in bban + "GB00"))
    check = 98 - number % 97 if valid else (98 - number % 97) % 97 + 1
    compact = f"GB{check:02d}{bban}"
    return " ".join(compact[i : i + 4] for i in range(0, len(compact), 4))


def generated_records(count: int, seed: int = 7) -> list[dict[str, Any]]:
    """A mixed corpus: emails, cards with valid and broken Luhn digits, IBANs with right and
    wrong checks, plain text, records already labelled, without text, or with odd shapes."""
    rng = random.Random(seed)
    records: list[dict[str, Any]] = []
    for n in range(count):
        card = luhn_complete("4" + "".join(rng.choice("0123456789") for _ in range(14)))
        broken = card[:-1] + str((int(card[-1]) + 1) % 10)
        kind = n % 10
        texts = {
            0: f"Please write to agent.{n}@example.com before Friday.",
            1: f"Card {' '.join(card[i : i + 4] for i in range(0, 16, 4))} was charged.",
            2: f"Reference {broken} is not a card number.",
            3: f"Pay to {iban(rng, valid=True)} by transfer.",
            4: f"Old account {iban(rng, valid=False)} was closed.",
            5: f"The committee met on day {n} to discuss the agenda.",
            6: f"Mail jo{n}@example.com or call about the invoice.",
            7: "",
            8: f"Contact: sam\u200b{n}@example.org, card {card}",
            9: f"Plain words number {rng.randint(0, 10**6)}.",
        }
        record: dict[str, Any] = {"id": f"r{n}", "kind": kind, "text": texts[kind]}
        if kind == 6:
            record["metadata"] = {"classifications": ["public"], "owner": "ops"}
        elif kind == 7:
            record = {"id": n, "kind": kind, "metadata": {"owner": "nobody"}}
        elif kind == 8:
            record = {"kind": kind, "page_content": texts[kind], "meta": {"source": "wiki"}}
        elif n % 3 == 0:
            record["metadata"] = {"owner": rng.choice(["ops", "hr", "legal"])}
        records.append(record)
    return records


def json_dataset(ray: Any, records: list[dict[str, Any]], block: int = 1000) -> Any:
    """Records as JSON text, one per row, in blocks; output keeps input order."""
    lines = [json.dumps(r, ensure_ascii=False) for r in records]
    tables = [pa.table({"record": lines[i : i + block]}) for i in range(0, len(lines), block)]
    ds = ray.data.from_arrow(tables)
    ds.context.execution_options.preserve_order = True
    return ds


def tag_json(
    ray: Any, records: list[dict[str, Any]], spec: ClassifierSpec, **options: Any
) -> tuple[list[dict[str, Any]], list[str]]:
    """Tag ``records`` on Ray as JSON rows; return the tagged records and their statuses."""
    source = json_dataset(ray, records, options.pop("block", 1000))
    ds = tag_dataset(source, spec, json_column="record", status_column="status", **options)
    batches = list(ds.iter_batches(batch_size=None, batch_format="pyarrow"))
    records = [r for b in batches for r in records_of(b.drop_columns(["status"]), "record")]
    return records, [s for b in batches for s in b.column("status").to_pylist()]


def local(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What the local engine writes for ``records`` with the default pattern classifier."""
    return list(tag_records(records, build_classifier("pattern", None, None)))


def test_ten_thousand_records_match_the_local_engine(ray: Any) -> None:
    """10,000 mixed records tagged on Ray equal the local engine's output, record for record."""
    records = generated_records(10_000)
    spec = ClassifierSpec("pattern")
    out, statuses = tag_json(ray, records, spec)
    assert out == local(records)
    assert Counter(statuses) == {"tagged": 9_000, "kept": 1_000}
    findings = Counter(
        (r["kind"], f["recognizer"])
        for r in out
        for f in r.get("metadata", r.get("meta", {})).get("findings", [])
    )
    # the corpus exercises what it claims to: valid checksums found, broken ones not
    assert findings[(1, "credit_card")] == 1_000
    assert findings[(2, "credit_card")] == 0
    assert findings[(3, "iban")] == 1_000
    assert findings[(4, "iban")] == 0
    assert findings[(8, "email")] == 1_000
    assert (
        sum(r.get("metadata", {}).get("classifications") == ["unclassified"] for r in out) == 1_000
    )


def test_a_record_that_makes_the_classifier_raise_gets_unclassified(
    ray: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its batch is classified again one record at a time: only that record is unclassified,
    nothing is dropped, the batch's records say they were retried, and the actor built its
    classifier once for all three batches."""
    records = [{"id": n, "text": f"mail user{n}@example.com"} for n in range(12)]
    records[5]["text"] = f"{MARKER} user5@example.com"
    monkeypatch.setattr(ExplodingClassifier, "ledger", str(tmp_path))
    spec = ClassifierSpec("exploding", factory=ExplodingClassifier)
    out, statuses = tag_json(ray, records, spec, block=4, batch_size=4, concurrency=1)
    assert len(list(tmp_path.glob("built-*"))) == 1
    assert [r["id"] for r in out] == list(range(12))
    assert out[5]["metadata"]["classifications"] == ["unclassified"]
    assert out[5]["metadata"]["classification_error"] == (
        "classifier failed: RuntimeError: cannot read this record"
    )
    expected = local(records)
    assert out[:5] + out[6:] == expected[:5] + expected[6:]
    assert statuses == ["tagged"] * 4 + ["retried"] * 4 + ["tagged"] * 4


def test_a_worker_that_dies_is_replaced_and_its_batch_retried(
    ray: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An actor killed mid-batch restarts and the batch runs again: every record labelled."""
    records = [{"id": n, "text": f"{MARKER} mail user{n}@example.com"} for n in range(6)]
    monkeypatch.setattr(CrashOnceClassifier, "flag", str(tmp_path / "crashed"))
    spec = ClassifierSpec("crash-once", factory=CrashOnceClassifier)
    out, statuses = tag_json(ray, records, spec, concurrency=1)
    assert (tmp_path / "crashed").exists()  # the worker did die once
    assert out == local(records)
    assert statuses == ["tagged"] * 6


def run_tag(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, Any]]:
    """Run ``rag-guard tag ARGS --json``; return the exit code and the parsed summary."""
    code = cli.main(["tag", *args, "--json"])
    captured = capsys.readouterr()
    assert captured.out, captured.err
    return code, json.loads(captured.out)


def test_cli_jsonl_round_trip_equals_the_local_engine(
    ray: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--engine ray`` writes the same JSONL bytes and the same summary as the local engine."""
    source = tmp_path / "in.jsonl"
    source.write_text("\n".join(json.dumps(r) for r in SMALL) + "\n\n", encoding="utf-8")
    code, summary = run_tag(
        capsys, str(source), "--out", str(tmp_path / "ray.jsonl"), "--engine", "ray"
    )
    local_code, local_summary = run_tag(capsys, str(source), "--out", str(tmp_path / "local.jsonl"))
    assert (tmp_path / "ray.jsonl").read_bytes() == (tmp_path / "local.jsonl").read_bytes()
    assert code == local_code == 1  # record "e" has no text
    assert summary.pop("engine") == "ray"
    assert summary.pop("retried") == 0
    assert {**summary, "output": ""} == {**local_summary, "output": ""}
    _, again = run_tag(capsys, str(source), "--out", str(tmp_path / "ray.jsonl"), "--engine", "ray")
    # Resumed like the local engine: the record the classifier failed on ("e") is tried again.
    assert (again["skipped"], again["tagged"], again["unclassified"]) == (4, 1, 1)


def without_nulls(value: Any) -> Any:
    """``value`` with null mapping entries removed: Arrow gives every row every column."""
    if isinstance(value, dict):
        return {k: without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [without_nulls(v) for v in value]
    return value


@pytest.mark.parametrize("suffix", [".parquet", ".jsonl"])
def test_cli_parquet_input(
    ray: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str], suffix: str
) -> None:
    """Parquet in, Parquet or JSONL out by suffix: the local engine's labels for the same rows."""
    rows = [{**r, "id": r.get("id", "b")} for r in SMALL if "meta" not in r]
    source = tmp_path / "in.parquet"
    pq.write_table(pa.Table.from_struct_array(pa.array(rows)), source)
    out = tmp_path / f"out{suffix}"
    code, summary = run_tag(capsys, str(source), "--out", str(out), "--engine", "ray")
    if suffix == ".parquet":
        written = pq.read_table(out).to_pylist()
    else:
        written = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    expected = local(pq.read_table(source).to_pylist())
    assert without_nulls(written) == without_nulls(expected)
    assert code == 1
    assert (summary["tagged"], summary["kept"], summary["unclassified"]) == (3, 1, 1)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--address", "auto"], "--address and --num-cpus apply to --engine ray"),
        (["--engine", "ray", "--address", "auto", "--num-cpus", "2"], "--num-cpus 2 is for a"),
        (["--engine", "ray", "--num-cpus", "0"], "--num-cpus 0 is for a local Ray instance"),
        (["--engine", "ray", "--policy", "no_such_pack"], "no_such_pack"),
        (["--engine", "ray", "--classifier", "llm"], "needs --model NAME"),
        (["--engine", "ray", "--out", "exists.parquet"], "exists; Parquet output is written whole"),
    ],
)
def test_cli_errors_are_one_line(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    args: list[str],
    message: str,
) -> None:
    """Bad options fail with exit 2 and one line naming the value, before any Ray work."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "in.jsonl").write_text(json.dumps(SMALL[0]) + "\n", encoding="utf-8")
    (tmp_path / "exists.parquet").write_bytes(b"")
    out = [] if "--out" in args else ["--out", "o.jsonl"]
    assert cli.main(["tag", "in.jsonl", *out, *args]) == 2
    error = capsys.readouterr().err
    assert message in error
    assert len(error.strip().splitlines()) == 1


def test_unknown_classifier_kind_is_refused() -> None:
    """A kind that is neither built in nor given a factory is a clear error."""
    with pytest.raises(ValueError, match="classifier kind 'regex' is unknown"):
        ClassifierSpec("regex")


def test_package_imports_without_ray_and_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    """Importing the module loads no Ray; without Ray the error names the extra to install."""
    probe = "import sys, rag_guard_integrations.scale, rag_guard_integrations.cli.tag; "
    probe += "print('ray' in sys.modules)"
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "False"
    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(RayUnavailableError, match=INSTALL_HINT.replace("[", r"\[")):
        import_ray()
