"""Notebook display: ``show(result)`` renders a GuardResult as an HTML table of decisions."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rag_guard_integrations.core.display import result_html

if TYPE_CHECKING:
    from rag_guard_integrations.core.decisions import GuardResult

__all__ = ["result_html", "show"]


def show(result: GuardResult) -> None:
    """Display ``result`` as HTML in a notebook (prints the summary elsewhere)."""
    try:
        from IPython.display import HTML, display  # noqa: PLC0415 - only inside notebooks
    except ImportError:
        print(result.summary())
        return
    display(HTML(result_html(result)))  # type: ignore[no-untyped-call]
