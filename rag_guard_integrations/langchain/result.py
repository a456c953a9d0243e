"""CheckedResult: a request's GuardResult as it may travel through a chain, where callback
handlers, ``astream_events`` and LangSmith serialise every output."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rag_guard_integrations.langchain.audit import decision_outputs

if TYPE_CHECKING:
    from rag_guard_integrations.core.decisions import GuardResult


class CheckedResult:
    """A GuardResult whose ``repr`` and serialised forms are the decision summary only.

    A GuardResult holds the denied chunks themselves; a chain output carrying it would show
    their text to every handler and trace. ``result`` is the full GuardResult, for code that
    needs it (keep it out of logs and events); ``refusal`` and :meth:`to_dict` are safe to show.

    Example:
        >>> out = retriever.with_result().invoke(query, config=config)  # doctest: +SKIP
        >>> out["result"].refusal  # doctest: +SKIP
        'No authorized matching clause found.'
    """

    __slots__ = ("_result",)

    def __init__(self, result: GuardResult) -> None:
        self._result = result

    @property
    def result(self) -> GuardResult:
        """The full GuardResult (it holds the text of denied chunks)."""
        return self._result

    @property
    def refusal(self) -> str | None:
        """The text to answer with instead of an answer, or None."""
        return self._result.refusal

    def to_dict(self) -> dict[str, Any]:
        """The decision summary: counts, refusal and per-chunk id, stage, rule and reason."""
        return decision_outputs(self._result, self._result.summary())

    def __repr__(self) -> str:
        return f"CheckedResult({self._result.summary()!r})"
