"""LLMClassifier: labels chunks with any LangChain chat model, bounded, cached, failing closed."""

from __future__ import annotations

import asyncio
import contextlib
import threading
import weakref
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from rag_guard_integrations.classify.base import Classification, describe_error
from rag_guard_integrations.classify.llm_prompt import (
    output_schema,
    read_reply,
    system_prompt,
    user_prompt,
)
from rag_guard_integrations.classify.vocabulary import LabelsArg, VocabularyBound, label_specs
from rag_guard_integrations.core.arguments import a_type
from rag_guard_integrations.core.cache import BoundedCache, text_key
from rag_guard_integrations.core.errors import (
    ArgumentError,
    InputError,
    MissingExtraError,
    UnparseableReplyError,
)

if TYPE_CHECKING:
    from collections.abc import Hashable, Mapping, Sequence

    from langchain_core.language_models import BaseChatModel
    from langchain_core.runnables import Runnable

    from rag_guard_integrations.policy.schema import LabelSpec

INSTALL_HINT = "pip install 'rag-guard-integrations[ollama]'"
NO_VOCABULARY = "LLM classifier has no label vocabulary; pass labels= or attach it to a Guard"
CacheKey = tuple[str, str, tuple[tuple[str, str], ...]]


class LLMClassifier(VocabularyBound):
    """Labels chunks with a chat model, restricted to the policy's label vocabulary.

    The chunk goes to the model as delimited data, never as instructions; the answer is
    structured output limited to the vocabulary, and labels outside it are dropped and recorded.
    A timeout, a connection error or an unreadable answer gives the chunk ``unclassified``
    (which the built-in packs block) with the reason, instead of raising.

    Setup:
        Install the extra and pull a model into a running Ollama::

            pip install 'rag-guard-integrations[ollama]'
            ollama pull llama3.2

    Key init args:
        llm: any LangChain ``BaseChatModel``; ``with_structured_output(method="json_schema")``
            is used where the model supports it (``ChatOllama`` sends the schema as
            ``format``).
        labels: ``{label: description or LabelSpec}`` or a list of names. Without it the
            classifier takes the vocabulary of the guard's policy.
        max_concurrency: most model calls in flight at once.
        timeout: seconds allowed for one call. The sync API cannot stop a call already
            running on its thread pool, so give the model's own client a timeout as well
            (``ChatOllama(client_kwargs={"timeout": 60})``).
        retries: extra attempts after a connection error or timeout, backing off
            ``backoff * 2**n`` seconds.
        cache_size: results remembered per (text, model, vocabulary); 0 disables the cache.

    Instantiate:
        .. code-block:: python

            from langchain_ollama import ChatOllama
            from rag_guard_integrations.classify import LLMClassifier

            llm = ChatOllama(model="llama3.2", temperature=0)
            classifier = LLMClassifier(
                llm, labels={"financial": "revenue, prices, salaries, account balances"}
            )

    Usage:
        .. code-block:: python

            result = classifier.classify("Q3 revenue was $4.2M; Alice earns $180k.")
            result.labels    # frozenset({'financial'})
            result.error     # None, or why the chunk is 'unclassified'
            results = await classifier.aclassify_many(texts)

    Use within a guard:
        .. code-block:: python

            from rag_guard_integrations import Guard

            guard = Guard.from_policy("default", classifier=LLMClassifier(llm))
            result = guard.check("What does Acme pay its staff?", chunks)
    """

    def __init__(
        self,
        llm: BaseChatModel,
        labels: LabelsArg | None = None,
        *,
        max_concurrency: int = 8,
        timeout: float = 30.0,
        retries: int = 2,
        backoff: float = 0.5,
        cache_size: int = 10_000,
    ) -> None:
        try:
            from langchain_core.language_models import BaseChatModel  # noqa: PLC0415 - optional
        except ImportError:
            raise MissingExtraError(
                f"LLMClassifier needs langchain-core; run {INSTALL_HINT}"
            ) from None
        if not isinstance(llm, BaseChatModel):
            raise InputError(
                f"llm is {a_type(llm)}; pass a LangChain chat model such as "
                "ChatOllama(model='llama3.2')"
            )
        _check_positive(max_concurrency=max_concurrency, timeout=timeout)
        _check_not_negative(retries=retries, backoff=backoff)
        self.llm = llm
        self.max_concurrency = int(max_concurrency)
        self.timeout = float(timeout)
        self.retries = int(retries)
        self.backoff = float(backoff)
        self._explicit = labels is not None
        self._model_id = _model_identity(llm)
        # Shared with bound copies: the vocabulary is part of every key.
        self._cache: BoundedCache[Hashable, Classification] = BoundedCache(cache_size)
        self._pending: dict[CacheKey, asyncio.Task[Classification]] = {}
        self._semaphores: weakref.WeakKeyDictionary[
            asyncio.AbstractEventLoop, asyncio.Semaphore
        ] = weakref.WeakKeyDictionary()
        self._lock = threading.Lock()
        self._threads = ThreadPoolExecutor(self.max_concurrency, thread_name_prefix="rag-guard-llm")
        self._async_home: list[weakref.ref[asyncio.AbstractEventLoop]] = []
        self._use(label_specs(labels))

    @property
    def labels(self) -> Mapping[str, LabelSpec] | None:
        """The vocabulary offered to the model (None until given or bound)."""
        return self._labels

    def classify_many(self, texts: Sequence[str]) -> list[Classification]:
        """Label texts concurrently from synchronous code, in input order.

        Runs the async path in a fresh event loop (in a helper thread when this thread already
        runs one). Model calls use the model's synchronous client on a bounded thread pool:
        an async HTTP client is tied to the loop that first used it, and this loop is gone
        after the call.
        """
        batch = list(texts)

        def run() -> list[Classification]:
            return asyncio.run(self._classify_all(batch, threaded=True))

        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return run()
        with ThreadPoolExecutor(max_workers=1) as helper:
            return helper.submit(run).result()

    async def aclassify_many(self, texts: Sequence[str]) -> list[Classification]:
        """Label texts concurrently (at most ``max_concurrency`` calls in flight), in order."""
        return await self._classify_all(list(texts), threaded=False)

    def __repr__(self) -> str:
        labels = None if self._labels is None else sorted(self._labels)
        return f"LLMClassifier(model={self._model_id!r}, labels={labels!r})"

    def _use(self, labels: dict[str, LabelSpec] | None) -> None:
        self._labels = labels
        self._vocabulary_key = tuple(
            sorted((name, spec.description) for name, spec in (labels or {}).items())
        )
        self._system = system_prompt(labels or {})
        model = _unheard(self.llm)
        self._runnable: Runnable[Any, Any] = model
        if labels:
            # without structured output the prompt still asks for the same JSON
            with contextlib.suppress(NotImplementedError, ValueError, TypeError):
                self._runnable = model.with_structured_output(
                    output_schema(labels), method="json_schema", include_raw=True
                )

    async def _classify_all(self, texts: list[str], threaded: bool) -> list[Classification]:
        if self._labels is None:
            return [Classification.failed(NO_VOCABULARY) for _ in texts]
        if not self._labels:
            return [Classification(frozenset()) for _ in texts]
        keys = [(text_key(text), self._model_id, self._vocabulary_key) for text in texts]
        unique = dict(zip(keys, texts, strict=True))
        results = await asyncio.gather(
            *(self._classify_shared(key, text, threaded) for key, text in unique.items())
        )
        by_key = dict(zip(unique, results, strict=True))
        return [by_key[key] for key in keys]

    async def _classify_shared(self, key: CacheKey, text: str, threaded: bool) -> Classification:
        """One model call per key: a cached result, or the call already running on this loop."""
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        loop = asyncio.get_running_loop()
        with self._lock:
            task = self._pending.get(key)
            if task is None or task.done() or task.get_loop() is not loop:
                task = loop.create_task(self._classify_and_cache(key, text, threaded))
                self._pending[key] = task
                task.add_done_callback(lambda done: self._forget(key, done))
        # shield: a caller that gives up must not cancel the call others are waiting on
        return await asyncio.shield(task)

    def _forget(self, key: CacheKey, task: asyncio.Task[Classification]) -> None:
        with self._lock:
            if self._pending.get(key) is task:
                del self._pending[key]

    async def _classify_and_cache(self, key: CacheKey, text: str, threaded: bool) -> Classification:
        result = await self._ask(text, threaded)
        if result.error is None:  # failures are retried on the next pass, not remembered
            self._cache.put(key, result)
        return result

    async def _ask(self, text: str, threaded: bool) -> Classification:
        messages = [("system", self._system), ("human", user_prompt(text))]
        attempts = self.retries + 1
        problem = ""
        for attempt in range(attempts):
            if attempt:
                await asyncio.sleep(self.backoff * 2 ** (attempt - 1))
            try:
                async with self._semaphore():
                    reply = await asyncio.wait_for(self._call(messages, threaded), self.timeout)
                return read_reply(reply, text, self._labels or {})
            except asyncio.TimeoutError:
                problem = f"timed out after {self.timeout:g}s"
            except UnparseableReplyError as error:
                return Classification.failed(f"{self._model_id}: unparseable output: {error}")
            except Exception as error:  # any model failure fails closed
                if not _is_connection_error(error):
                    return Classification.failed(f"{self._model_id}: {describe_error(error)}")
                problem = f"connection error: {describe_error(error)}"
        tries = f"{attempts} attempt{'s' if attempts > 1 else ''}"
        return Classification.failed(f"{self._model_id}: {problem} ({tries})")

    async def _call(self, messages: list[tuple[str, str]], threaded: bool) -> Any:
        if threaded or not self._owns_async_client():
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(self._threads, self._invoke, messages)
        from rag_guard_integrations.classify.langchain_quiet import unobserved  # noqa: PLC0415

        with unobserved():  # the chunk is undecided: no handler or tracer may see the call
            return await self._runnable.ainvoke(messages)

    def _invoke(self, messages: list[tuple[str, str]]) -> Any:
        from rag_guard_integrations.classify.langchain_quiet import unobserved  # noqa: PLC0415

        try:
            with unobserved():  # the chunk is undecided: no handler or tracer may see the call
                return self._runnable.invoke(messages)
        except StopIteration:  # a Future cannot carry it: the call would hang until the timeout
            raise RuntimeError("the model raised StopIteration") from None

    def _owns_async_client(self) -> bool:
        """True on the first event loop that used the model's async API. HTTP clients such as
        ChatOllama's keep connections bound to that loop; on any other loop the sync client
        (on the thread pool) is used, or every call there would fail with a closed loop."""
        loop = asyncio.get_running_loop()
        with self._lock:
            if not self._async_home:
                self._async_home.append(weakref.ref(loop))
            return self._async_home[0]() is loop

    def _semaphore(self) -> asyncio.Semaphore:
        loop = asyncio.get_running_loop()
        with self._lock:
            semaphore = self._semaphores.get(loop)
            if semaphore is None:
                semaphore = self._semaphores[loop] = asyncio.Semaphore(self.max_concurrency)
            return semaphore


def _unheard(llm: BaseChatModel) -> BaseChatModel:
    """A copy of ``llm`` that no handler attached to the model hears (``callbacks=``,
    ``verbose``) and that neither reads nor writes an LLM cache (``set_llm_cache``): the
    chunks it labels are undecided, and a cache key holds the prompt. The copy shares the
    model's client."""
    return llm.model_copy(
        update={"callbacks": None, "callback_manager": None, "verbose": False, "cache": False}
    )


def _model_identity(llm: Any) -> str:
    """Class, model name and endpoint: what makes two models answer differently."""
    names = (getattr(llm, attr, None) for attr in ("model", "model_name", "model_id"))
    name = next((str(value) for value in names if value), "?")
    where = getattr(llm, "base_url", None)
    return f"{type(llm).__name__}:{name}" + (f"@{where}" if where else "")


def _is_connection_error(error: BaseException) -> bool:
    if isinstance(error, ConnectionError | TimeoutError):
        return True
    try:
        import httpx  # noqa: PLC0415 - only there when an HTTP-based model is
    except ImportError:
        return False
    return isinstance(error, httpx.TransportError)


def _check_positive(**values: float) -> None:
    for name, value in values.items():
        if not value > 0:
            raise ArgumentError(f"{name}={value!r} must be greater than 0")


def _check_not_negative(**values: float) -> None:
    for name, value in values.items():
        if value < 0:
            raise ArgumentError(f"{name}={value!r} must be 0 or more")
