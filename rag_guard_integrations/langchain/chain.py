"""build_rag_chain: the smallest guarded RAG chain (retrieve, format, prompt, model, parse) that
answers with the guard's own refusal when nothing may pass."""

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
    from collections.abc import Sequence

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
    """A question-in, answer-out chain: ``retriever | format_docs | PROMPT | llm | parser``.

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
    fallback = refusal if refusal is not None else policy_refusal(retriever)
    retrieve: Runnable[str, dict[str, Any]] = (
        retriever.with_result()
        if isinstance(retriever, GuardedRetriever)
        else retriever | RunnableLambda(lambda docs: {"documents": docs, "result": None})
    )

    def prepare(inputs: dict[str, Any]) -> dict[str, Any]:
        documents, result = inputs["retrieved"]["documents"], inputs["retrieved"]["result"]
        if documents:
            return {"context": format_docs(documents), "question": inputs["question"]}
        own = None if result is None or refusal is not None else result.refusal
        return {"refusal": own or fallback, "question": inputs["question"]}

    answer: Runnable[dict[str, Any], str] = PROMPT | llm | StrOutputParser()
    branch: Runnable[dict[str, Any], str] = RunnableBranch(
        (RunnableLambda(lambda inputs: "refusal" in inputs), RunnableLambda(_refusal_of)), answer
    )
    gathered = RunnableParallel(retrieved=retrieve, question=RunnablePassthrough())
    prepared = RunnableLambda(prepare).with_config(run_name="format_docs")
    return (gathered | prepared | branch).with_config(run_name="guarded_rag")


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
