"""Notebook display: a GuardResult as an HTML table of decisions (``show(result)``)."""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rag_guard_integrations.core.decisions import GuardResult

_STYLE = "border-collapse:collapse;font-family:sans-serif;font-size:13px"
_CELL = "border:1px solid #ccc;padding:3px 6px;text-align:left;vertical-align:top"


def result_html(result: GuardResult, *, text_width: int = 120) -> str:
    """The query verdict, then one row per chunk: verdict, stage, reason, labels, text."""
    query = result.query
    head = (
        f"<p><b>query</b>: {'allowed' if query.allowed else 'rejected'}"
        f" (tier {escape(str(query.tier))}; intents {escape(', '.join(query.intents) or '-')})"
        f"{'' if result.refusal is None else f' &mdash; refusal: <i>{escape(result.refusal)}</i>'}"
        "</p>"
    )
    rows = []
    for d in result.decisions:
        colour = "#e8f5e9" if d.allowed else "#ffebee"
        text = d.chunk.text if len(d.chunk.text) <= text_width else d.chunk.text[:text_width] + "…"
        cells = [
            str(d.index),
            "pass" if d.allowed else "drop",
            d.stage,
            d.reason,
            ", ".join(sorted(d.labels)),
            text,
        ]
        rows.append(
            f'<tr style="background:{colour}">'
            + "".join(f'<td style="{_CELL}">{escape(c)}</td>' for c in cells)
            + "</tr>"
        )
    header = "".join(
        f'<th style="{_CELL}">{h}</th>'
        for h in ("#", "verdict", "stage", "reason", "labels", "text")
    )
    rules = "".join(
        f"<li><b>{escape(v.action)}</b> {escape(v.rule)}: {escape(v.message)} "
        f"(chunks {', '.join(map(str, v.chunk_indices))})</li>"
        for v in (*result.violations, *result.warnings)
    )
    return (
        head
        + f'<table style="{_STYLE}"><tr>{header}</tr>{"".join(rows)}</table>'
        + (f"<ul>{rules}</ul>" if rules else "")
    )


def show(result: GuardResult) -> None:
    """Display ``result`` as HTML in a notebook (prints the summary elsewhere)."""
    try:
        from IPython.display import HTML, display  # noqa: PLC0415 - only inside notebooks
    except ImportError:
        print(result.summary())
        return
    display(HTML(result_html(result)))  # type: ignore[no-untyped-call]
