"""Financial results without a currency: a percentage or a change in basis points beside a
financial metric (``Q3 revenue rose 18%``, ``EBITDA margin of 23.5 percent``)."""

from __future__ import annotations

from rag_guard_integrations.classify.recognizers.recognizer import Recognizer

FINANCIAL_FIGURE = Recognizer(
    name="financial_figure",
    label="financial",
    # Digits or, as prose writes small ones, words: "eighteen percent".
    regex=(
        r"[-+]?\b\d+(?:[.,]\d+)? ?(?:%|percent\b|per cent\b|bps\b|basis points\b)"
        r"|\b(?:(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)[- ])?"
        r"(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|"
        r"fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|"
        r"eighty|ninety|a hundred|one hundred) (?:percent|per cent)\b"
    ),
    context=(
        "revenue",
        "revenues",
        "profit",
        "profits",
        "earnings",
        "ebitda",
        "ebit",
        "margin",
        "turnover",
        "net income",
        "operating income",
        "sales",
        "eps",
        "dividend",
        "guidance",
        "cash flow",
        "gross margin",
        "net loss",
        "operating loss",
    ),
    window=40,
)
"""``Q3 revenue rose 18%``; a percentage with no financial metric near it does not count."""
