"""Presidio's pattern recognisers beside PatternClassifier, for bench_peers.py: throughput in
MB/s of CPU time (turns of whole passes over a corpus, the sides taking turns; ours also with
the person and organisation recognisers, and the share of its throughput that keeps) and
precision/recall per entity type on the annotated PII sentences, scored as ``pii_quality.py``
scores.

Presidio runs on a blank English spaCy pipeline written to a temporary folder here, so that
nothing is downloaded; ``TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS`` is emptied for the same reason
(its email recogniser would fetch the public suffix list).
"""

from __future__ import annotations

import json
import os
import statistics
import tempfile
import time
import tracemalloc
from typing import TYPE_CHECKING, Any

from pii_quality import ENTITY_RECOGNIZER, SHARED, score

from rag_guard_integrations.classify.base import Classification, Finding
from rag_guard_integrations.classify.pattern import PatternClassifier
from rag_guard_integrations.classify.recognizers import BUILTIN_RECOGNIZERS

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence


def presidio_analyzer(folder: str) -> Any:
    """An AnalyzerEngine with the six recognisers of the entity types both sides have."""
    os.environ["TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS"] = ""
    import spacy  # noqa: PLC0415 - the bench extra
    from presidio_analyzer import AnalyzerEngine, RecognizerRegistry  # noqa: PLC0415
    from presidio_analyzer.nlp_engine import NlpEngineProvider  # noqa: PLC0415
    from presidio_analyzer.predefined_recognizers import (  # noqa: PLC0415
        CreditCardRecognizer,
        EmailRecognizer,
        IbanRecognizer,
        IpRecognizer,
        PhoneRecognizer,
        UsSsnRecognizer,
    )

    spacy.blank("en").to_disk(folder)
    config = {"nlp_engine_name": "spacy", "models": [{"lang_code": "en", "model_name": folder}]}
    engine = NlpEngineProvider(nlp_configuration=config).create_engine()
    registry = RecognizerRegistry(supported_languages=["en"])
    for recognizer in (
        EmailRecognizer(),
        CreditCardRecognizer(),
        IbanRecognizer(),
        UsSsnRecognizer(),
        PhoneRecognizer(),
        IpRecognizer(),
    ):
        registry.add_recognizer(recognizer)
    return AnalyzerEngine(registry=registry, nlp_engine=engine, supported_languages=["en"])


class PresidioClassifier:
    """Presidio's results as our findings (its entity types named as our recognisers), so that
    both sides are scored by the same code."""

    def __init__(self, analyzer: Any) -> None:
        self.analyzer = analyzer
        self.entities = list(ENTITY_RECOGNIZER)

    def classify(self, text: str) -> Classification:
        """Presidio's findings in ``text``."""
        results = self.analyzer.analyze(text=text, language="en", entities=self.entities)
        findings = tuple(
            Finding(ENTITY_RECOGNIZER[r.entity_type], "pii", r.start, r.end, r.score)
            for r in results
        )
        return Classification(frozenset(f.label for f in findings), findings)


def load(name: str) -> list[dict[str, Any]]:
    """The records of ``../shared/data/NAME.jsonl`` (or ``$RAG_GUARD_SHARED_DATA/NAME.jsonl``)."""
    with (SHARED / f"{name}.jsonl").open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


# Each side's turn lasts at least this much CPU time (whole passes, repeated): a pass of the
# fast side alone is a few milliseconds, which one interruption on a shared machine skews.
TURN_SECONDS = 0.25


def throughput(
    calls: dict[str, Callable[[str], object]], texts: Sequence[str], rounds: int
) -> dict[str, dict[str, float]]:
    """MB/s of CPU time over ``texts`` (median of ``rounds`` turns, the sides taking turns; a
    turn repeats whole passes for at least :data:`TURN_SECONDS`), then one more pass timing
    each text: its median and p99 microseconds."""
    size = sum(len(t.encode("utf-8")) for t in texts) / 1e6
    rates: dict[str, list[float]] = {name: [] for name in calls}
    for _ in range(rounds):
        for name, call in calls.items():
            passes, started = 0, time.thread_time()
            while True:
                for text in texts:
                    call(text)
                passes += 1
                spent = time.thread_time() - started
                if spent >= TURN_SECONDS:
                    break
            rates[name].append(passes * size / spent)
    out = {}
    for name, call in calls.items():
        per_text = []
        for text in texts:
            start = time.perf_counter_ns()
            call(text)
            per_text.append((time.perf_counter_ns() - start) / 1000)
        per_text.sort()
        out[name] = {
            "mb_per_s": statistics.median(rates[name]),
            "median_us": statistics.median(per_text),
            "p99_us": per_text[min(len(per_text) - 1, round(0.99 * (len(per_text) - 1)))],
        }
    return out


def peak_kib(call: Callable[[str], object], texts: Sequence[str]) -> float:
    """Peak KiB Python allocates during one pass of ``call`` over ``texts`` (tracemalloc)."""
    tracemalloc.start()
    try:
        for text in texts:
            call(text)
        return tracemalloc.get_traced_memory()[1] / 1024
    finally:
        tracemalloc.stop()


def compare_patterns(limit: int | None, rounds: int) -> dict[str, Any]:
    """Throughput on both corpora and quality on the PII sentences, Presidio against ours."""
    pii = load("pii_samples")[:limit]
    cuad = load("cuad_clauses")[:limit]
    with tempfile.TemporaryDirectory(prefix="blank-spacy-") as folder:
        presidio = PresidioClassifier(presidio_analyzer(folder))
        ours = PatternClassifier(cache_size=0)
        # The same recognisers plus person and organisation, as the built-in packs run them.
        named = PatternClassifier(BUILTIN_RECOGNIZERS.values(), cache_size=0)
        calls = {"presidio": presidio.classify, "ours": ours.classify, "ours_names": named.classify}
        for call in calls.values():
            call(pii[0]["text"])  # load and compile outside the timing
        records_of = {"pii_samples": pii, "cuad_clauses": cuad}
        corpora = {
            name: throughput(calls, [r["text"] for r in records], rounds)
            for name, records in records_of.items()
        }
        quality = {
            name: score(pii, classifier)["entities"]
            for name, classifier in (("presidio", presidio), ("ours", ours))
        }
    for name, result in corpora.items():
        result["speedup"] = {"x": result["ours"]["mb_per_s"] / result["presidio"]["mb_per_s"]}
        result["names_kept"] = result["ours_names"]["mb_per_s"] / result["ours"]["mb_per_s"]
        result["ours"]["peak_kib"] = peak_kib(ours.classify, [r["text"] for r in records_of[name]])
    return {
        "texts": {"pii_samples": len(pii), "cuad_clauses": len(cuad)},
        "corpora": corpora,
        "quality": quality,
    }
