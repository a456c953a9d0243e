"""build_rag_chain, the smallest guarded RAG chain (retrieve, format, prompt, model, parse), and
answer_or_refuse, the step that puts any chain of yours behind the guard's refusal: when nothing
may pass, the answer is the refusal and the model is not called."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import (
    RunnableBranch,
    RunnableLambda,
    RunnableParallel,
    RunnablePassthrough,
)

from rag_guard_integrations.langchain.retriever import GuardedRetriever
from rag_guard_integrations.policy.schema import Policy

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from langchain_core.documents import Document
    from langchain_core.language_models import BaseLanguageModel
    from langchain_core.retrievers import BaseRetriever
    from langchain_core.runnables import Runnable

PROMPT = ChatPromptTemplate.from_messages(
    [
        (
            "system",
            "Answer the question using only the context below. If the context does not "
            "answer it, say that you cannot tell.\n\nContext:\n{context}",
        ),
        ("human", "{question}"),
    ]
)


def format_docs(documents: Sequence[Document]) -> str:
    """The documents' texts, one paragraph each: the ``{context}`` of :data:`PROMPT`."""
    return "\n\n".join(d.page_content for d in documents)


def build_rag_chain(
    retriever: BaseRetriever, llm: BaseLanguageModel[Any], *, refusal: str | None = None
) -> Runnable[str, str]:
    """A question-in, answer-out chain: ``retriever | format_docs | PROMPT | llm | parser``,
    made with :func:`answer_or_refuse`.

    When the guard lets nothing through, the answer is its refusal and the model is not asked:
    over a :class:`GuardedRetriever` the request's own ``GuardResult.refusal`` (the domain
    refusal for a rejected query, else the policy's ``no_context_refusal``); over another
    retriever (a compression retriever with a ``GuardCompressor``) the policy's
    ``no_context_refusal``. ``refusal`` replaces either text.

    Example:
        >>> chain = build_rag_chain(guarded_retriever, llm)  # doctest: +SKIP
        >>> sow = {"configurable": {"access": {"contract_type": ["SOW"]}}}
        >>> chain.invoke("What is the termination notice period?", config=sow)  # doctest: +SKIP
        "Either party may terminate this Statement of Work ... 45 days' written notice. ..."
    """
    answer: Runnable[dict[str, Any], str] = PROMPT | llm | StrOutputParser()
    chain = answer_or_refuse(retriever, answer, refusal=refusal)
    return chain.with_config(run_name="guarded_rag")


def answer_or_refuse(
    retriever: BaseRetriever,
    answer: Runnable[dict[str, Any], Any],
    *,
    refusal: str | None = None,
    format: Callable[[Sequence[Document]], str] = format_docs,
) -> Runnable[str, Any]:
    """Your own RAG chain behind the guard's refusal: a question goes to ``retriever``; when
    documents pass, ``answer`` gets ``{"question", "documents", "context"}`` (``context`` is
    ``format(documents)``); when none may pass, the refusal is the answer and ``answer`` (your
    prompt and model) never runs, so the model is not asked to answer from an empty context.

    The refusal is as for :func:`build_rag_chain`: the request's own (a rejected query gets
    the domain refusal), else the policy's ``no_context_refusal``; ``refusal`` replaces it.
    It is a string: end ``answer`` with an output parser so both answers have one type.

    Example:
        >>> prompt = ChatPromptTemplate.from_messages(  # doctest: +SKIP
        ...     [("system", "Context:\\n{context}"), ("human", "{question}")])
        >>> answer = prompt | llm | StrOutputParser()  # doctest: +SKIP
        >>> rag = answer_or_refuse(guarded_retriever, answer)  # doctest: +SKIP
        >>> rag.invoke("What is the notice period?")  # doctest: +SKIP
        'No authorized matching clause found.'
    """
    fallback = refusal if refusal is not None else policy_refusal(retriever)
    retrieve: Runnable[str, dict[str, Any]] = (
        retriever.with_result()
        if isinstance(retriever, GuardedRetriever)
        else retriever | RunnableLambda(lambda docs: {"documents": docs, "result": None})
    )

    def prepare(inputs: dict[str, Any]) -> dict[str, Any]:
        documents, result = inputs["retrieved"]["documents"], inputs["retrieved"]["result"]
        question = inputs["question"]
        if documents:
            return {"question": question, "documents": documents, "context": format(documents)}
        own = None if result is None or refusal is not None else result.refusal
        return {"refusal": own or fallback, "question": question}

    branch: Runnable[dict[str, Any], Any] = RunnableBranch(
        (RunnableLambda(lambda inputs: "refusal" in inputs), RunnableLambda(_refusal_of)), answer
    )
    gathered = RunnableParallel(retrieved=retrieve, question=RunnablePassthrough())
    prepared = RunnableLambda(prepare).with_config(run_name="format_docs")
    return (gathered | prepared | branch).with_config(run_name="answer_or_refuse")


def policy_refusal(retriever: BaseRetriever) -> str:
    """The ``no_context_refusal`` of the guard behind ``retriever`` (else the policy default)."""
    for holder in (retriever, getattr(retriever, "base_compressor", None)):
        guard = getattr(holder, "guard", None)
        policy = getattr(guard, "policy", None)
        if isinstance(policy, Policy):
            return policy.no_context_refusal
    return Policy().no_context_refusal


def _refusal_of(inputs: dict[str, Any]) -> str:
    text: str = inputs["refusal"]
    return text
