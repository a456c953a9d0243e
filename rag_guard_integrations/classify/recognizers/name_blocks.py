"""Names from the layout of address and signature blocks: the convention of a letter head (a
person's name, the organisation's on the next line, then its address)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from rag_guard_integrations.classify.recognizers import name_words as words
from rag_guard_integrations.classify.recognizers.names_table import COMMON, FAMILY, GIVEN

if TYPE_CHECKING:
    from collections.abc import Callable

Span = tuple[int, int]
# List markers and indentation before a block line: "> ", "- ", "* ", "??? ".
_MARKER = re.compile(r"[ \t>?*|•\-]*")
# A line that can be a name: letters, hyphens, apostrophes, periods, commas, "&"; no digit.
_NAME_LINE = re.compile(r"[^\W\d_](?:[^\W\d_]|['’.\-])*(?:[ ,&]+(?:[^\W\d_]|['’.\-])+){0,5}")
_DIGIT = re.compile(r"\d")


def _lines(text: str) -> list[Span]:
    """Each line's content span, without list markers and trailing space."""
    out, position = [], 0
    for line in text.split("\n"):
        start = position + _MARKER.match(line).end()  # type: ignore[union-attr]  # matches ""
        out.append((start, max(start, position + len(line.rstrip()))))
        position += len(line) + 1
    return out


def _covered(span: Span, spans: list[Span]) -> bool:
    return any(s <= span[0] + 1 and e >= span[1] - 1 for s, e in spans)


def _overlaps(span: Span, spans: list[Span]) -> bool:
    return any(s < span[1] and span[0] < e for s, e in spans)


def block_names(
    text: str, persons: list[Span], organizations: list[Span], flag: Callable[[str], int]
) -> None:
    """Add the names a block's layout gives: a line that is only a given and a family name is
    a person (in an all-lower-case text too); the line right after a person's line is their
    organisation when an address or contact line follows within two lines."""
    lines = _lines(text)
    if len(lines) < 3:
        return
    caseless = text.lower() == text
    for index, line in enumerate(lines[:-2]):
        if line[0] == line[1] or _overlaps(line, organizations):
            continue
        content = text[line[0] : line[1]]
        if not _covered(line, persons) and _name_line(content, flag, caseless):
            persons.append(line)
        if not _covered(line, persons):
            continue
        following = lines[index + 1]
        label = text[following[0] : following[1]]
        if (
            following[0] == following[1]
            or not _NAME_LINE.fullmatch(label)
            or any(w.strip(",.").lower() in words.JOB_TITLES for w in label.split())
            or _covered(following, persons)
            or _overlaps(following, organizations)
        ):
            continue
        rest = [text[s:e] for s, e in lines[index + 2 : index + 4]]
        if any(_DIGIT.search(r) or words.CONTACT_LINE.match(r) for r in rest):
            organizations.append(following)


def _name_line(content: str, flag: Callable[[str], int], caseless: bool) -> bool:
    """A line of two or three words: a given name first or a family name last, none of them a
    common word; capitalised, unless the whole text is in lower case (then both needed)."""
    parts = content.split()
    if not 2 <= len(parts) <= 3 or not _NAME_LINE.fullmatch(content):
        return False
    flags = [flag(p) for p in parts]
    if any(f & COMMON and len(p.rstrip(".")) > 1 for p, f in zip(parts, flags, strict=True)):
        return False
    if caseless:
        return bool(flags[0] & GIVEN and flags[-1] & FAMILY)
    if not all(p[0].isupper() and not (p.isupper() and len(p) > 2) for p in parts):
        return False
    return bool(flags[0] & GIVEN or flags[-1] & FAMILY)
