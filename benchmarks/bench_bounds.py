"""The per-request bounds at three sizes each, in milliseconds (best of ``--rounds``):
``python benchmarks/bench_bounds.py [--rounds 3] [--json]``.

- ``poisoned hints``: ``Guard.check`` of 16 chunks of a and b text, each carrying four
  ``a[ab]{480}c`` hints (1,944 RE2 instructions together, which defeat RE2's DFA on such text),
  at 15, 30 and 60 KB a chunk;
- ``tier 2``: the ``bis`` domain guard deciding a query that repeats ``scope of is 2062`` to 34,
  68 and 136 KB (every repeat an identifier whose form is judged);
- ``linked rules``: a linked-scope block rule and a linked warn rule over 1,000, 2,000 and 4,000
  chunks in pairs that share an account id (every pair fires), beside the same chunks unlinked;
- ``linked chain``: linking 2,000, 4,000 and 8,000 chunks where each new chunk joins a one-chunk
  group to the one growing group;
- ``long metadata value``: ``Guard.check`` and ``result.audit()`` of a chunk denied for a
  ``contract_type`` list of 2,000, 4,000 and 8,000 values.

Linear work shows as a ratio of about 2 between neighbouring sizes (bounded work, about 1).
"""

from __future__ import annotations

import argparse
import json
import random
import time
from itertools import pairwise
from typing import TYPE_CHECKING, Any

from rag_guard_integrations import AccessContext, Chunk, Guard, load_policy, parse_policy
from rag_guard_integrations.guards.combination import CombinationGuard, Labelled
from rag_guard_integrations.guards.domain import DomainGuard
from rag_guard_integrations.guards.linking import link_groups

if TYPE_CHECKING:
    from collections.abc import Callable

LINKED = """
version: 1
linking: {keys: [account_id]}
rules:
  - name: money_linked_to_client
    trigger: {all_present: [financial, entity_identifier], scope: linked}
  - name: noted
    action: warn
    trigger: {all_present: [financial, entity_identifier], scope: linked}
"""


def best_ms(call: Callable[[], object], rounds: int) -> float:
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        call()
        best = min(best, time.perf_counter() - start)
    return best * 1000


def a_and_b(size: int, seed: int) -> str:
    rng = random.Random(seed)
    return "".join(rng.choice("ab") for _ in range(size))


def poisoned_hints(size: int) -> Callable[[], object]:
    guard = Guard(parse_policy("version: 1\n"))
    hints = {f"h{n}_regex_hint": "a[ab]{480}c" for n in range(4)}
    chunks = [Chunk(a_and_b(size, seed), hints) for seed in range(16)]  # distinct texts
    return lambda: guard.check("q", chunks)


def tier_two(repeats: int) -> Callable[[], object]:
    spec = load_policy("bis").domain
    assert spec is not None
    guard = DomainGuard(spec.model_copy(update={"retriever_scores": "cosine"}))
    chunks = [Chunk("catalogue entry", {"standard": "IS 9999"}, score=0.5)]
    query = "scope of is 2062 " * repeats
    return lambda: guard.decide(query, chunks)


def pairs(count: int, linked: bool) -> list[Labelled]:
    items = []
    for n in range(count // 2):
        meta = {"account_id": f"acc-{n}"} if linked else {}
        items.append(Labelled(2 * n, frozenset({"financial"}), 0.5, meta))
        items.append(Labelled(2 * n + 1, frozenset({"entity_identifier"}), 0.4, meta))
    return items


def linked_rules(count: int, linked: bool = True) -> Callable[[], object]:
    policy = parse_policy(LINKED)
    guard = CombinationGuard(policy.rules, policy.linking.keys)
    items = pairs(count, linked)
    return lambda: guard(items)


def linked_chain(count: int) -> Callable[[], object]:
    rows: list[tuple[int, dict[str, Any]]] = []
    for n in range(count // 2):
        rows.append((2 * n, {"entity": f"e{n}"}))
        rows.append((2 * n + 1, {"account_id": "shared", "entity": f"e{n}"}))
    return lambda: link_groups(rows, ["account_id", "entity"])


def long_value(items: int) -> Callable[[], object]:
    guard = Guard.from_policy("contracts")
    access = AccessContext(contract_type={"MSA"})
    value = [f"acct-{n:05d}" for n in range(items)]
    chunk = Chunk("Either party may terminate on notice.", {"contract_type": value})
    return lambda: guard.check("q", [chunk], access=access).audit()


CASES: dict[str, tuple[tuple[int, ...], str, Callable[[int], Callable[[], object]]]] = {
    "poisoned hints (16 chunks)": ((15_000, 30_000, 60_000), "bytes a chunk", poisoned_hints),
    "tier 2": ((2_000, 4_000, 8_000), "identifiers (17 bytes each)", tier_two),
    "linked rules": ((1_000, 2_000, 4_000), "chunks", linked_rules),
    "unlinked, same rules": ((1_000, 2_000, 4_000), "chunks", lambda n: linked_rules(n, False)),
    "linked chain": ((2_000, 4_000, 8_000), "chunks", linked_chain),
    "long metadata value": ((2_000, 4_000, 8_000), "items", long_value),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    out: dict[str, dict[str, Any]] = {}
    for name, (sizes, unit, build) in CASES.items():
        times = {size: best_ms(build(size), args.rounds) for size in sizes}
        out[name] = {"unit": unit, "ms": times}
    if args.json:
        print(json.dumps(out, indent=2))
        return
    for name, row in out.items():
        times = row["ms"]
        sizes = list(times)
        cells = "  ".join(f"{size:>7,} {times[size]:9.2f} ms" for size in sizes)
        ratios = " ".join(f"{times[b] / max(times[a], 1e-9):.2f}" for a, b in pairwise(sizes))
        print(f"{name:<28} {cells}   ratios {ratios}  ({row['unit']})")


if __name__ == "__main__":
    main()
