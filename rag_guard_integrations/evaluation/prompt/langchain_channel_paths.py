"""The LangChain paths of ``rag-guard eval prompt`` over a retriever without pushdown, one per
channel that could carry a withheld clause out: the agent's tool run and its result, the
``with_result`` step of a user's own chain, a plain tool returning Documents, a tracer the
environment turns on through a configure hook, and redaction with a document prompt."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

from langchain_core.documents import Document
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import PromptTemplate
from langchain_core.tracers.context import register_configure_hook
from langchain_core.vectorstores import InMemoryVectorStore

from rag_guard_integrations.engine.guard import Guard
from rag_guard_integrations.evaluation.prompt.corpus import POLICY, UNFILTERED_FETCH
from rag_guard_integrations.evaluation.prompt.harness import register_path
from rag_guard_integrations.evaluation.prompt.langchain_runner import (
    Caller,
    PlainRetriever,
    agent_app,
    chain_app,
    guarded_tool,
    run_app,
    store_of,
)
from rag_guard_integrations.langchain import (
    GuardedRetriever,
    MiniLMEmbeddings,
    answer_or_refuse,
    build_rag_chain,
)
from rag_guard_integrations.langchain.chain import PROMPT
from rag_guard_integrations.langchain.testing import RecordingTracer, ToolCallingChat
from rag_guard_integrations.policy.loader import parse_policy

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

    from rag_guard_integrations.evaluation.prompt.corpus import PromptCase, PromptCorpus
    from rag_guard_integrations.evaluation.prompt.harness import Observation

HOOK_VARIABLE = "RAG_GUARD_EVAL_HOOK_TRACER"
CONTACT_KEY = "contact"


def _plain(corpus: PromptCorpus, store: InMemoryVectorStore | None = None) -> PlainRetriever:
    return PlainRetriever(store=store if store is not None else store_of(corpus))


def _fetch_k(corpus: PromptCorpus) -> int:
    return UNFILTERED_FETCH * corpus.k


@register_path("langchain_with_result")
def with_result(
    corpus: PromptCorpus, cases: Sequence[PromptCase], use_async: bool
) -> list[Observation]:
    """A user's own chain behind ``answer_or_refuse`` (its ``with_result`` step carries the
    decision between runs) over a GuardedRetriever on a retriever with no pushdown."""
    model = ToolCallingChat()
    guarded = GuardedRetriever(
        retriever=_plain(corpus), guard=corpus.guard, k=corpus.k, fetch_k=_fetch_k(corpus)
    )
    chain = answer_or_refuse(guarded, PROMPT | model | StrOutputParser())
    return run_app(corpus, cases, use_async, chain_app(chain, model))


class HookTracer(RecordingTracer):
    """A tracer LangChain makes from the environment (``HOOK_VARIABLE``) through a configure
    hook, as W&B and Comet tracers register; each one made during a case is kept."""

    def __init__(self) -> None:
        super().__init__()
        made = _MADE.get()
        if made is not None:
            made.append(self)


_MADE: ContextVar[list[HookTracer] | None] = ContextVar("rag_guard_eval_hook", default=None)
_HOOK: ContextVar[HookTracer | None] = ContextVar("rag_guard_eval_hook_tracer", default=None)
register_configure_hook(_HOOK, inheritable=True, handle_class=HookTracer, env_var=HOOK_VARIABLE)


@contextmanager
def _hook_traced() -> Iterator[list[str]]:
    """Every run the environment's tracers recorded while the block ran, as text."""
    made: list[HookTracer] = []
    token = _MADE.set(made)
    texts: list[str] = []
    try:
        yield texts
    finally:
        _MADE.reset(token)
        texts.extend(text for tracer in made for text in tracer.texts())


@contextmanager
def _environment_tracing() -> Iterator[None]:
    before = os.environ.get(HOOK_VARIABLE)
    os.environ[HOOK_VARIABLE] = "true"
    try:
        yield
    finally:
        if before is None:
            del os.environ[HOOK_VARIABLE]
        else:
            os.environ[HOOK_VARIABLE] = before


@register_path("langchain_env_tracer")
def env_tracer(
    corpus: PromptCorpus, cases: Sequence[PromptCase], use_async: bool
) -> list[Observation]:
    """``build_rag_chain`` over a retriever with no pushdown while a configure hook's
    environment variable is set, so LangChain adds a tracer to every run it configures."""
    model = ToolCallingChat()
    guarded = GuardedRetriever(
        retriever=_plain(corpus), guard=corpus.guard, k=corpus.k, fetch_k=_fetch_k(corpus)
    )
    app = chain_app(build_rag_chain(guarded, model), model, observe=_hook_traced)
    with _environment_tracing():
        return run_app(corpus, cases, use_async, app)


def secret_of(canary: str) -> str:
    """A second canary, derived from a chunk's own: its contact address holds it."""
    return f"CANARY-{hashlib.sha256(canary.encode()).hexdigest()[:8]}"


def _redacting_guard(corpus: PromptCorpus) -> Guard:
    policy = parse_policy(
        f"extends: [{json.dumps(str(POLICY))}]\n"
        "name: prompt_eval_redact\n"
        "classifiers:\n"
        "  patterns:\n"
        "    - {name: contact_email, label: contact_details,"
        " regex: '[a-z0-9._%+-]+@[a-z0-9.-]+\\.[a-z]{2,}'}\n"
        "labels: {contact_details: {description: an email address to reach a person}}\n"
        "rules:\n"
        "  - name: no_contact_details\n"
        "    action: redact\n"
        "    trigger: {all_present: [contact_details]}\n"
    )
    return Guard(policy, embedder=corpus.embedder)


if importlib.util.find_spec("langchain") is not None and importlib.util.find_spec("langgraph"):
    from langchain_core.tools import tool

    # The module-level retriever a plain tool reaches (set per run): no closure shows it.
    _EVERY_CLAUSE: list[PlainRetriever] = []

    @tool
    def all_clauses(query: str) -> list[Document]:
        """Every contract clause like the query, for anyone."""
        return _EVERY_CLAUSE[-1].invoke(query, k=UNFILTERED_FETCH)

    @tool(response_format="content_and_artifact")
    def clause_index(query: str) -> tuple[str, dict[str, Any]]:
        """An index of contract clauses like the query."""
        documents = _EVERY_CLAUSE[-1].invoke(query, k=UNFILTERED_FETCH)
        by_type: dict[str, Any] = {}
        for document in documents:
            by_type.setdefault(document.metadata["contract_type"], []).append((document,))
        return f"{len(documents)} clauses", {"by_type": by_type}

    def _agent(corpus: PromptCorpus, tools: list[Any], model: ToolCallingChat) -> Any:
        from langchain.agents import create_agent  # noqa: PLC0415

        from rag_guard_integrations.langchain import GuardMiddleware  # noqa: PLC0415

        return create_agent(
            model, tools, middleware=[GuardMiddleware(corpus.guard)], context_schema=Caller
        )

    @register_path("langchain_agent_plain")
    def agent_plain(
        corpus: PromptCorpus, cases: Sequence[PromptCase], use_async: bool
    ) -> list[Observation]:
        """``create_agent`` with the guarded tool over a retriever with no pushdown (its tool
        run ends with the decision) and ``GuardMiddleware``."""
        model = ToolCallingChat()
        tool = guarded_tool(corpus, _plain(corpus), fetch_k=_fetch_k(corpus))
        return run_app(corpus, cases, use_async, agent_app(_agent(corpus, [tool], model), model))

    @register_path("langchain_document_tool")
    def document_tool(
        corpus: PromptCorpus, cases: Sequence[PromptCase], use_async: bool
    ) -> list[Observation]:
        """``create_agent`` whose model calls, at once, a plain tool returning every clause's
        Document from a module-level retriever, a ``content_and_artifact`` tool whose artifact
        maps contract types to Documents, and the guarded tool; ``GuardMiddleware`` must
        withhold the first two."""
        model = ToolCallingChat()
        _EVERY_CLAUSE.append(_plain(corpus))
        try:
            tools = [
                all_clauses,
                clause_index,
                guarded_tool(corpus, _plain(corpus), fetch_k=_fetch_k(corpus)),
            ]
            app = agent_app(_agent(corpus, tools, model), model)
            return run_app(corpus, cases, use_async, app)
        finally:
            _EVERY_CLAUSE.pop()

    @register_path("langchain_redact_prompt")
    def redact_prompt(
        corpus: PromptCorpus, cases: Sequence[PromptCase], use_async: bool
    ) -> list[Observation]:
        """``create_agent`` with a guarded tool whose document prompt shows each clause's
        contact address, under a rule that masks email addresses: no address (each holds a
        second canary) may reach the model, a handler, a trace or the tool artifact."""
        secrets = {}
        documents = []
        for chunk in corpus.chunks:
            secret = secrets[chunk.id] = secret_of(corpus.canary_of[str(chunk.id)])
            metadata = {**chunk.metadata, CONTACT_KEY: f"{secret}@example.com"}
            documents.append(Document(chunk.text, metadata=metadata, id=chunk.id))
        store = InMemoryVectorStore(MiniLMEmbeddings(corpus.embedder))
        store.add_documents(documents)
        model = ToolCallingChat()
        tool = guarded_tool(
            corpus,
            _plain(corpus, store),
            _redacting_guard(corpus),
            fetch_k=_fetch_k(corpus),
            document_prompt=PromptTemplate.from_template("{page_content} Contact: {contact}"),
        )
        graph = _agent(corpus, [tool], model)
        app = agent_app(graph, model, also_forbidden=frozenset(secrets.values()))
        return run_app(corpus, cases, use_async, app)
