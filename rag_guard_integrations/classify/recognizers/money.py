"""Money amounts: a currency symbol or code next to a number (``$1,200.50``, ``EUR 30k``)."""

from __future__ import annotations

from rag_guard_integrations.classify.recognizers.recognizer import Recognizer

_SYMBOL = r"[$€£¥₹₩₽₺]"
_CODE = r"(?:usd|eur|gbp|jpy|chf|cad|aud|inr|cny|rs\.?)"
_WORD = r"(?:dollars?|euros?|rupees?|yen|yuan)"
# Grouped thousands first (1,200.50 or 1 200 000), else a plain run (25000, 4.5).
_AMOUNT = r"\d{1,3}(?:[,.' ]\d{3})+(?:[.,]\d{1,2})?|\d+(?:[.,]\d{1,2})?"
_SCALE = r"(?: ?(?:k|m|mn|bn|million|billion|thousand|lakh|crore)\b)?"

MONEY = Recognizer(
    name="money",
    label="financial",
    regex=(
        rf"(?:{_SYMBOL} ?|\b{_CODE} ?)(?:{_AMOUNT}){_SCALE}"
        rf"|\b(?:{_AMOUNT}){_SCALE} ?(?:{_SYMBOL}|{_CODE}\b|{_WORD}\b)"
    ),
)
"""``$1,200.50``, ``€30k``, ``USD 4.5 million``, ``12 000 euros``. Bare numbers never count."""
