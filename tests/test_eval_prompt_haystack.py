"""``rag-guard eval prompt`` over the Haystack paths, traced with content tracing on: both
guarded pipelines keep withheld clauses out of every prompt and log line and find the
authorised ones; GuardedRetriever also keeps them out of every trace, while a plain retriever
node ahead of GuardedDocuments shows its candidates there; the naive pipeline leaks."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from rag_guard_integrations.cli import main
from rag_guard_integrations.evaluation.prompt.harness import load_paths

if TYPE_CHECKING:
    import pytest

GUARDED = {"haystack_documents", "haystack_retriever"}


def test_the_haystack_paths_are_registered() -> None:
    """Both guarded Haystack paths and the naive baseline are available."""
    assert set(load_paths()) >= {*GUARDED, "haystack_naive"}


def test_haystack_paths_at_a_small_size(capsys: pytest.CaptureFixture[str]) -> None:
    """Sync and async: no prompt or log leak, full recall and refusals on both guarded paths;
    no trace leak through GuardedRetriever; the naive pipeline leaks into prompt and trace."""
    paths = ",".join(sorted({*GUARDED, "haystack_naive"}))
    assert main(["eval", "prompt", "--cases", "8", "--json", "--paths", paths]) == 0
    report = json.loads(capsys.readouterr().out)["paths"]
    assert report["haystack_naive"]["prompt_leak_rate"] > 0.5
    assert report["haystack_naive"]["event_leak_rate"] > 0.5
    for name in GUARDED:
        rates = report[name]
        assert rates["cases"] == 16
        assert (rates["prompt_leak_rate"], rates["log_leak_rate"]) == (0.0, 0.0), name
        assert rates["authorised_recall"] == 1.0, name
        assert rates["refusal_rate"] == 1.0, name
    assert report["haystack_retriever"]["event_leak_rate"] == 0.0
    assert report["haystack_documents"]["event_leak_rate"] > 0.5
