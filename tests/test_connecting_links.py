"""The links that connect a rule's chunks inside a linked group: unkept leaves pruned, the
rest in order, with work linear in the links however long the chain."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

import pytest

from rag_guard_integrations.core.decisions import Link
from rag_guard_integrations.guards.linking import connecting_links

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

pytestmark = pytest.mark.unit


def pruned_by_rounds(links: Sequence[Link], keep: Iterable[int]) -> tuple[Link, ...]:
    """The definition: remove every unkept leaf at once, round after round."""
    wanted, remaining = set(keep), list(links)
    while True:
        degree: dict[int, int] = {}
        for link in remaining:
            degree[link.a] = degree.get(link.a, 0) + 1
            degree[link.b] = degree.get(link.b, 0) + 1
        leaves = {n for n, d in degree.items() if d == 1 and n not in wanted}
        if not leaves:
            return tuple(remaining)
        remaining = [lk for lk in remaining if lk.a not in leaves and lk.b not in leaves]


def random_tree(size: int, rng: random.Random) -> list[Link]:
    links = [Link(rng.randrange(node), node, "k", str(node)) for node in range(1, size)]
    rng.shuffle(links)
    return links


@pytest.mark.parametrize("seed", range(200))
def test_pruning_keeps_exactly_the_links_between_kept_chunks(seed: int) -> None:
    """On random spanning trees the result is the round-by-round definition's, in order."""
    rng = random.Random(seed)
    size = rng.randrange(1, 40)
    links = random_tree(size, rng)
    keep = rng.sample(range(size), rng.randrange(0, min(size, 5) + 1))
    assert connecting_links(links, keep) == pruned_by_rounds(links, keep)


def test_two_kept_ends_of_a_chain_keep_the_whole_chain() -> None:
    """#0 and #3 are joined through #1 and #2; the dangling #4 is pruned."""
    chain = [Link(0, 1, "k", "a"), Link(1, 2, "k", "b"), Link(2, 3, "k", "c"), Link(3, 4, "k", "d")]
    assert connecting_links(chain, [0, 3]) == tuple(chain[:3])


def test_a_long_chain_is_pruned_in_work_linear_in_its_links() -> None:
    """A chain of 4,000 links that one kept chunk ends is pruned link by link: each link's
    ends are read a bounded number of times (counted, not timed)."""
    reads = 0

    class CountedLink(Link):
        __slots__ = ()

        def __getattribute__(self, name: str) -> object:
            nonlocal reads
            if name in ("a", "b"):
                reads += 1
            return object.__getattribute__(self, name)

    size = 4_000
    chain = [CountedLink(node, node + 1, "k", str(node)) for node in range(size)]
    assert connecting_links(chain, [0]) == ()
    assert reads <= 8 * size
