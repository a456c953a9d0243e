"""A GuardResult as HTML: the query verdict, a table of decisions, the rules that fired."""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

from rag_guard_integrations.core.printable import printable

if TYPE_CHECKING:
    from rag_guard_integrations.core.decisions import ChunkDecision, GuardResult

_STYLE = "border-collapse:collapse;font-family:sans-serif;font-size:13px;color:#111"
_CELL = "border:1px solid #ccc;padding:3px 6px;text-align:left;vertical-align:top"
_HEADERS = ("#", "id", "score", "verdict", "stage", "reason", "labels", "text")


def escape(text: str) -> str:
    r"""``text`` as HTML: white space squeezed to single spaces (as HTML shows it), other
    control and bidi characters as escapes (they would reorder or hide what a cell shows).

    Example:
        >>> escape("a <b>\n\u202eexe")
        'a &lt;b&gt; \\u202eexe'
    """
    return html.escape(printable(" ".join(text.split())))


def result_html(result: GuardResult, *, text_width: int = 120) -> str:
    """The query verdict and counts, one row per chunk, then the rules that fired."""
    return _heading(result) + _table(result, text_width) + _rules(result)


def _heading(result: GuardResult) -> str:
    query = result.query
    tier = "no domain guard" if query.tier is None else f"tier {query.tier}"
    denied = ", ".join(f"{stage} {n}" for stage, n in result.summary()["denied_by_stage"].items())
    refusal = "" if result.refusal is None else f"; refusal: <i>{escape(result.refusal)}</i>"
    return (
        f"<p><b>query</b> {'allowed' if query.allowed else 'rejected'} ({escape(tier)}; "
        f"intents {escape(', '.join(query.intents) or '-')}) &mdash; "
        f"{len(result.allowed_indices)} of {len(result.decisions)} chunks allowed"
        f"{'; denied: ' + escape(denied) if denied else ''}{refusal}</p>"
    )


def _row(decision: ChunkDecision, text_width: int) -> str:
    chunk = decision.chunk
    text = chunk.text if len(chunk.text) <= text_width else chunk.text[:text_width] + "…"
    stage = decision.stage + (f": {decision.rule}" if decision.rule else "")
    cells = [
        str(decision.index),
        chunk.id or "",
        "" if chunk.score is None else f"{chunk.score:.3f}",
        "pass" if decision.allowed else "drop",
        stage,
        decision.reason,
        ", ".join(sorted(decision.labels)),
    ]
    colour = "#e8f5e9" if decision.allowed else "#ffebee"
    return (
        f'<tr style="background:{colour}">'
        + "".join(f'<td style="{_CELL}">{escape(c)}</td>' for c in cells)
        + f'<td style="{_CELL}" title="{escape(chunk.text)}">{escape(text)}</td></tr>'
    )


def _table(result: GuardResult, text_width: int) -> str:
    header = "".join(f'<th style="{_CELL}">{h}</th>' for h in _HEADERS)
    rows = "".join(_row(d, text_width) for d in result.decisions)
    return f'<table style="{_STYLE}"><tr>{header}</tr>{rows}</table>'


def _rules(result: GuardResult) -> str:
    items = []
    for violation in (*result.violations, *result.warnings):
        links = ", ".join(map(str, violation.links))
        items.append(
            f"<li><b>{escape(violation.action)}</b> {escape(violation.rule)}: "
            f"{escape(violation.message)} (chunks {', '.join(map(str, violation.chunk_indices))}"
            f"{'; linked by ' + escape(links) if links else ''})</li>"
        )
    items.extend(
        f"<li>bridge label <b>{escape(b.label)}</b> joins {escape(', '.join(b.rules))}</li>"
        for b in result.bridges
    )
    return f"<ul>{''.join(items)}</ul>" if items else ""
