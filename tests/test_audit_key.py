"""Keyed record hashes: content and query hashes are HMAC-SHA256 under a deployment key that
never enters a record, named there by its fingerprint; without a configured key the process
draws one and says so."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import pickle
import subprocess
import sys
from typing import TYPE_CHECKING, Any

import jsonschema
import pytest

from rag_guard_integrations import Chunk, Guard
from rag_guard_integrations.cli import main
from rag_guard_integrations.core.audit import audit_schema
from rag_guard_integrations.core.errors import ArgumentError
from rag_guard_integrations.core.keys import AUDIT_KEY_ENV, AuditKey, audit_key, process_key
from rag_guard_integrations.engine import notices

if TYPE_CHECKING:
    from pathlib import Path

KEY = "k3y-for-these-tests-0123456789abcdef"
PIN = "PIN: 4821"


def pin_record(guard: Guard) -> dict[str, object]:
    """The audit record of a check whose query and only chunk are a four-digit PIN."""
    return guard.check(PIN, [Chunk(PIN)]).audit()


def test_a_short_secret_cannot_be_read_back_by_brute_force() -> None:
    """Hashing every PIN candidate with sha256 finds nothing in the record; only the key's
    holder can test a guess."""
    record = pin_record(Guard.from_policy("default", audit_key=KEY))
    dumped = json.dumps(record)
    found = [
        n for n in range(10_000) if hashlib.sha256(f"PIN: {n:04d}".encode()).hexdigest() in dumped
    ]
    assert found == []
    assert record["query"]["hmac"] == AuditKey(KEY.encode(), "argument").digest(PIN)  # type: ignore[index]
    assert KEY not in dumped


def test_the_record_names_the_key_by_a_fingerprint_only() -> None:
    """The key id is stable for one key, differs between keys, and is not the key; records of
    one key match by hash, records of two keys do not."""
    one, again = (
        Guard.from_policy("default", audit_key=KEY),
        Guard.from_policy("default", audit_key=KEY),
    )
    other = Guard.from_policy("default", audit_key=KEY[::-1])
    first, second, third = pin_record(one), pin_record(again), pin_record(other)
    assert first["key_id"] == second["key_id"] != third["key_id"]
    assert first["chunks"][0]["content_hmac"] == second["chunks"][0]["content_hmac"]  # type: ignore[index]
    assert first["chunks"][0]["content_hmac"] != third["chunks"][0]["content_hmac"]  # type: ignore[index]
    assert first["key_id"] not in KEY.encode().hex()
    assert KEY not in repr(one.audit_key)


def test_the_environment_gives_the_key(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without audit_key=, RAG_GUARD_AUDIT_KEY keys the hashes; audit_key= wins over it."""
    monkeypatch.setenv(AUDIT_KEY_ENV, KEY)
    assert Guard.from_policy("default").audit_key == AuditKey(KEY.encode(), "environment")
    assert Guard.from_policy("default", audit_key=KEY[::-1]).audit_key.source == "argument"


@pytest.mark.parametrize("given", [b"short", "short", 42], ids=["bytes", "str", "int"])
def test_a_weak_or_odd_key_is_a_one_line_error(given: object) -> None:
    """A key under 16 bytes, or of another type, is refused with the fix."""
    with pytest.raises(ArgumentError, match=r"audit_key|16"):
        audit_key(given)  # type: ignore[arg-type]


def test_without_a_key_the_process_draws_one_and_says_so(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """No argument and no environment variable: a random key of the process, the same for
    every guard of the process, named in a notice recorded in every result and logged once
    a process."""
    monkeypatch.delenv(AUDIT_KEY_ENV, raising=False)
    monkeypatch.setattr(notices, "_SAID", set())
    with caplog.at_level(logging.WARNING, logger="rag_guard_integrations"):
        guard = Guard.from_policy("default")
        again = Guard.from_policy("default")
    assert guard.audit_key is process_key() is again.audit_key
    result = guard.check(PIN, [Chunk(PIN)])
    (notice,) = result.notices
    assert AUDIT_KEY_ENV in notice
    assert process_key().id in notice
    assert caplog.messages.count(notice) == 1
    assert result.audit()["notices"] == [notice] == list(again.check(PIN, [Chunk(PIN)]).notices)


def test_each_process_draws_its_own_key(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two processes without a configured key hash the same text differently."""
    monkeypatch.delenv(AUDIT_KEY_ENV, raising=False)
    code = (
        "from rag_guard_integrations.core.keys import audit_key;"
        "print(audit_key().digest('PIN: 4821'))"
    )
    digests = {
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True
        ).stdout.strip()
        for _ in range(2)
    }
    assert len(digests) == 2


def test_a_pickled_guard_keeps_its_key() -> None:
    """A guard sent to a worker keys its records as the original does."""
    guard = Guard.from_policy("default", audit_key=KEY)
    copy = pickle.loads(pickle.dumps(guard))
    assert copy.audit_key == guard.audit_key
    assert pin_record(copy)["chunks"] == pin_record(guard)["chunks"]


def test_records_validate_against_schema_v2_and_v1_stays_shipped() -> None:
    """A record matches the shipped v2 schema; the v1 schema, for older records, still ships
    and refuses a v2 record."""
    record = pin_record(Guard.from_policy("default", audit_key=KEY))
    jsonschema.Draft202012Validator(audit_schema(2)).validate(record)
    assert audit_schema()["properties"]["version"] == {"const": 2}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft202012Validator(audit_schema(1)).validate(record)


def as_v1(record: dict[str, Any]) -> dict[str, Any]:
    """``record`` in the shape of version 1: plain-sha256 field names, no key id."""
    dropped = {"key_id", "refused_shadow"}
    v1 = {k: v for k, v in record.items() if k not in dropped} | {"version": 1}
    v1["query"] = {("sha256" if k == "hmac" else k): v for k, v in record["query"].items()}
    v1["chunks"] = [
        {("content_sha256" if k == "content_hmac" else k): v for k, v in chunk.items()}
        for chunk in record["chunks"]
    ]
    for chunk in v1["chunks"]:
        chunk.pop("unknown_labels", None)
    return v1


def test_rag_guard_audit_reads_both_versions_and_counts_records_per_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`rag-guard audit` summarises v1 and v2 records together and reports how many records
    each key hashed (hashes are comparable only within one)."""
    v2 = pin_record(Guard.from_policy("default", audit_key=KEY))
    v1 = as_v1(v2)
    jsonschema.Draft202012Validator(audit_schema(1)).validate(v1)
    path = tmp_path / "audit.jsonl"
    path.write_text(json.dumps(v1) + "\n" + json.dumps(v2) + "\n", encoding="utf-8")
    assert main(["audit", str(path), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["records"] == 2
    assert summary["keys"] == {"(v1, plain sha256)": 1, str(v2["key_id"]): 1}
    assert main(["audit", str(path)]) == 0
    assert "per audit key" in capsys.readouterr().out


def test_without_a_key_a_cli_input_error_is_still_one_line(tmp_path: Path) -> None:
    """``rag-guard check`` reads its inputs before it builds the guard: run as a user runs it
    (a process with no key configured), a missing file is the one line on stderr, with no
    notice about the drawn key before it."""
    env = {k: v for k, v in os.environ.items() if k != AUDIT_KEY_ENV}
    missing = tmp_path / "missing.jsonl"
    args = ["check", "--policy", "contracts", "--query", "q", "--chunks", str(missing)]
    done = subprocess.run(
        [sys.executable, "-m", "rag_guard_integrations.cli", *args],
        capture_output=True, text=True, env=env, check=False,
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        f"rag-guard check: {missing}: cannot read it (No such file or directory); check the path"
    ]
