"""Tests for guard_access: per-request access that follows threads and tasks, never leaks, and
only narrows a pinned access or an enclosing block."""

from __future__ import annotations

import asyncio
import contextvars
from concurrent.futures import ThreadPoolExecutor

import pytest

from rag_guard_integrations import AccessContext, InputError, llama_index
from rag_guard_integrations.core.access import NO_ACCESS
from rag_guard_integrations.core.errors import AccessError, AdapterConfigError
from rag_guard_integrations.llama_index import guard_access
from rag_guard_integrations.llama_index.access import access_for, current_access

MSA = AccessContext(contract_type={"MSA"})
SOW = AccessContext(contract_type={"SOW"})
BOTH = AccessContext(contract_type={"MSA", "SOW"})


def test_block_sets_and_restores_access() -> None:
    """Inside the block the access applies; after it, nothing is left behind."""
    with guard_access(MSA) as entered:
        assert entered == MSA
        assert current_access() == MSA
    assert current_access() is None


def test_block_replaces_an_unpinned_default() -> None:
    """A block's access replaces a component's unpinned default; with no block the default
    applies."""
    assert access_for(SOW) == SOW
    with guard_access(MSA):
        assert access_for(SOW) == MSA


@pytest.mark.parametrize("nobody", [None, {}, NO_ACCESS], ids=["None", "empty", "NO_ACCESS"])
@pytest.mark.parametrize("pinned", [False, True], ids=["unpinned", "pinned"])
def test_a_block_of_none_is_no_access(nobody: object, pinned: bool) -> None:
    """``guard_access(None)`` says "no access", like ``{}``: the default does not come back."""
    with guard_access(nobody):
        assert access_for(BOTH, pinned=pinned) == NO_ACCESS
        assert current_access() == NO_ACCESS


def test_a_pinned_default_is_only_narrowed() -> None:
    """Under ``pinned`` a block keeps only what the default allows too: it cannot widen it,
    and an attribute the default does not name stays denied."""
    wider = {"contract_type": ["SOW", "NDA"], "region": ["EU"]}
    with guard_access(wider):
        assert access_for(BOTH, pinned=True) == AccessContext(contract_type={"SOW"})
        assert access_for(BOTH) == AccessContext.coerce(wider)
    assert access_for(BOTH, pinned=True) == BOTH


def test_a_pinned_principal_cannot_be_replaced() -> None:
    """A block naming another principal than the pinned one is refused; one naming none keeps
    the pinned principal, and one naming a principal fills in an unnamed pin."""
    pinned = AccessContext("svc", contract_type={"MSA"})
    with guard_access({"principal": "mallory", "contract_type": ["MSA"]}):
        with pytest.raises(AccessError, match="differs from the pinned principal"):
            access_for(pinned, pinned=True)
        assert access_for(BOTH, pinned=True) == AccessContext("mallory", contract_type={"MSA"})
    with guard_access(MSA):
        assert access_for(pinned, pinned=True) == pinned


def test_nested_blocks_only_narrow_and_restore_the_outer_access() -> None:
    """An inner block sees what both blocks allow; leaving it restores the outer block's."""
    with guard_access(BOTH):
        with guard_access({"contract_type": ["SOW", "NDA"]}) as inner:
            assert inner == SOW
            assert current_access() == SOW
        with guard_access(None):
            assert current_access() == NO_ACCESS
        assert current_access() == BOTH


def test_a_nested_block_cannot_change_the_principal() -> None:
    """An inner block naming another principal than the outer one is refused at entry."""
    with guard_access({"principal": "alice", "contract_type": ["MSA"]}):
        with pytest.raises(AccessError, match="differs"), guard_access({"principal": "bob"}):
            pass  # pragma: no cover - entering the block raises
        assert current_access() == AccessContext("alice", contract_type={"MSA"})


def test_no_access_is_the_cores_marker() -> None:
    """The adapter's ``NO_ACCESS`` is the one object the core and every adapter share."""
    assert llama_index.NO_ACCESS is NO_ACCESS


def test_mapping_is_coerced() -> None:
    """A plain mapping becomes an AccessContext."""
    with guard_access({"contract_type": ["MSA"], "principal": "ann"}):
        assert current_access() == AccessContext("ann", contract_type={"MSA"})


def test_bad_access_fails_at_the_block() -> None:
    """A wrong type is reported when the block is created, not at check time."""
    with pytest.raises(InputError, match="access must be an AccessContext"):
        guard_access(["MSA"])


def test_block_is_used_once() -> None:
    """Re-entering an active block is refused instead of mixing up the restore tokens."""
    scope = guard_access(MSA)
    with scope, pytest.raises(AdapterConfigError, match="already active"), scope:
        pass  # pragma: no cover - the inner entry raises


def test_access_is_restored_after_an_error() -> None:
    """An exception inside the block still restores the previous access."""
    with pytest.raises(ValueError, match="boom"), guard_access(MSA):
        raise ValueError("boom")
    assert current_access() is None


async def test_async_with_block() -> None:
    """The block works as ``async with`` too."""
    async with guard_access(SOW):
        assert current_access() == SOW
    assert current_access() is None


async def test_access_follows_to_thread() -> None:
    """asyncio.to_thread copies the context, so a worker thread sees the caller's access."""
    with guard_access(MSA):
        seen = await asyncio.to_thread(current_access)
    assert seen == MSA


async def test_concurrent_tasks_do_not_leak() -> None:
    """Tasks interleaving at await points each keep their own access."""

    async def probe(access: AccessContext) -> list[AccessContext | None]:
        seen = []
        async with guard_access(access):
            for _ in range(5):
                await asyncio.sleep(0)
                seen.append(current_access())
        return seen

    msa, sow = await asyncio.gather(probe(MSA), probe(SOW))
    assert msa == [MSA] * 5
    assert sow == [SOW] * 5
    assert current_access() is None


def test_threads_do_not_leak() -> None:
    """Threads each set their own access; a copied context carries the submitter's."""

    def probe(access: AccessContext) -> AccessContext | None:
        with guard_access(access):
            return current_access()

    with ThreadPoolExecutor(max_workers=4) as pool:
        seen = list(pool.map(probe, [MSA, SOW] * 4))
        with guard_access(SOW):
            copied = pool.submit(contextvars.copy_context().run, current_access).result()
        bare = pool.submit(current_access).result()
    assert seen == [MSA, SOW] * 4
    assert copied == SOW
    assert bare is None
