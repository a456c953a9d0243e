"""GuardedCheckpointer: a LangGraph checkpointer that will not load a thread for a request
that may not use it, so a refused run never starts and streams nothing of the thread."""

from __future__ import annotations

import logging
from functools import partial
from typing import TYPE_CHECKING, Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from typing_extensions import override

from rag_guard_integrations.adapters.drive import Call, arun, run
from rag_guard_integrations.adapters.recheck import fresh
from rag_guard_integrations.core.errors import AccessError
from rag_guard_integrations.langchain.memory import (
    HELD,
    PRINCIPAL,
    SHOWN,
    bound_to,
    keeps_binding,
    refusal,
    withdrawn_since,
)

if TYPE_CHECKING:
    import builtins
    from collections.abc import AsyncIterator, Collection, Iterator, Mapping, Sequence

    from langchain_core.runnables import RunnableConfig
    from langgraph.checkpoint.base import (
        ChannelVersions,
        Checkpoint,
        CheckpointMetadata,
        CheckpointTuple,
        DeltaChannelHistory,
    )

    from rag_guard_integrations.adapters.drive import Flow
    from rag_guard_integrations.langchain.middleware import GuardMiddleware

logger = logging.getLogger("rag_guard_integrations")
# The state keys a write may only add to: the notes and the binding.
_RECORD = frozenset({SHOWN, PRINCIPAL, HELD})


class GuardedCheckpointer(BaseCheckpointSaver[Any]):
    """A checkpointer that loads a thread :class:`GuardMiddleware` has bound only for a request
    that may use it: the thread's principal, with an access that covers the widest one the
    thread has held, whose access source (if the guard has one) still grants every chunk the
    thread's guarded tool results hold (:mod:`~rag_guard_integrations.langchain.memory`).
    Any other request gets
    an ``AccessError`` (logged as a WARNING) when LangGraph loads the thread, before the run
    writes its input or streams anything: no state, debug, checkpoint, task or event stream
    shows the thread, and nothing the refused input would remove is removed.

    The request's access is read as ``GuardMiddleware`` reads it (``runtime.context``, else
    ``config["configurable"]["access"]``, else the middleware's ``access``). Reading a bound
    thread outside a run (``agent.get_state(config)``, ``get_state_history``) needs that
    access in the config too; the wrapped ``saver`` reads anything, for operators. A write
    that would remove a note or replace or narrow the binding is refused; deleting, copying
    and pruning pass straight to ``saver``.

    Without this wrapper the middleware still refuses such a request, but only inside the run,
    after LangGraph has loaded the thread.

    Setup:
        ```bash
        pip install -U "rag-guard-integrations[agents]"
        ```

    Key init args:
        saver: BaseCheckpointSaver
            The checkpointer that stores the threads (``InMemorySaver``, a Postgres saver...).
        middleware: GuardMiddleware
            The middleware of the agent, which binds threads and resolves access.

    Instantiate:
        ```python
        from langchain.agents import create_agent
        from langgraph.checkpoint.memory import InMemorySaver
        from rag_guard_integrations.langchain import GuardedCheckpointer, GuardMiddleware

        middleware = GuardMiddleware(guard)
        agent = create_agent(
            model, [tool], middleware=[middleware],
            checkpointer=GuardedCheckpointer(InMemorySaver(), middleware),
        )
        ```

    Usage:
        ```python
        alice = {"thread_id": "t1", "access": {"principal": "alice", "contract_type": ["MSA"]}}
        agent.invoke(question, config={"configurable": alice})
        bob = {"thread_id": "t1", "access": {"principal": "bob", "contract_type": ["SOW"]}}
        for chunk in agent.stream(question, {"configurable": bob}, stream_mode="values"):
            ...  # never reached: AccessError before the first chunk
        ```
    """

    def __init__(self, saver: BaseCheckpointSaver[Any], middleware: GuardMiddleware) -> None:
        super().__init__(serde=saver.serde)
        self.saver = saver
        self.middleware = middleware
        self._held: dict[str, list[dict[str, Any]]] = {}

    def hold(self, task_id: str, notes: list[dict[str, Any]]) -> None:
        """Keep ``notes`` of a tool call that ended in an interrupt or an error until the
        writes of its task ``task_id`` are stored: they are stored beside them (under a task
        id of their own, which LangGraph applies to no task), where a load finds them."""
        self._held.setdefault(task_id, []).extend(notes)

    def vetted(
        self, config: RunnableConfig | None, saved: CheckpointTuple, head: CheckpointTuple | None
    ) -> CheckpointTuple:
        """``saved``, loaded for the request whose config is ``config``; ``AccessError`` when
        its thread is bound (in ``saved``, else in ``head``, the thread's latest checkpoint)
        and that request may not use it."""
        bound = binding(saved) or binding(head)
        if bound is None:
            return saved  # no request has bound this thread
        thread = str((saved.config.get("configurable") or {}).get("thread_id"))
        access = self.middleware.run_access(config or {})
        why = refusal(thread, access, *bound)
        if why is None:
            notes = [*notes_in(saved), *(() if head is None else notes_in(head))]
            why = withdrawn_since(self.middleware.source, thread, access, notes)
        if why is not None:
            logger.warning("rag_guard refused to load the thread: %s", why)
            raise AccessError(why)
        return saved

    @override
    def get_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        return run(self._load(config))

    @override
    async def aget_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        return await arun(self._load(config))

    @override
    def list(
        self,
        config: RunnableConfig | None,
        *,
        filter: dict[str, Any] | None = None,
        before: RunnableConfig | None = None,
        limit: int | None = None,
    ) -> Iterator[CheckpointTuple]:
        heads: dict[str, CheckpointTuple | None] = {}
        for saved in self.saver.list(config, filter=filter, before=before, limit=limit):
            yield run(self._listed(config, saved, heads))

    @override
    async def alist(
        self,
        config: RunnableConfig | None,
        *,
        filter: dict[str, Any] | None = None,
        before: RunnableConfig | None = None,
        limit: int | None = None,
    ) -> AsyncIterator[CheckpointTuple]:
        heads: dict[str, CheckpointTuple | None] = {}
        async for saved in self.saver.alist(config, filter=filter, before=before, limit=limit):
            yield await arun(self._listed(config, saved, heads))

    def _read(self, config: RunnableConfig) -> Call[CheckpointTuple | None]:
        return Call(partial(self.saver.get_tuple, config), partial(self.saver.aget_tuple, config))

    def _load(self, config: RunnableConfig) -> Flow[CheckpointTuple | None]:
        """A load of ``config``, for both drivers: vetted by itself when it holds the
        binding, else by the thread's latest checkpoint when it is an earlier one."""
        saved = yield self._read(config)
        if saved is not None and binding(saved):
            return self.vetted(config, saved, None)
        head = (yield self._read(head_of(config))) if needs_head(config) else None
        if saved is None:
            # Not found is vetted too: a run from a checkpoint id the thread lacks would
            # otherwise start afresh and write over the thread's head.
            if head is not None:
                self.vetted(config, head, None)
            return None
        return self.vetted(config, saved, head)

    def _listed(
        self,
        config: RunnableConfig | None,
        saved: CheckpointTuple,
        heads: dict[str, CheckpointTuple | None],
    ) -> Flow[CheckpointTuple]:
        """One checkpoint of a listing, vetted; each thread's latest read once."""
        thread = head_of(saved.config)
        key = str(thread["configurable"]["thread_id"])
        if not binding(saved) and key not in heads:
            heads[key] = yield self._read(thread)
        return self.vetted(config, saved, heads.get(key))

    @override
    def get_delta_channel_history(
        self, *, config: RunnableConfig, channels: Sequence[str]
    ) -> Mapping[str, DeltaChannelHistory]:
        self.get_tuple(config)
        return self.saver.get_delta_channel_history(config=config, channels=channels)

    @override
    async def aget_delta_channel_history(
        self, *, config: RunnableConfig, channels: Sequence[str]
    ) -> Mapping[str, DeltaChannelHistory]:
        await self.aget_tuple(config)
        return await self.saver.aget_delta_channel_history(config=config, channels=channels)

    @override
    def put(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        return run(self._put(config, checkpoint, metadata, new_versions))

    @override
    async def aput(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        return await arun(self._put(config, checkpoint, metadata, new_versions))

    def _put(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> Flow[RunnableConfig]:
        """A write, for both drivers: refused when it would drop a note or loosen the
        binding (:func:`kept_record`)."""
        if not _RECORD.isdisjoint(new_versions):
            kept_record((yield self._read(config)), checkpoint)
        args = (config, checkpoint, metadata, new_versions)
        written: RunnableConfig = yield Call(
            partial(self.saver.put, *args), partial(self.saver.aput, *args)
        )
        return written

    @override
    def put_writes(
        self,
        config: RunnableConfig,
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        run(self._put_writes(config, writes, task_id, task_path))

    @override
    async def aput_writes(
        self,
        config: RunnableConfig,
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        await arun(self._put_writes(config, writes, task_id, task_path))

    def _put_writes(
        self, config: RunnableConfig, writes: Sequence[tuple[str, Any]], task_id: str, path: str
    ) -> Flow[None]:
        """A task's writes, for both drivers, and the notes held for it (:meth:`hold`)."""
        held = self._held.pop(task_id, None)
        aside = () if not held else ((f"{task_id}:{SHOWN}", [(SHOWN, held)]),)
        for task, stored in ((task_id, writes), *aside):
            args = (config, stored, task, path)
            sync, asynchronous = self.saver.put_writes, self.saver.aput_writes
            yield Call(partial(sync, *args), partial(asynchronous, *args))

    @override
    def delete_thread(self, thread_id: str) -> None:
        self.saver.delete_thread(thread_id)

    @override
    async def adelete_thread(self, thread_id: str) -> None:
        await self.saver.adelete_thread(thread_id)

    @override
    def delete_for_runs(self, run_ids: Sequence[str]) -> None:
        self.saver.delete_for_runs(run_ids)

    @override
    async def adelete_for_runs(self, run_ids: Sequence[str]) -> None:
        await self.saver.adelete_for_runs(run_ids)

    @override
    def copy_thread(self, source_thread_id: str, target_thread_id: str) -> None:
        self.saver.copy_thread(source_thread_id, target_thread_id)

    @override
    async def acopy_thread(self, source_thread_id: str, target_thread_id: str) -> None:
        await self.saver.acopy_thread(source_thread_id, target_thread_id)

    @override
    def prune(self, thread_ids: Sequence[str], *, strategy: str = "keep_latest") -> None:
        self.saver.prune(thread_ids, strategy=strategy)

    @override
    async def aprune(self, thread_ids: Sequence[str], *, strategy: str = "keep_latest") -> None:
        await self.saver.aprune(thread_ids, strategy=strategy)

    @override
    def get_next_version(self, current: Any, channel: None) -> Any:
        return self.saver.get_next_version(current, channel)

    @property
    @override
    def config_specs(self) -> builtins.list[Any]:  # list: a method of this class
        return self.saver.config_specs

    @override
    def with_allowlist(self, extra_allowlist: Collection[tuple[str, ...]]) -> GuardedCheckpointer:
        saver = self.saver.with_allowlist(extra_allowlist)
        return self if saver is self.saver else GuardedCheckpointer(saver, self.middleware)


def binding(saved: CheckpointTuple | None) -> tuple[str | None, str | None] | None:
    """The binding a checkpoint holds (:func:`~.memory.bound_to`), or None."""
    return None if saved is None else bound_to(saved.checkpoint.get("channel_values") or {})


def head_of(config: RunnableConfig) -> RunnableConfig:
    """The config of the latest checkpoint of the thread ``config`` names, in the agent's
    own namespace: an earlier checkpoint, or a subgraph's, holds no binding of its own."""
    return {"configurable": {"thread_id": config["configurable"]["thread_id"]}}


def needs_head(config: RunnableConfig) -> bool:
    """Whether a load of ``config`` that found no binding (or nothing) must be vetted by its
    thread's latest checkpoint: when it asked for an earlier checkpoint or a subgraph's. Not
    when it asked for the latest, which it then is (nothing found: a new thread)."""
    configurable = config.get("configurable") or {}
    asked = configurable.get("checkpoint_id") or configurable.get("checkpoint_ns")
    return "thread_id" in configurable and bool(asked)


def notes_in(saved: CheckpointTuple) -> list[Any]:
    """The thread's notes of what it was shown, in ``saved`` and in the writes pending on it
    (a step's tool results not yet folded into a checkpoint)."""
    values = saved.checkpoint.get("channel_values") or {}
    notes = list(values.get(SHOWN) or ())
    for _, channel, value in saved.pending_writes or ():
        if channel == SHOWN and isinstance(value, list):
            notes.extend(value)
    return notes


def kept_record(parent: CheckpointTuple | None, checkpoint: Checkpoint) -> None:
    """Raise :class:`AccessError` when ``checkpoint`` would drop a note its ``parent`` holds,
    or loosen its binding (another principal, a narrower or no held access): an input
    ``Command``, ``update_state`` or a tool writing them. The notes are the thread's record
    of what it was shown, only ever added to; the binding only ever widens."""
    if parent is None:
        return
    before = parent.checkpoint.get("channel_values") or {}
    after = checkpoint.get("channel_values") or {}
    if fresh(before.get(SHOWN) or (), after.get(SHOWN) or ()):
        why = "a thread's notes of what it was shown cannot be removed or replaced"
    elif not keeps_binding(before, after):
        why = "a thread's principal and held access cannot be replaced or narrowed"
    else:
        return
    logger.warning("rag_guard refused to write the thread: %s", why)
    raise AccessError(why)
