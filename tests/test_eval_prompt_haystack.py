"""``rag-guard eval prompt`` over the Haystack paths: the guarded pipeline leaks nothing through
prompts, traces or logs, finds the authorised clauses and refuses; the naive one leaks."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from rag_guard_integrations.cli import main
from rag_guard_integrations.evaluation.prompt.harness import load_paths

if TYPE_CHECKING:
    import pytest

GUARDED = {"haystack_documents"}


def test_the_haystack_paths_are_registered() -> None:
    """The guarded Haystack path and its naive baseline are available."""
    assert set(load_paths()) >= {*GUARDED, "haystack_naive"}


def test_haystack_paths_at_a_small_size(capsys: pytest.CaptureFixture[str]) -> None:
    """Sync and async, the guarded pipeline has zero leaks, full recall and refusals; the
    unguarded one puts withheld clauses into the prompt."""
    paths = ",".join(sorted({*GUARDED, "haystack_naive"}))
    assert main(["eval", "prompt", "--cases", "8", "--json", "--paths", paths]) == 0
    report = json.loads(capsys.readouterr().out)["paths"]
    assert report["haystack_naive"]["prompt_leak_rate"] > 0.5
    for name in GUARDED:
        rates = report[name]
        assert rates["cases"] == 16
        leaks = (rates["prompt_leak_rate"], rates["event_leak_rate"], rates["log_leak_rate"])
        assert leaks == (0.0, 0.0, 0.0), name
        assert rates["authorised_recall"] == 1.0, name
        assert rates["refusal_rate"] == 1.0, name
