"""Offline stand-ins for trying a guarded chain without a model server."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from langchain_core.language_models.chat_models import SimpleChatModel

if TYPE_CHECKING:
    from langchain_core.messages import BaseMessage


class EchoContextChat(SimpleChatModel):
    """A chat model that answers with the context its system prompt carries.

    It shows exactly what a guard let through: with the prompt of
    :func:`rag_guard_integrations.langchain.chain.build_rag_chain`, its answer is the retrieved
    context.

    Example:
        >>> chain = build_rag_chain(guarded_retriever, EchoContextChat())  # doctest: +SKIP
    """

    def _call(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> str:
        system = str(messages[0].content)
        return system.split("Context:\n", 1)[-1]

    @property
    def _llm_type(self) -> str:
        return "echo-context"
