"""What a mask hid in a chunk's text, hidden in the rest of its text and in its metadata too: the
copy a redact rule hands on, and each adapter's own object (a LangChain or Haystack Document, a
LlamaIndex node), may not carry the value again, in another field, another spelling or in
pieces."""

from __future__ import annotations

import html
import re
import unicodedata
import urllib.parse
from collections.abc import Mapping
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from rag_guard_integrations.classify.recognizers.name_context import name_flags
from rag_guard_integrations.classify.recognizers.names_table import COMMON
from rag_guard_integrations.core.confusables import FOLDS

if TYPE_CHECKING:
    from collections.abc import Sequence

_NOT_DIGIT = re.compile(r"\D")
_MIN_DIGITS = 6  # a masked value with this many digits is matched by its digits alone
_SEPARATORS = 8  # marks of any kind between two of a masked number's digits
_SEPARATOR = rf"[\W_]{{0,{_SEPARATORS}}}"
_DIGIT_RUN = re.compile(rf"\d(?:{_SEPARATOR}\d)*")
_DIGITS = re.compile(r"\d+")
_HAS_DIGITS = re.compile(r"\d\d")
_LETTERS = re.compile(r"[^\W\d_]+")
_WORDS_ONLY = re.compile(r"[^\W\d_]+\.?(?:[ '’-]+[^\W\d_]+\.?)+")
_PERCENT = re.compile(r"%[0-9a-fA-F]{2}")
_LOOKALIKES = str.maketrans(*FOLDS)
# An address's "@" and dots spelled out, as a recogniser reads them: "jo [at] x dot com".
_SPELLED_AT = re.compile(r"(?<=\w)\s*[\[({<]?\s*\bat\b\s*[\])}>]?\s*(?=\w)", re.IGNORECASE)
_SPELLED_DOT = re.compile(r"(?<=\w)\s*[\[({<]?\s*\bdot\b\s*[\])}>]?\s*(?=\w)", re.IGNORECASE)
# An address's "@" with spaces around it, and a full stop of another script between two words.
_SPACED_AT = re.compile(r"(?<=\w)\s+@\s*(?=\w)|(?<=\w)\s*@\s+(?=\w)")
_OTHER_STOPS = str.maketrans(dict.fromkeys("。｡．", "."))
# A word spelled out letter by letter ("T h o r n b u r y"), or cut by hyphens ("Thorn-bury").
_SPACED_LETTERS = re.compile(r"(?<![^\W\d_])[^\W\d_](?:[ ._-][^\W\d_]){3,}(?![^\W\d_])")
_INNER_HYPHEN = re.compile(r"(?<=[^\W\d_])-(?=[^\W\d_])")
_UMLAUTS = {"ä": "ae", "ö": "oe", "ü": "ue", "Ä": "Ae", "Ö": "Oe", "Ü": "Ue", "ß": "ss"}
_UNICODE_ESCAPE = re.compile(r"\\u([0-9a-fA-F]{4})")
# Digits spelled out, as a value is read back over the phone ("four one one one ..."), in
# English and the languages of western Europe; "double four" is two of them.
_DIGIT_WORDS = {
    word: str(digit)
    for digit, spellings in enumerate(
        (
            "zero oh null nul cero",
            "one eins un une uno una um een",
            "two zwei deux dos due dois twee",
            "three drei trois tres três tre drie",
            "four vier quatre cuatro quattro quatro",
            "five fünf fuenf cinq cinco cinque vijf",
            "six sechs seis sei zes",
            "seven sieben sept siete sette sete zeven",
            "eight acht huit ocho otto oito",
            "nine neun neuf nueve nove negen",
        )
    )
    for word in spellings.split()
}
_REPEATS = {"double": 2, "triple": 3, "doppel": 2, "doble": 2}
_DIGIT_WORD = "(?:" + "|".join(sorted(_DIGIT_WORDS, key=len, reverse=True)) + ")"
_NUMBER_ITEM = rf"(?:(?:{'|'.join(_REPEATS)})[\W_]*)?(?:{_DIGIT_WORD}(?![^\W\d_])|\d+)"
# Between two items: marks, or a word said between groups ("and", "then", "dash").
_NUMBER_GAP = r"(?:[\W_]*\b(?:and|then|dash|hyphen|space)\b[\W_]*|[\W_]{1,8})"
_SPELLED_NUMBER = re.compile(
    rf"(?<![^\W\d_]){_NUMBER_ITEM}(?:{_NUMBER_GAP}{_NUMBER_ITEM})+", re.IGNORECASE
)
# One item, its repeat word and its digit word or digits apart.
_ITEM = re.compile(
    rf"(?:({'|'.join(_REPEATS)})[\W_]*)?({_DIGIT_WORD}(?![^\W\d_])|\d+)", re.IGNORECASE
)
# Where a number may be spelled out: a digit word or a repeat, or digit groups joined by a word.
_MAY_BE_SPELLED = re.compile(
    rf"(?<![^\W\d_])(?:{_DIGIT_WORD}|{'|'.join(_REPEATS)})(?![^\W\d_])"
    r"|\d[\W_]*\b(?:and|then|dash|hyphen|space)\b[\W_]*\d",
    re.IGNORECASE,
)


def scrubbed_text(text: str, masks: Sequence[tuple[str, str]]) -> str | None:
    """A masked chunk ``text`` without what its masks hid written again: each masked original
    found elsewhere in it as :func:`scrubbed` finds one in a metadata string (a number by its
    digits, in pieces of six digits or more, or inside a reference: ``order ref
    4111111111111111A``; a name by its uncommon words) is masked too; None when the value is
    still there in another spelling (full-width, percent-encoded, an HTML reference), which no
    mask can cover in place: the chunk is then dropped.

    Example:
        >>> masks = [("4111 1111 1111 1111", "[CARD]")]
        >>> scrubbed_text("Card [CARD] on file; ref 4111111111111111A.", masks)
        'Card [CARD] on file; ref [CARD]A.'
        >>> scrubbed_text("Card [CARD]; ref ４１１１１１１１１１１１１１１１", masks) is None
        True
    """
    if not masks:
        return text
    finders = _finders(tuple(masks))
    for finder, mask in finders:
        text = finder.sub(mask, text)
    plain = _plain(text)
    if plain is not text and any(finder.search(plain) for finder, _ in finders):
        return None
    return text


def scrubbed(value: Any, masks: Sequence[tuple[str, str]]) -> Any:
    """A metadata ``value`` without what the text's masks hid: each masked original is found as
    a whole value (not inside a longer word or number: ``Li`` is masked in ``Mr. Li``, not in
    ``Library``), in any case, a number by its digits whatever its separators (a piece of six
    digits or more of it too: a card split over two fields); a value of several words also by
    each of its words that is no common word (``Roe, Jane``, ``J. Roe``, ``jane.roe``).
    Strings are rewritten in place, in lists, tuples, sets and mappings (keys too; a new
    container, the input untouched); a number or other object whose text holds a masked value
    becomes the mask.

    Example:
        >>> masks = [("Jane Roe", "[NAME]"), ("4111 1111 1111 1111", "[CARD]")]
        >>> scrubbed({"customer": "JANE ROE", "card": "4111-1111-1111-1111", "n": 7}, masks)
        {'customer': '[NAME]', 'card': '[CARD]', 'n': 7}
        >>> scrubbed({"who": "Roe, Jane", "card": ["41111111", "11111111"]}, masks)
        {'who': '[NAME], [NAME]', 'card': ['[CARD]', '[CARD]']}
    """
    if not masks:
        return value
    finders = _finders(tuple(masks))
    if not isinstance(value, Mapping):
        return _scrub(value, finders)
    out = _items(value, finders)  # the metadata stays a mapping
    # A number spread over several keys ("first8", "last8"; pieces too short to be masked
    # alone): when the digits of the values as given hold it, every key holding digits goes.
    mask = _found_in(" ".join(_leaves(out)), finders) or _spread(value, finders)
    if mask is None:
        return out
    return {
        key: mask if _HAS_DIGITS.search(" ".join(_leaves(item))) else item
        for key, item in out.items()
    }


def holds(value: Any, masks: Sequence[tuple[str, str]]) -> bool:
    """Whether ``value`` (a string, or metadata: keys and values, nested) holds a masked
    original as :func:`scrubbed` and :func:`scrubbed_text` find one: what another chunk's
    masks hid, written in this one.

    Example:
        >>> masks = [("4111 1111 1111 1111", "[CARD]")]
        >>> holds("ref 4111111111111111A", masks)
        True
        >>> holds({"card": ["4111 1111", "1111 1111"]}, masks)
        True
        >>> holds({"ref": "4111"}, masks)
        False
    """
    if not masks:
        return False
    return _found_in(" ".join(_leaves(value, keys=True)), _finders(tuple(masks))) is not None


def _spread(value: Mapping[Any, Any], finders: Finders) -> str | None:
    """The mask of a masked number whose digits the values of ``value`` hold, in order, and
    no one of them alone (that one is masked where it stands)."""
    leaves = ["".join(_DIGITS.findall(_plain(leaf))) for leaf in _leaves(value)]
    digits = "".join(leaves)
    return next(
        (
            mask
            for f, mask in finders
            if isinstance(f, _DigitPieces)
            and f.digits in digits
            and not any(f.digits in leaf for leaf in leaves)
        ),
        None,
    )


def _scrub(value: Any, finders: Finders) -> Any:
    if isinstance(value, str):
        return _scrub_text(value, finders)
    if value is None or isinstance(value, bool):
        return value
    if not isinstance(value, Mapping | list | tuple | set | frozenset):
        text = _plain(str(value))
        return next((mask for finder, mask in finders if finder.search(text)), value)
    scrubbed_items = _items(value, finders)
    # A value split over a container's items (a card as a list of its groups): the container
    # is the mask.
    mask = _found_in(" ".join(_leaves(scrubbed_items)), finders)
    return scrubbed_items if mask is None else mask


def _items(value: Any, finders: Finders) -> Any:
    """A container like ``value`` with each of its items (and a mapping's keys) scrubbed."""
    if isinstance(value, Mapping):
        return {_scrub(key, finders): _scrub(item, finders) for key, item in value.items()}
    if isinstance(value, set | frozenset):
        return {_scrub(item, finders) for item in value}
    items = [_scrub(item, finders) for item in value]
    return items if isinstance(value, list) else tuple(items)


def _leaves(value: Any, *, keys: bool = False) -> list[str]:
    """The text of every item of ``value``, nested containers read in order (a mapping's
    values: its keys name them; with ``keys``, its keys too, each before its value)."""
    if isinstance(value, Mapping):
        return [
            leaf
            for key, item in value.items()
            for leaf in (*(_leaves(key) if keys else ()), *_leaves(item, keys=keys))
        ]
    if isinstance(value, list | tuple | set | frozenset):
        return [leaf for item in value for leaf in _leaves(item, keys=keys)]
    return [] if value is None else [str(value)]


def _found_in(text: str, finders: Finders) -> str | None:
    plain = _plain(text)
    return next((mask for finder, mask in finders if finder.search(plain)), None)


def _scrub_text(text: str, finders: Finders) -> str:
    for finder, mask in finders:
        text = finder.sub(mask, text)
    # Written another way (full-width, with invisible characters, as HTML references), a
    # masked value is still found in the plain reading: then the whole string is the mask.
    plain = _plain(text)
    if plain is text:  # plain ASCII: the substitutions above already read it
        return text
    return next((mask for finder, mask in finders if finder.search(plain)), text)


def _plain(text: str) -> str:
    """``text`` as a reader sees it: HTML character references, percent-encoding (a URL's
    ``%40``) and ``\\u`` escapes (JSON's ``\\u0040``) decoded, an address's ``at`` and
    ``dot`` spelled out read as ``@`` and ``.``, a number spelled out read as its digits
    (``four one one one``, ``vier eins``, ``double one``, ``4111 then 1111``), compatibility
    forms folded (full-width digits and signs), digits of every script read as ASCII ones and
    look-alike letters as the letters they imitate, invisible format characters dropped; an
    address with spaces around its ``@`` or another script's full stop (``jo @ x。com``), and a
    word spelled letter by letter or cut by hyphens (``T h o r n b u r y``, ``Thorn-bury``),
    read whole."""
    if "&" in text:
        text = html.unescape(text)
    if "%" in text and _PERCENT.search(text):
        text = urllib.parse.unquote(text)
    if "\\u" in text:
        text = _UNICODE_ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), text)
    if _SPELLED_AT.search(text):
        text = _SPELLED_DOT.sub(".", _SPELLED_AT.sub("@", text))
    if _MAY_BE_SPELLED.search(text):
        text = _SPELLED_NUMBER.sub(_as_digits, text)
    if "@" in text:
        text = _SPACED_AT.sub("@", text)
    if "-" in text:
        text = _INNER_HYPHEN.sub("", text)
    text = _SPACED_LETTERS.sub(lambda m: "".join(_LETTERS.findall(m.group())), text)
    if text.isascii():
        return text  # the same object when nothing was decoded
    text = unicodedata.normalize("NFKC", text).translate(_OTHER_STOPS)
    # Digits of every script read as ASCII ones (Arabic-Indic, Devanagari: NFKC keeps them),
    # and look-alike letters as the letters they imitate (a Cyrillic "а" in "jаne").
    return "".join(
        str(unicodedata.decimal(ch)) if ch.isdecimal() and not ch.isascii() else ch
        for ch in text
        if unicodedata.category(ch) != "Cf"
    ).translate(_LOOKALIKES)


def _as_digits(run: re.Match[str]) -> str:
    """A spelled-out number as its digits, a space between its items: ``four double one,
    one`` -> ``4 11 1``; a run of digit groups alone is left as written."""
    items = []
    for repeat, item in _ITEM.findall(run.group()):
        digits = item if item.isdigit() else _DIGIT_WORDS[item.lower()]
        items.append(digits * (_REPEATS[repeat.lower()] if repeat else 1))
    return " ".join(items)


class _DigitPieces:
    """Runs of digit groups (up to :data:`_SEPARATORS` marks between two) whose digits, six or
    more, are a piece of a masked number's: ``4111 1111`` of ``4111 1111 1111 1111``. Read
    like a pattern: :meth:`search` and :meth:`sub`."""

    def __init__(self, digits: str) -> None:
        self.digits = digits

    def search(self, text: str) -> bool:
        return bool(self._spans(text))

    def sub(self, mask: str, text: str) -> str:
        pieces, cursor = [], 0
        for start, end in self._spans(text):
            pieces += [text[cursor:start], mask]
            cursor = end
        return "".join([*pieces, text[cursor:]]) if pieces else text

    def _spans(self, text: str) -> list[tuple[int, int]]:
        out = []
        for run in _DIGIT_RUN.finditer(text):
            groups = [(m.start(), m.end(), m.group()) for m in _DIGITS.finditer(text, *run.span())]
            first = 0
            while first < len(groups):
                joined, last = "", None
                for index in range(first, len(groups)):
                    joined += groups[index][2]
                    if joined not in self.digits:
                        break
                    if len(joined) >= _MIN_DIGITS:
                        last = index
                if last is None:
                    first += 1
                    continue
                out.append((groups[first][0], groups[last][1]))
                first = last + 1
        return out


Finder = re.Pattern[str] | _DigitPieces
Finders = tuple[tuple[Finder, str], ...]


@lru_cache(maxsize=256)
def _finders(masks: tuple[tuple[str, str], ...]) -> Finders:
    """The patterns of :func:`scrubbed`, each with its mask: for a number (six digits or more,
    mostly digits), its digits with up to :data:`_SEPARATORS` separators of any kind between
    them, then each run of six of its digits or more standing alone (a piece of it); for
    anything else the value as a whole, then each word of a value of several words that is no
    common word, in any case, with no letter or digit around it (``_`` and ``.`` count as no
    word character: ``jane.roe``, ``bob@x.io_2``), or capitalised in camel case
    (``JaneRoe``)."""
    whole: list[tuple[Finder, str]] = []
    pieces: list[tuple[Finder, str]] = []
    for original, mask in masks:
        digits = _NOT_DIGIT.sub("", original)
        if len(digits) >= _MIN_DIGITS and len(digits) * 2 > len(original.replace(" ", "")):
            body = _SEPARATOR.join(digits)  # any separator: " - ", "–", "_", "/", " -- "
            whole.append((re.compile(rf"(?<!\d){body}(?!\d)"), mask))
            pieces.append((_DigitPieces(digits), mask))
            continue
        for spelling in _spellings(original):
            body = re.escape(spelling)
            whole.append((re.compile(rf"(?<![^\W_]){body}(?![^\W_])", re.IGNORECASE), mask))
        name = _name(original)
        if name:
            # The name's words run together in any case or joined by marks ("janeroe",
            # "JANE_ROE"), or its first initial before its last word ("J. Roe", "jroe").
            runs = []
            for spelling in _spellings(" ".join(name)):
                parts = [re.escape(w) for w in spelling.split()]
                runs.append(r"[\W_]{0,3}".join(parts))
                if len(parts[-1]) > 2:
                    runs.append(rf"{parts[0][:1]}[\W_]{{0,3}}{parts[-1]}")
            body = "|".join(runs)
            whole.append((re.compile(rf"(?<![^\W\d_])(?:{body})(?![^\W\d_])", re.IGNORECASE), mask))
        words = {spelled for word in _name_words(original) for spelled in _spellings(word)}
        if words:
            ordered = sorted(words, key=len, reverse=True)
            body = "|".join(re.escape(w) for w in ordered)
            capitalised = "|".join(re.escape(w[:1].upper() + w[1:].lower()) for w in ordered)
            lower = "|".join(re.escape(w.lower()) for w in ordered)
            # No letter around a word of the name (a plural's "s" aside: "the Thornburys"); a
            # digit may be: "Thornbury2" is the name.
            # In camel case it touches the other words: "JaneRoe", "janeRoe", "roeJane".
            pieces.append(
                (
                    re.compile(
                        rf"(?<![^\W\d_])(?:{body})(?:e?s)?(?![^\W\d_])"
                        rf"|(?-i:(?<![A-Z])(?:{capitalised})(?![a-z]))"
                        rf"|(?-i:(?<![A-Za-z])(?:{lower})(?=[A-Z]))",
                        re.IGNORECASE,
                    ),
                    mask,
                )
            )
    return (*whole, *pieces)


def _name(original: str) -> list[str]:
    """The words of a value written as words alone, several of them (a name, not an address or
    a code), or none."""
    if _WORDS_ONLY.fullmatch(original.strip()) is None:
        return []
    return _LETTERS.findall(original)


def _spellings(text: str) -> set[str]:
    """``text`` as written, without its accents (``Núñez`` as ``Nunez``) and with German
    umlauts written out (``Müller`` as ``Mueller``)."""
    bare = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
    spelled = text
    for letter, written in _UMLAUTS.items():
        spelled = spelled.replace(letter, written)
    return {text, bare, spelled}


def _name_words(original: str) -> set[str]:
    """The words of a value written as words alone, several of them (a name, not an address or
    a code), that are no common word: each is masked alone."""
    flags = name_flags()
    return {w for w in _name(original) if len(w) > 2 and not flags.get(w.lower(), 0) & COMMON}
