"""The word table of the person and organisation recognisers: given names, family names,
common English words and place names, built from three data packages by
``tools/gen_names.py`` (sources and licences in ``data/NOTICE.md``). Loaded once per process,
at the first text that needs it.

Example:
    >>> flags = word_flags()
    >>> bool(flags["maria"] & GIVEN), bool(flags["kowalski"] & FAMILY)
    (True, True)
    >>> bool(flags.get("will", 0) & COMMON), bool(flags.get("smith", 0) & COMMON)
    (True, False)
"""

from __future__ import annotations

import gzip
from functools import lru_cache
from importlib import resources

GIVEN, FAMILY, COMMON, PLACE = 1, 2, 4, 8
"""Flags of a word: a given name, a family name, a common English word, a place (a sum of
them)."""
NAME = GIVEN | FAMILY


def table_flags(flags: dict[str, int], key: str) -> int:
    """The flags of lower-case ``key`` in ``flags``; a hyphened word the table lacks has the
    name flags of its first part (``jae-won``).

    Example:
        >>> table_flags({"jae": GIVEN}, "jae-won") == GIVEN
        True
    """
    found = flags.get(key, -1)
    if found >= 0:
        return found
    return flags.get(key.partition("-")[0], 0) & NAME if "-" in key else 0


@lru_cache(maxsize=1)
def word_flags() -> dict[str, int]:
    """Every word of the table (lower case) and its flags: about 250,000 words, 20 MB."""
    raw = resources.files(__package__).joinpath("data/names.txt.gz").read_bytes()
    flags: dict[str, int] = {}
    # After the header, sections "#N\n" followed by their words, one a line.
    for section in gzip.decompress(raw).decode("utf-8").split("\n#")[1:]:
        value, _, words = section.partition("\n")
        flags.update(dict.fromkeys(words.split(), int(value)))
    return flags
