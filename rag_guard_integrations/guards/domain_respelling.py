"""How an off-topic word is respelled to slip past a blocklist, undone for the blocklist only:
digits standing for letters inside a word (``b1tc0in``), a word spelt out letter by letter
(``b-i-t-c-o-i-n``, ``b i t c o i n``), and a word split in two (``bit coin``).

The respelled reading is only ever matched against the blocklist (terms the policy says are
out of the domain), so it can reject a query and never admit one.

Example:
    >>> respelled("is 2062 b1tc0in or b-i-t-c-o-i-n")
    'is 2062 bitcoin or bitcoin | bitcoinor orbitcoin'
    >>> respelled("is 2062 bit coin")
    'is 2062 bit coin | bitcoin'
    >>> respelled("fe 500d bar") is None
    True
"""

from __future__ import annotations

import re

_LEET = str.maketrans("013457", "oieast")
# A word holding letters and a digit between letters: "b1tcoin", "c0in" (not "fe500d", "e250").
_MIXED = re.compile(r"\b(?=\w*[a-z])[a-z]+(?:\d+[a-z]+)+\b")
_SPELT = re.compile(r"\b[a-z](?:[\s\-.*_]+[a-z]){2,}\b")
_SEPARATORS = re.compile(r"[\s\-.*_]+")
_PAIR = re.compile(r"\b(?=([a-z]{2,})\s+([a-z]{2,})\b)")
_MIN_JOINED = 6  # two words joined into a blocked word: long enough not to happen by chance


def respelled(text: str) -> str | None:
    """``text`` (normalised) with respelled words undone and, after a ``|``, each pair of
    adjacent words joined into one long word; None when nothing was respelled and no pair
    makes a word that long."""
    undone = _MIXED.sub(lambda m: m.group().translate(_LEET), text)
    undone = _SPELT.sub(lambda m: _SEPARATORS.sub("", m.group()), undone)
    pairs = (m.group(1) + m.group(2) for m in _PAIR.finditer(undone))
    joined = [word for word in pairs if len(word) >= _MIN_JOINED]
    if undone == text and not joined:
        return None
    return undone + (" | " + " ".join(joined) if joined else "")
