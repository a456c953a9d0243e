"""Generate ``rag_guard_integrations/classify/recognizers/data/compound_words.txt.gz``: the
English words that read as invented names (two common words run together, ``workflow``,
``deerskin``, or a brand's ending, ``magnify``), so that the invented-name rule
(:mod:`~rag_guard_integrations.classify.recognizers.name_compounds`) leaves them alone.

Run ``python tools/gen_compound_words.py`` after upgrading ``spacy-lookups-data`` or
regenerating the names table (``tools/gen_names.py``, whose common words make the two parts);
nothing is fetched.

- Words: ``spacy-lookups-data``'s English lexeme probabilities, in lower case, of letters
  only, whose most frequent spelling has a log probability above :data:`KNOWN_LOG_PROB`.
- Kept: those of six letters or more that the names table does not hold and that
  :func:`~rag_guard_integrations.classify.recognizers.name_compounds.looks_invented` reads as
  invented. Every other word never reaches that test.

The file is a header line naming the source and threshold, then one word a line, sorted.
"""

from __future__ import annotations

import gzip
import json
import sys
from importlib import resources
from importlib.metadata import version
from pathlib import Path

from rag_guard_integrations.classify.recognizers.name_compounds import (
    MIN_LETTERS,
    looks_invented,
)
from rag_guard_integrations.classify.recognizers.name_context import name_flags

OUT = (
    Path(__file__).resolve().parents[1]
    / "rag_guard_integrations/classify/recognizers/data/compound_words.txt.gz"
)
KNOWN_LOG_PROB = -19.0


def build() -> list[str]:
    """The words of the file, sorted."""
    path = resources.files("spacy_lookups_data").joinpath("data/en_lexeme_prob.json.gz")
    with gzip.open(str(path), "rt", encoding="utf-8") as handle:
        probs: dict[str, float] = json.load(handle)
    best: dict[str, float] = {}
    for word, prob in probs.items():
        if word.isalpha() and word.isascii():
            key = word.lower()
            best[key] = max(best.get(key, -99.0), prob)
    flags = name_flags()
    return sorted(
        key
        for key, prob in best.items()
        if prob > KNOWN_LOG_PROB
        and len(key) >= MIN_LETTERS
        and key not in flags
        and looks_invented(key, flags)
    )


def render(words: list[str]) -> bytes:
    """The gzip file: a header naming the source and threshold, then the words."""
    header = (
        f"# spacy-lookups-data {version('spacy-lookups-data')}; log prob > {KNOWN_LOG_PROB}, "
        "read as invented names\n"
    )
    body = "".join(f"{word}\n" for word in words)
    return gzip.compress((header + body).encode("utf-8"), compresslevel=9, mtime=0)


def main() -> int:
    """Write the file."""
    OUT.write_bytes(render(build()))
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
