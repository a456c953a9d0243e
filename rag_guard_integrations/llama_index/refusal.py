"""The refusal as a LlamaIndex answer: a response (plain, streaming or async streaming) and a
stand-in response synthesizer that answers with it, so no LLM is called when nothing passed."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from llama_index.core.base.response.schema import (
    AsyncStreamingResponse,
    Response,
    StreamingResponse,
)

if TYPE_CHECKING:
    from collections.abc import AsyncGenerator, Generator

    from llama_index.core.base.response.schema import RESPONSE_TYPE


def refusal_response(
    text: str, *, streaming: bool = False, is_async: bool = False
) -> RESPONSE_TYPE:
    """``text`` in the response shape the caller expects (streamed in one token when asked)."""
    if not streaming:
        return Response(text)
    if is_async:
        return AsyncStreamingResponse(response_gen=_aonce(text))
    return StreamingResponse(response_gen=_once(text))


class RefusalSynthesizer:
    """Answers every ``synthesize``/``asynthesize`` with the refusal; used by the chat engines
    in place of their LLM-backed synthesizer for a turn where nothing may reach the LLM."""

    def __init__(self, text: str, streaming: bool) -> None:
        self.text = text
        self.streaming = streaming

    def synthesize(self, query: Any, nodes: Any, **kwargs: Any) -> RESPONSE_TYPE:
        """The refusal (the nodes are ignored: none of them may be used)."""
        return refusal_response(self.text, streaming=self.streaming)

    async def asynthesize(self, query: Any, nodes: Any, **kwargs: Any) -> RESPONSE_TYPE:
        """Async twin of :meth:`synthesize`."""
        return refusal_response(self.text, streaming=self.streaming, is_async=True)


def _once(text: str) -> Generator[str, None, None]:
    yield text


async def _aonce(text: str) -> AsyncGenerator[str, None]:
    yield text
