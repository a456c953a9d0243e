"""Generate ``rag_guard_integrations/classify/recognizers/data/organizations.txt``: the names of
listed companies the organisation recogniser knows without a cue (``Allianz``, ``Goldman
Sachs``).

Run ``python tools/gen_organizations.py`` after upgrading ``pytickersymbols`` or
``spacy-lookups-data`` (dev dependencies, pinned; nothing is fetched: the packages' bundled
tables are read).

- Names: ``pytickersymbols``' members of 20 stock indices (US, European, Japanese), each
  written as the package writes it, without a trailing legal form (``Adobe Inc.`` is kept as
  ``Adobe``) or a bracketed note.
- Left out: a name of one word, not in capitals, that is an English word more often than a
  name, by ``spacy-lookups-data``'s English lexeme probabilities (its lower-case form above
  :data:`WORD_LOG_PROB` and at least :data:`LOWER_MARGIN` more probable than its capitalised
  form): ``Continental``, ``Investor``, ``Workday``. ``Airbnb`` and ``SAP`` stay.

Which of the rest count without a cue is decided when the table is loaded
(:mod:`~rag_guard_integrations.classify.recognizers.known_organizations`). The file is a header
line naming the sources, then one name a line, sorted; the sources' MIT licences are in
``data/NOTICE.md``.
"""

from __future__ import annotations

import gzip
import json
import re
from importlib import resources
from importlib.metadata import version
from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / "rag_guard_integrations/classify/recognizers/data"
OUT = DATA / "organizations.txt"
WORD_LOG_PROB = -16.0
LOWER_MARGIN = 0.3
# Legal forms a listing writes after a company's name.
_LEGAL_FORM = re.compile(
    r"(?:,? (?:Inc|Corp|Co|Ltd|plc|PLC|AG|SE|SA|S\.A|NV|N\.V|KGaA|ASA|AB|Oyj|Holdings?"
    r"|Group|Company|Corporation|Incorporated|Limited|& Co)\.?)+$"
)
_BRACKETED = re.compile(r" *\([^)]*\)")


def plain_name(name: str) -> str:
    """``name`` without a bracketed note and its trailing legal forms (the name itself when
    it is nothing else)."""
    bare = _BRACKETED.sub("", name).strip()
    stripped = _LEGAL_FORM.sub("", bare).strip(" ,")
    return stripped or bare


def _english_words() -> dict[str, float]:
    path = resources.files("spacy_lookups_data").joinpath("data/en_lexeme_prob.json.gz")
    with gzip.open(str(path), "rt", encoding="utf-8") as handle:
        probs: dict[str, float] = json.load(handle)
    return probs


def english_word(name: str, probs: dict[str, float]) -> bool:
    """Whether a one-word ``name`` not in capitals is mostly written as an English word."""
    if " " in name or name.isupper():
        return False
    lower = probs.get(name.lower(), -99.0)
    written = max(probs.get(name, -99.0), probs.get(name.capitalize(), -99.0))
    return lower > WORD_LOG_PROB and lower >= written + LOWER_MARGIN


def build() -> list[str]:
    """The companies' plain names, sorted and distinct, without English words."""
    from pytickersymbols import PyTickerSymbols  # noqa: PLC0415 - a dev dependency of this tool

    probs = _english_words()
    names = {plain_name(stock["name"]) for stock in PyTickerSymbols().get_all_stocks()}
    return sorted(n for n in names if len(n) > 1 and not english_word(n, probs))


def render(names: list[str]) -> str:
    """The file: a header naming the sources, then the names, one a line."""
    header = (
        f"# pytickersymbols {version('pytickersymbols')}, spacy-lookups-data "
        f"{version('spacy-lookups-data')}: {len(names)} names\n"
    )
    return header + "\n".join(names) + "\n"


def main() -> None:
    names = build()
    OUT.write_text(render(names), encoding="utf-8")
    print(f"wrote {OUT} ({len(names)} names)")


if __name__ == "__main__":
    main()
