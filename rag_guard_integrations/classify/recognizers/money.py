"""Money amounts: a currency symbol or code next to a number (``$1,200.50``, ``EUR 30k``)."""

from __future__ import annotations

from rag_guard_integrations.classify.recognizers.recognizer import Recognizer

_SYMBOL = r"[$€£¥₹₩₽₺₪₫₱₦₴₸฿]"
# ISO codes of the currencies most often written, and local abbreviations (kr, Rs).
_CODE = (
    r"(?:usd|eur|gbp|jpy|chf|cad|aud|nzd|inr|cny|hkd|sgd|sek|nok|dkk|pln|czk|huf|brl|mxn|"
    r"zar|krw|aed|sar|ils|thb|kr|rs\.?)"
)
_WORD = (
    r"(?:dollars?|euros?|pounds? sterling|rupees?|yen|yuan|francs?|kronor|kroner|kron[ae]|"
    r"pesos?|reais|rand|roubles?|rubles?|lira|zloty)"
)
# Grouped thousands first (1,200.50 or 1 200 000), else a plain run (25000, 4.5).
_AMOUNT = r"\d{1,3}(?:[,.' ]\d{3})+(?:[.,]\d{1,2})?|\d+(?:[.,]\d{1,2})?"
# Scales, also as German and Nordic texts abbreviate them (1,2 Mio., 3 Mrd., 45 tsd.).
_SCALE = r"(?: ?(?:k|m|mm|mn|bn|million|billion|thousand|lakh|crore|mio|mrd|tsd)\b\.?)?"
# An amount in words before a scale and a currency: "one million dollars", "two hundred
# thousand euros".
_NUMBER_WORD = (
    r"(?:a|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|"
    r"thirty|forty|fifty|sixty|seventy|eighty|ninety|several|a few)"
)
_IN_WORDS = (
    rf"\b{_NUMBER_WORD}(?:[- ]{_NUMBER_WORD})* "
    rf"(?:(?:hundred|thousand|million|billion) ){{1,2}}{_WORD}\b"
)

MONEY = Recognizer(
    name="money",
    label="financial",
    regex=(
        rf"(?:{_SYMBOL} ?|\b{_CODE} ?)(?:{_AMOUNT}){_SCALE}"
        rf"|\b(?:{_AMOUNT}){_SCALE} ?(?:{_SYMBOL}|{_CODE}\b|{_WORD}\b)"
        rf"|{_IN_WORDS}"
    ),
)
"""``$1,200.50``, ``€30k``, ``USD 4.5 million``, ``12 000 euros``, ``SEK 45 000``, ``1,2 Mio.
EUR``, ``one million dollars``. Bare numbers never count."""
