"""How an off-topic word is respelled to slip past a blocklist, undone for the blocklist only:
digits or symbols standing for letters in a word (``b1tc0in``, ``crypt0``, ``b!tcoin``), a word
spelt out letter by letter (``b-i-t-c-o-i-n``, ``b/i/t/c/o/i/n``), and a word split in two or
three (``bit coin``, ``bit-coin``, ``bit co in``). Short words split in two (``pri ce``) are
not joined: two short words make a blocked word by chance too often.

The respelled reading is only ever matched against the blocklist (terms the policy says are
out of the domain), so it can reject a query and never admit one.

Example:
    >>> respelled("is 2062 b1tc0in or b-i-t-c-o-i-n")
    'is 2062 bitcoin or bitcoin | bitcoinor orbitcoin bitcoinorbitcoin'
    >>> respelled("is 2062 bit coin")
    'is 2062 bit coin | bitcoin'
    >>> respelled("fe 500d bar") is None
    True
"""

from __future__ import annotations

import re

_LEET = str.maketrans("01345789!@$", "oieastbgias")
# A word of letters with digits or symbols standing for some ("b1tc0in", "crypt0", "b!tcoin").
_MIXED = re.compile(
    r"(?<![\w!@$])(?=[a-z0-9!@$]*[a-z][a-z0-9!@$]*[a-z])[a-z0-9!@$]*[0-9!@$][a-z0-9!@$]*"
)
_SPELT = re.compile(r"\b[a-z](?:[\s\-.*_/,~+\u00b7]+[a-z]){2,}\b")
_SEPARATORS = re.compile(r"[\s\-.*_/,~+\u00b7]+")
_JOIN = r"[\s\-_.]+"
_PAIR = re.compile(rf"\b(?=([a-z]{{2,}}){_JOIN}([a-z]{{2,}})\b)")
_TRIPLE = re.compile(rf"\b(?=([a-z]{{2,}}){_JOIN}([a-z]{{2,}}){_JOIN}([a-z]{{2,}})\b)")
_MIN_JOINED = 6  # words joined into a blocked word: long enough not to happen by chance


def respelled(text: str) -> str | None:
    """``text`` (normalised) with respelled words undone and, after a ``|``, each two and three
    adjacent words joined into one long word; None when nothing was respelled and no run
    makes a word that long."""
    undone = _MIXED.sub(lambda m: m.group().translate(_LEET), text)
    undone = _SPELT.sub(lambda m: _SEPARATORS.sub("", m.group()), undone)
    runs = [*_PAIR.finditer(undone), *_TRIPLE.finditer(undone)]
    joined = [word for m in runs if len(word := "".join(m.groups())) >= _MIN_JOINED]
    if undone == text and not joined:
        return None
    return undone + (" | " + " ".join(joined) if joined else "")
