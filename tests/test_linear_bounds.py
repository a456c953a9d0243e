"""Bounded, linear work per request, counted at three sizes (no timing: see
``benchmarks/bench_bounds.py`` for the seconds): untrusted hints within an RE2 work budget,
tier 2 of the domain guard over a long query, linked-scope rules over many linked groups, and
the audit record of a chunk with a long metadata value."""

from __future__ import annotations

import random
from itertools import pairwise
from typing import TYPE_CHECKING, Any

import re2
from work_counter import CountedText, lines_run

from rag_guard_integrations import AccessContext, Chunk, Guard, parse_policy
from rag_guard_integrations.guards import combination, domain_identifiers, linking
from rag_guard_integrations.guards.access import MAX_HINT_WORK
from rag_guard_integrations.guards.combination import CombinationGuard, Labelled
from rag_guard_integrations.guards.domain_identifiers import IdentifierReader

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    import pytest

# Each size doubles the last: linear work doubles with it (at most 2.3x here, for constants).
GROWTH = 2.3
POISON = {f"h{n}_regex_hint": "a[ab]{480}c" for n in range(4)}  # 1,944 instructions together
BENIGN = {"x_regex_hint": r"\bmsa\b"}  # 11 instructions


def assert_linear(counts: Sequence[int]) -> None:
    """Each count at most ``GROWTH`` times the one before (the sizes double)."""
    for small, large in pairwise(counts):
        assert large <= GROWTH * small, counts


def a_and_b(size: int) -> str:
    """Text of a and b only, which keeps a ``a[ab]{n}c`` hint's RE2 DFA from ever settling."""
    rng = random.Random(size)
    return "".join(rng.choice("ab") for _ in range(size))


def re2_work(monkeypatch: pytest.MonkeyPatch, call: Callable[[], Any]) -> list[int]:
    """RE2 instructions x bytes of every search ``call`` makes: what RE2 may step through when
    a hint defeats its DFA. The searches run unchanged; each is only counted."""
    searches: list[int] = []
    search = re2._Regexp.search

    def counted(self: Any, text: str, *args: Any) -> Any:
        searches.append(self.programsize * len(text.encode("utf-8")))
        return search(self, text, *args)

    monkeypatch.setattr(re2._Regexp, "search", counted)
    call()
    monkeypatch.undo()
    return searches


SIZES = (15_000, 30_000, 60_000)


def test_a_poisoned_hint_is_denied_before_re2_runs_at_any_size(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Four hints that defeat RE2's DFA on a text of a and b are over the work budget at 15, 30
    and 60 KB: the chunk is denied and RE2 searches nothing (run, the first hint alone would
    cost 7.3, 14.6 and 29.2 million instruction-bytes)."""
    guard = Guard(parse_policy("version: 1\n"))
    for size in SIZES:
        chunk = Chunk(a_and_b(size), POISON)
        results: list[Any] = []
        assert (
            re2_work(monkeypatch, lambda c=chunk, out=results: out.append(guard.check("q", [c])))
            == []
        )
        (decision,) = results[0].decisions
        assert (decision.allowed, decision.stage) == (False, "hint")
        assert "budget" in decision.reason


def test_hint_work_grows_linearly_with_the_text_within_the_budget(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A small hint runs on texts of every size the budget admits, its RE2 work doubling with
    the text and never over the budget; past it the chunk is denied unrun."""
    guard = Guard(parse_policy("version: 1\n"))
    work = []
    for size in SIZES:
        text = "msa " + a_and_b(size)
        work.append(sum(re2_work(monkeypatch, lambda t=text: guard.check("q", [Chunk(t, BENIGN)]))))
    assert_linear(work)
    assert 0 < max(work) <= MAX_HINT_WORK
    over = "msa " + a_and_b(2 * MAX_HINT_WORK // 11)
    assert re2_work(monkeypatch, lambda: guard.check("q", [Chunk(over, BENIGN)])) == []


QUERY_REPEATS = (2_000, 4_000, 8_000)  # 34, 68 and 136 KB


def test_tier_two_reads_each_identifier_in_bounded_work(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every identifier of a long query is judged for its form by reading a bounded stretch of
    text before it: the characters read out of the query and the lines run double with the
    query (a copy of the query before each match would make them grow with its square)."""
    reader = IdentifierReader(r"\b((?:ais|is|iec)\s*[-:/]?\s*\d{2,5})\b", ["is"])
    normalize_with_offsets = domain_identifiers.normalize_with_offsets
    texts: list[CountedText] = []

    def counted(query: str) -> tuple[str, list[int]]:
        text, offsets = normalize_with_offsets(query)
        texts.append(CountedText(text))
        return texts[-1], offsets

    monkeypatch.setattr(domain_identifiers, "normalize_with_offsets", counted)
    copied, lines = [], []
    for repeats in QUERY_REPEATS:
        query = "scope of is 2062 and IS 1786 " * repeats
        lines.append(lines_run(lambda q=query: reader.typed(q), domain_identifiers))
        copied.append(texts[-1].copied)
    assert_linear(copied)
    assert_linear(lines)
    assert reader.typed("scope of is 2062") == {"is2062": "is 2062"}


PAIRS = (500, 1_000, 2_000)
LINKED = parse_policy(
    """
version: 1
linking: {keys: [account_id]}
rules:
  - name: money_linked_to_client
    trigger: {all_present: [financial, entity_identifier], scope: linked}
  - name: noted
    action: warn
    trigger: {all_present: [financial, entity_identifier], scope: linked}
"""
)


def linked_pairs(pairs: int) -> list[Labelled]:
    """``pairs`` linked groups of two chunks, each group firing the linked rules."""
    items = []
    for n in range(pairs):
        meta = {"account_id": f"acc-{n}"}
        items.append(Labelled(2 * n, frozenset({"financial"}), 0.5, meta))
        items.append(Labelled(2 * n + 1, frozenset({"entity_identifier"}), 0.4, meta))
    return items


def test_linked_rules_work_grows_linearly_with_the_linked_groups() -> None:
    """1,000, 2,000 and 4,000 chunks in pairs linked by account: every group fires and loses one
    carrier, in lines run that double with the set (rescanning every carrier for each group
    would make them grow with its square)."""
    guard = CombinationGuard(LINKED.rules, LINKED.linking.keys)
    lines = []
    for pairs in PAIRS:
        items = linked_pairs(pairs)
        outcome: list[Any] = []
        lines.append(
            lines_run(lambda i=items, out=outcome: out.append(guard(i)), combination, linking)
        )
        assert len(outcome[0].removed) == pairs
        assert len(outcome[0].violations) == pairs
    assert_linear(lines)


def test_links_keep_their_order_when_groups_join() -> None:
    """When a one-chunk group holds a value first and the grown group joins it, the links read
    as documented: the holder's group's, the joining group's, then the joining link (the
    chains are joined without copying, see ``benchmarks/bench_bounds.py``)."""
    rows = []
    for n in range(3):
        rows.append((2 * n, {"entity": f"e{n}"}))
        rows.append((2 * n + 1, {"account_id": "shared", "entity": f"e{n}"}))
    (group,) = linking.link_groups(rows, ["account_id", "entity"])
    assert group.members == (0, 1, 2, 3, 4, 5)
    assert [(lk.a, lk.b, lk.key) for lk in group.links] == [
        (0, 1, "entity"),
        (1, 3, "account_id"),
        (2, 3, "entity"),
        (1, 5, "account_id"),
        (4, 5, "entity"),
    ]


ITEMS = (2_000, 4_000, 8_000)


def test_the_audit_record_never_reads_a_long_metadata_value() -> None:
    """A chunk denied for a metadata value of 2,000, 4,000 and 8,000 items: its records take
    the same work at every size (they are written from the reason's template, not by
    searching the reason for the value), and the whole check grows linearly."""
    guard = Guard.from_policy("contracts")
    access = AccessContext(contract_type={"MSA"})
    audit, checked = [], []
    for items in ITEMS:
        value = [f"acct-{n:05d}" for n in range(items)]
        chunk = Chunk("Either party may terminate on notice.", {"contract_type": value})
        results: list[Any] = []
        checked.append(
            lines_run(lambda c=chunk, out=results: out.append(guard.check("q", [c], access)))
        )
        result = results[0]
        assert result.decisions[0].stage == "access"
        audit.append(lines_run(lambda r=result: (r.audit(), r.to_dict(include_text=False))))
    assert max(audit) - min(audit) <= 10, audit
    assert_linear(checked)
