"""``rag-guard eval prompt``: the harness scores every channel, and the command runs every
LangChain path end to end at a small size."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from rag_guard_integrations.cli import main
from rag_guard_integrations.evaluation.prompt import Observation, PromptCase, build_prompt_corpus
from rag_guard_integrations.evaluation.prompt.harness import load_paths, score, summarise
from rag_guard_integrations.evaluation.prompt.recording import capture_logs

if TYPE_CHECKING:
    from rag_guard_integrations.evaluation.prompt import PromptCorpus

LANGCHAIN_PATHS = {
    "langchain_naive",
    "langchain_lcel",
    "langchain_lcel_plain",
    "langchain_compression",
    "langchain_agent",
    "langgraph_toolnode",
    "langchain_agent_plain",
    "langchain_with_result",
    "langchain_document_tool",
    "langchain_env_tracer",
    "langchain_redact_prompt",
}


@pytest.fixture(scope="module")
def corpus() -> PromptCorpus:
    """A small seeded corpus with 20 cases."""
    return build_prompt_corpus(3, cases=20)


def test_every_chunk_carries_its_own_canary_in_text_and_metadata(corpus: PromptCorpus) -> None:
    """Canaries are unique, and each chunk's appears in its text and in its metadata."""
    assert len(set(corpus.canary_of.values())) == len(corpus.chunks)
    for chunk in corpus.chunks:
        canary = corpus.canary_of[str(chunk.id)]
        assert canary in chunk.text
        assert canary in chunk.metadata.values()


def test_cases_cover_answers_no_access_and_off_topic(corpus: PromptCorpus) -> None:
    """Answerable cases have authorised chunks whose canaries are not forbidden; others refuse."""
    kinds = {(c.expect_refusal, bool(c.access)) for c in corpus.cases}
    assert kinds == {(False, True), (True, False), (True, True)}
    for case in corpus.cases:
        allowed = {corpus.canary_of[i] for i in case.authorised_ids}
        assert not allowed & case.forbidden_canaries
        assert case.expect_refusal == (not case.authorised_ids)


def test_score_finds_a_canary_in_each_channel(corpus: PromptCorpus) -> None:
    """A forbidden canary in a prompt, an event or a log line counts as that channel's leak."""
    case: PromptCase = next(c for c in corpus.cases if c.authorised_ids)
    leaked = sorted(case.forbidden_canaries)[0]
    ok = sorted(case.authorised_ids)[0]
    seen = Observation(
        prompt_texts=[f"context {corpus.canary_of[ok]}"],
        event_texts=[f"on_retriever_end {leaked}"],
        log_texts=[],
        context_ids=[ok],
    )
    assert score(case, seen) == {
        "prompt_leak": False,
        "event_leak": True,
        "log_leak": False,
        "recalled": True,
        "refused": False,
    }
    rates = summarise([case], [score(case, seen)])
    assert (rates["event_leak_rate"], rates["authorised_recall"]) == (1.0, 1.0)


def test_log_capture_keeps_extra_fields() -> None:
    """Captured log lines include the message and any ``extra=`` record fields."""
    import logging

    with capture_logs() as lines:
        logging.getLogger("rag_guard_integrations").info("checked %s", 3, extra={"audit": "x1"})
    assert "checked 3" in lines[0]
    assert "x1" in lines[0]


def test_the_langchain_paths_are_registered() -> None:
    """Every LangChain path named in the design is available."""
    assert set(load_paths()) >= LANGCHAIN_PATHS


def test_eval_prompt_json_at_a_small_size(capsys: pytest.CaptureFixture[str]) -> None:
    """Every guarded LangChain path leaks nothing and refuses; the naive baseline leaks."""
    paths = ",".join(sorted(LANGCHAIN_PATHS))
    assert main(["eval", "prompt", "--cases", "6", "--json", "--paths", paths]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["cases"] == 6 * 2 * len(LANGCHAIN_PATHS)
    assert report["paths"]["langchain_naive"]["prompt_leak_rate"] > 0.5
    for name in LANGCHAIN_PATHS - {"langchain_naive"}:
        rates = report["paths"][name]
        assert rates["cases"] == 12
        leaks = (rates["prompt_leak_rate"], rates["event_leak_rate"], rates["log_leak_rate"])
        assert leaks == (0.0, 0.0, 0.0), name
        assert (rates["refusal_rate"], rates["authorised_recall"]) == (1.0, 1.0), name


def test_a_masked_value_counts_as_a_leak_on_the_path_that_masks_it(corpus: PromptCorpus) -> None:
    """A canary the path adds to the forbidden ones (``also_forbidden``) is a leak wherever it
    shows, even for a case that may see the chunk it belongs to."""
    case = next(c for c in corpus.cases if c.authorised_ids)
    masked = corpus.canary_of[sorted(case.authorised_ids)[0]]
    seen = Observation(event_texts=[masked], also_forbidden=frozenset({masked}))
    assert score(case, seen)["event_leak"] is True
    assert score(case, Observation(event_texts=[masked]))["event_leak"] is False


def test_eval_prompt_table_and_bad_path(capsys: pytest.CaptureFixture[str]) -> None:
    """The table names each path; an unknown path is a usage error naming the known ones."""
    assert main(["eval", "prompt", "--cases", "2", "--paths", "langchain_lcel"]) == 0
    assert "langchain_lcel" in capsys.readouterr().out
    assert main(["eval", "prompt", "--cases", "2", "--paths", "nope"]) == 2
    assert "unknown eval prompt path(s) nope; known:" in capsys.readouterr().err
