"""build_rag_chain: the smallest guarded RAG chain (retrieve, format, prompt, model, parse)."""

from __future__ import annotations

from operator import itemgetter
from typing import TYPE_CHECKING, Any

from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import (
    RunnableBranch,
    RunnableLambda,
    RunnableParallel,
    RunnablePassthrough,
)

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


def build_rag_chain(
    retriever: BaseRetriever, llm: BaseLanguageModel[Any], *, refusal: str | None = None
) -> Runnable[str, str]:
    """A question-in, answer-out chain: ``retriever | format_docs | PROMPT | llm | parser``.

    When the retriever returns nothing (the guard let no chunk through), the format step yields
    the refusal, which is the answer: the model is not asked to answer without context.
    ``refusal`` defaults to the guard policy's ``no_context_refusal`` (found on a
    ``GuardedRetriever`` or on a compression retriever's ``GuardCompressor``).

    Example:
        >>> chain = build_rag_chain(guarded_retriever, llm)  # doctest: +SKIP
        >>> sow = {"configurable": {"access": {"contract_type": ["SOW"]}}}
        >>> chain.invoke("What is the termination notice period?", config=sow)  # doctest: +SKIP
        "Either party may terminate this Statement of Work ... 45 days' written notice. ..."
    """
    text = refusal if refusal is not None else policy_refusal(retriever)

    def format_docs(documents: Sequence[Document]) -> str:
        return "\n\n".join(d.page_content for d in documents) if documents else text

    def refused(inputs: dict[str, str]) -> bool:
        return inputs["context"] == text

    answer: Runnable[dict[str, str], str] = PROMPT | llm | StrOutputParser()
    retrieve = RunnableParallel(
        context=retriever | RunnableLambda(format_docs).with_config(run_name="format_docs"),
        question=RunnablePassthrough(),
    )
    branch: Runnable[dict[str, str], str] = RunnableBranch(
        (RunnableLambda(refused), itemgetter("context")), answer
    )
    return (retrieve | branch).with_config(run_name="guarded_rag")


def policy_refusal(retriever: BaseRetriever) -> str:
    """The ``no_context_refusal`` of the guard behind ``retriever`` (else the policy default)."""
    for holder in (retriever, getattr(retriever, "base_compressor", None)):
        guard = getattr(holder, "guard", None)
        policy = getattr(guard, "policy", None)
        if isinstance(policy, Policy):
            return policy.no_context_refusal
    return Policy().no_context_refusal
