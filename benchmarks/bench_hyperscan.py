"""The recognisers' first pass, RE2 set against Hyperscan (vectorscan), on the PII sentences:
``python benchmarks/bench_hyperscan.py [--json]`` (the ``bench`` extra).

The scanner's first pass asks which of its trigger patterns occur in a text (one ``re2.Set``
call). Hyperscan reports every match of many patterns in one native scan, so it could also give
the values' spans; this measures what that pass costs from Python, CPU microseconds a text (the
texts folded beforehand, best of five passes):

- the RE2 set of the scanner's trigger patterns, as the scanner runs it;
- Hyperscan with ``SINGLEMATCH`` on the same patterns (the same question: which occur);
- Hyperscan with ``SOM_LEFTMOST`` on every recogniser pattern (what a one-pass scan that
  reports spans needs), counting the patterns it refuses;
- the whole scanner (set pass, spans, validators, context), for scale.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import TYPE_CHECKING, Any

import hyperscan
from peer_patterns import load

from rag_guard_integrations.classify.pattern_fold import fold_for_matching
from rag_guard_integrations.classify.pattern_scan import PatternScanner
from rag_guard_integrations.classify.recognizers import DEFAULT_RECOGNIZERS, Recognizer
from rag_guard_integrations.core.patterns import PatternSet

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

PASSES = 5
_CASELESS_UTF8 = hyperscan.HS_FLAG_CASELESS | hyperscan.HS_FLAG_UTF8


def us_per_item(call: Callable[[Any], object], items: Sequence[Any]) -> float:
    """Best-of-five CPU microseconds of ``call`` per item."""
    best = float("inf")
    for _ in range(PASSES):
        started = time.thread_time()
        for item in items:
            call(item)
        best = min(best, time.thread_time() - started)
    return best / len(items) * 1e6


def compiles(pattern: str, flags: int) -> bool:
    """True when Hyperscan compiles ``pattern`` with ``flags``."""
    try:
        hyperscan.Database().compile(expressions=[pattern.encode()], flags=[flags])
    except hyperscan.error:
        return False
    return True


def hyperscan_database(patterns: Sequence[str], flags: int) -> tuple[Any, list[str]]:
    """A block-mode database of the patterns Hyperscan compiles, and the ones it refuses."""
    kept = [p for p in patterns if compiles(p, flags)]
    database = hyperscan.Database()
    database.compile(
        expressions=[p.encode() for p in kept],
        ids=list(range(len(kept))),
        flags=[flags] * len(kept),
    )
    database.scratch = hyperscan.Scratch(database)
    return database, [p for p in patterns if p not in kept]


def compare() -> dict[str, Any]:
    """The four costs a text, and how many patterns Hyperscan refuses under SOM_LEFTMOST."""
    texts = [r["text"] for r in load("pii_samples")]
    data = [fold_for_matching(t)[1] for t in texts]
    recognizers = [r for r in DEFAULT_RECOGNIZERS if isinstance(r, Recognizer)]
    triggers = [
        p
        for r in recognizers
        for p in ((r.regex,) if r.context_regex is None else (r.context_regex, r.standalone_regex))
        if p is not None
    ]
    every = [
        p
        for r in recognizers
        for p in (r.regex, r.context_regex, r.standalone_regex)
        if p is not None
    ]
    matches: list[int] = []

    def found(index: int, start: int, end: int, flags: int, context: object) -> None:
        matches.append(index)

    re2_set = PatternSet(triggers).match_utf8
    single, single_refused = hyperscan_database(
        triggers, _CASELESS_UTF8 | hyperscan.HS_FLAG_SINGLEMATCH
    )
    spans, spans_refused = hyperscan_database(
        every, _CASELESS_UTF8 | hyperscan.HS_FLAG_SOM_LEFTMOST
    )
    scanner = PatternScanner(recognizers)
    return {
        "texts": len(texts),
        "re2_set_us": us_per_item(re2_set, data),
        "hyperscan_singlematch_us": us_per_item(
            lambda d: single.scan(d, match_event_handler=found), data
        ),
        "hyperscan_singlematch_refused": len(single_refused),
        "hyperscan_som_us": us_per_item(lambda d: spans.scan(d, match_event_handler=found), data),
        "hyperscan_som_refused": f"{len(spans_refused)} of {len(every)}",
        "scanner_us": us_per_item(scanner.classify, texts),
    }


def main(argv: list[str] | None = None) -> int:
    """Print the costs as a table or JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    result = compare()
    if parser.parse_args(argv).json:
        print(json.dumps(result, indent=2))
    else:
        for name, value in result.items():
            print(f"{name:32} {value:.2f}" if isinstance(value, float) else f"{name:32} {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
