"""``rag-guard eval prompt`` over the LlamaIndex paths: each guarded path leaks nothing through
prompts, instrumentation or logs, finds the authorised clauses and refuses; the naive one leaks."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from rag_guard_integrations.cli import main
from rag_guard_integrations.evaluation.prompt.harness import load_paths

if TYPE_CHECKING:
    import pytest

GUARDED = {
    "llamaindex_postprocessor",
    "llamaindex_query_engine",
    "llamaindex_sentence_window",
    "llamaindex_prev_next",
    "llamaindex_chat",
    "llamaindex_anonymous_chat",
    "llamaindex_agent",
}


def test_the_llama_index_paths_are_registered() -> None:
    """Every LlamaIndex path named in the design, and the naive baseline, is available."""
    assert set(load_paths()) >= {*GUARDED, "llamaindex_naive", "llamaindex_fusion"}


def test_llama_index_paths_at_a_small_size(capsys: pytest.CaptureFixture[str]) -> None:
    """Sync and async, every guarded path has zero leaks, full recall and refusals."""
    paths = ",".join(sorted({*GUARDED, "llamaindex_naive"}))
    assert main(["eval", "prompt", "--cases", "8", "--json", "--paths", paths]) == 0
    report = json.loads(capsys.readouterr().out)["paths"]
    assert report["llamaindex_naive"]["prompt_leak_rate"] > 0.5
    assert report["llamaindex_naive"]["event_leak_rate"] > 0.5
    for name in GUARDED:
        rates = report[name]
        assert rates["cases"] == 16
        leaks = (rates["prompt_leak_rate"], rates["event_leak_rate"], rates["log_leak_rate"])
        assert leaks == (0.0, 0.0, 0.0), name
        assert rates["authorised_recall"] == 1.0, name
        assert rates["refusal_rate"] == 1.0, name


def test_a_guarded_fusion_retriever_leaks_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    """Through a QueryFusionRetriever nothing leaks and every case refuses; fetching more
    through the composite and keeping ``k``, every authorised chunk reaches the model (the
    unguarded top k misses some)."""
    paths = "llamaindex_fusion,llamaindex_naive"
    assert main(["eval", "prompt", "--cases", "8", "--json", "--paths", paths]) == 0
    report = json.loads(capsys.readouterr().out)["paths"]
    rates = report["llamaindex_fusion"]
    leaks = (rates["prompt_leak_rate"], rates["event_leak_rate"], rates["log_leak_rate"])
    assert leaks == (0.0, 0.0, 0.0)
    assert rates["refusal_rate"] == 1.0
    assert rates["authorised_recall"] == 1.0
    assert report["llamaindex_naive"]["authorised_recall"] < 1.0
