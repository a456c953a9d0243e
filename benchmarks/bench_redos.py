"""Linear time on adversarial text: seconds per MB at 1, 2, 5 and 10 MB for each matching stage:
``python benchmarks/bench_redos.py [--sizes 1,2,5,10] [--rounds 3] [--json]``.

The text repeats a unit built to hurt: runs that make ``(a+)+$``, ``(a|aa)*c``, ``(x+x+)+y`` and
``(.*a){20}`` backtrack exponentially, look-alike, full-width and zero-width characters (the slow
normalisation path), near-miss fingerprints (a termination verb, no period), digit runs and
Luhn-failing card numbers, and broken e-mail addresses. Stages, each timed on its own:

- ``normalize``: :func:`normalize` of the whole text (longer than the cache limit, so uncached);
- ``fingerprints``: every ``contracts`` fingerprint searched in the normalised text;
- ``catastrophic``: the four backtracking traps searched in the normalised text;
- ``recognisers``: :class:`PatternClassifier` with every built-in recogniser, cache off;
- ``combination``: the ``default`` pack's rules over the text cut into 1 KB labelled chunks;
- ``hints``: the text cut into chunks as long as the hint work budget admits, each carrying
  index hints at the size bound (two hints of about 1,000 RE2 instructions each: a 130-word
  alternation and a counted repeat, neither matching, so each scans its whole chunk): the most
  hint work a text can bring (one chunk of the whole text would be denied unrun);
- ``linking``: the text cut into 1 KB chunks whose linking values are slices of it (look-alikes,
  full-width digits and zero-width characters included) and lists of account ids, normalised,
  checked and linked by the ``default`` pack's linked rule.

Each figure is the best of ``--rounds`` runs on one core. Linear growth shows as a flat
seconds-per-MB row.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from typing import TYPE_CHECKING

from rag_guard_integrations import Chunk, load_policy
from rag_guard_integrations.classify.pattern import PatternClassifier
from rag_guard_integrations.core.normalize import normalize
from rag_guard_integrations.core.patterns import compile_pattern, compile_untrusted
from rag_guard_integrations.core.stage import Request
from rag_guard_integrations.guards.access import MAX_HINT_WORK, HintGuard
from rag_guard_integrations.guards.combination import CombinationGuard, Labelled

if TYPE_CHECKING:
    from collections.abc import Callable

CATASTROPHIC = ("(a+)+$", "(a|aa)*c", "(x+x+)+y", "(.*a){20}")
UNIT = (
    "a" * 40 + "! " + "x" * 30 + " "
    "\u0430\uff42\u0441\u200bd\u00ade\u202e "
    "terminate " + "9" * 25 + " written " * 3 + "4111 1111 1111 1112 " + "a@b" * 5 + " "
)
CHUNK_BYTES = 1_000
WORDS = random.Random(3)
# An alternation of 130 random six-letter words before a digit (about 1,000 instructions), which
# matches only at the very end of the text, and a counted repeat that never matches: each scans
# the whole text.
HINT_WORDS = ["".join(WORDS.choice("bcdfghjklmnpqrstvwxz") for _ in range(6)) for _ in range(130)]
HINTS = {
    "words_regex_hint": "(?:" + "|".join(HINT_WORDS) + r")\d",
    "repeat_regex_hint": r"[a-z ]{0,120}\d{30}",
}


def adversarial(megabytes: int) -> str:
    """The unit repeated to ``megabytes`` of UTF-8."""
    unit_bytes = len(UNIT.encode("utf-8"))
    return UNIT * (megabytes * 1_000_000 // unit_bytes)


def stages() -> dict[str, Callable[[str, str], object]]:
    """Each stage as a function of (text, normalised text), compiled outside the timing."""
    fingerprints = [
        compile_pattern(spec.fingerprint_regex)
        for spec in load_policy("contracts").clauses.values()
        if spec.fingerprint_regex is not None
    ]
    traps = [compile_pattern(p) for p in CATASTROPHIC]
    classifier = PatternClassifier(cache_size=0)
    default = load_policy("default")
    combination = CombinationGuard(default.rules, default.linking.keys)
    labels = sorted({label for rule in default.rules for label in rule.trigger.all_present})

    hints = HintGuard()
    request = Request("q", "q", (), None)
    linked = CombinationGuard([r for r in default.rules if r.trigger.scope == "linked"],
                              default.linking.keys)  # fmt: skip

    program = sum(compile_untrusted(hint).programsize for hint in HINTS.values())
    # The unit normalises to fewer ASCII bytes than it has characters: a chunk of this many
    # characters (with the matching suffix) is within the hint work budget.
    admitted = MAX_HINT_WORK // program - len(HINT_WORDS[-1]) - 2

    def hint(text: str, _: str) -> object:
        pieces = range(0, len(text), admitted)
        chunks = [Chunk(f"{text[i : i + admitted]} {HINT_WORDS[-1]}7", HINTS) for i in pieces]
        return hints.check_many(chunks, request)

    def link(text: str, _: str) -> object:
        rng = random.Random(11)
        items = []
        for i, start in enumerate(range(0, len(text), CHUNK_BYTES)):
            meta = {
                "entity": text[start : start + 200] + str(rng.randrange(20)),
                "account_id": [f"\uff17{rng.randrange(40)}\u200b" for _ in range(5)],
            }
            if linked.unreadable_links(meta) is None:
                items.append(Labelled(i, frozenset(rng.sample(labels, 2)), rng.random(), meta))
        return linked(items)

    def combine(text: str, _: str) -> object:
        rng = random.Random(7)
        items = [
            Labelled(
                i,
                frozenset(rng.sample(labels, 2)),
                rng.random(),
                {"entity": f"e{rng.randrange(50)}"},
            )
            for i in range(max(1, len(text.encode("utf-8")) // CHUNK_BYTES))
        ]
        return combination(items)

    return {
        "normalize": lambda text, _: normalize(text),
        "fingerprints": lambda _, folded: [p.search(folded) for p in fingerprints],
        "catastrophic": lambda _, folded: [p.search(folded) for p in traps],
        "recognisers": lambda text, _: classifier.classify(text),
        "combination": combine,
        "hints": hint,
        "linking": link,
    }


def measure(sizes: list[int], rounds: int) -> dict[str, dict[int, float]]:
    """Best-of-``rounds`` seconds per MB of each stage at each size."""
    timed = stages()
    per_mb: dict[str, dict[int, float]] = {name: {} for name in timed}
    for size in sizes:
        text = adversarial(size)
        folded = normalize(text)
        megabytes = len(text.encode("utf-8")) / 1e6
        for name, stage in timed.items():
            best = float("inf")
            for _ in range(rounds):
                start = time.perf_counter()
                stage(text, folded)
                best = min(best, time.perf_counter() - start)
            per_mb[name][size] = best / megabytes
    return per_mb


def main(argv: list[str] | None = None) -> int:
    """Print seconds per MB by stage and size, as a table or JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1,2,5,10", help="sizes in MB, comma separated")
    parser.add_argument("--rounds", type=int, default=3, help="timed runs; the best counts")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core
    per_mb = measure(sizes, args.rounds)
    if args.json:
        print(json.dumps({"rounds": args.rounds, "seconds_per_mb": per_mb}, indent=2))
    else:
        from rag_guard_integrations.cli.console import table  # noqa: PLC0415 - only for the table

        headers = ("stage", *(f"s/MB at {s} MB" for s in sizes), f"ratio {sizes[-1]}/{sizes[0]}")
        rows = [
            (name, *(round(v[s], 4) for s in sizes), round(v[sizes[-1]] / v[sizes[0]], 2))
            for name, v in per_mb.items()
        ]
        print(table(headers, rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
