"""The shared-data fixture: evaluation files beside the repository skip when absent, fail in CI."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

pytestmark = pytest.mark.unit


def test_a_present_file_is_found(
    shared_data: Callable[[str], Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file in $RAG_GUARD_SHARED_DATA is returned as a path."""
    (tmp_path / "x.jsonl").write_text("{}\n", encoding="utf-8")
    monkeypatch.setenv("RAG_GUARD_SHARED_DATA", str(tmp_path))
    assert shared_data("x.jsonl") == tmp_path / "x.jsonl"


def test_an_absent_file_skips_with_one_line(
    shared_data: Callable[[str], Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without CI, an absent file skips the test, naming the file and the variable."""
    monkeypatch.setenv("RAG_GUARD_SHARED_DATA", str(tmp_path))
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception) as caught:
        shared_data("missing.json")
    message = str(caught.value)
    assert "missing.json is absent" in message
    assert "RAG_GUARD_SHARED_DATA" in message
    assert "\n" not in message


def test_an_absent_file_fails_under_ci(
    shared_data: Callable[[str], Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With CI set, an absent file fails the test instead of skipping it."""
    monkeypatch.setenv("RAG_GUARD_SHARED_DATA", str(tmp_path))
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI must provide"):
        shared_data("missing.json")
