"""Tests for guard_access: per-request access that follows threads and tasks and never leaks."""

from __future__ import annotations

import asyncio
import contextvars
from concurrent.futures import ThreadPoolExecutor

import pytest

from rag_guard_integrations import AccessContext, InputError
from rag_guard_integrations.llama_index import guard_access
from rag_guard_integrations.llama_index.access import current_access
from rag_guard_integrations.llama_index.errors import AdapterConfigError

MSA = AccessContext(contract_type={"MSA"})
SOW = AccessContext(contract_type={"SOW"})


def test_block_sets_and_restores_access() -> None:
    """Inside the block the access applies; after it, nothing is left behind."""
    with guard_access(MSA) as entered:
        assert entered == MSA
        assert current_access() == MSA
    assert current_access() is None


def test_block_overrides_the_component_default() -> None:
    """A block's access wins over the default; without a block the default applies."""
    assert current_access(SOW) == SOW
    with guard_access(MSA):
        assert current_access(SOW) == MSA


def test_none_block_falls_back_to_the_default() -> None:
    """A block that brings no access leaves the component default in force."""
    with guard_access(MSA), guard_access(None):
        assert current_access(SOW) == SOW
        assert current_access() is None


def test_nested_blocks_restore_the_outer_access() -> None:
    """Leaving an inner block restores the outer block's access."""
    with guard_access(MSA):
        with guard_access(SOW):
            assert current_access() == SOW
        assert current_access() == MSA


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
