"""Sentence windows for clause fingerprints: periods that do not end a sentence are masked, the
headings of the clauses a text cites are blanked, and words a line break split are joined.

Fingerprints keep their parts inside one sentence with windows such as ``[^.;]{0,150}``. Contract
text is full of periods that end nothing: section numbers ("Section 8.3"), decimals ("2.5%"),
abbreviations ("Inc.", "e.g.", "U.S.", "No."). :func:`clause_text` replaces those periods with a
middle dot, so a window runs across them and still stops at a real sentence end.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from rag_guard_integrations.core.normalize import CACHED_CHARS, normalize
from rag_guard_integrations.core.patterns import compile_pattern

INNER_PERIOD = "\u00b7"
"""What a period that ends no sentence becomes (a middle dot: not ``.``, not a word character)."""

# A cross-reference that defers to another clause by number and heading ("Subject to Clause 13
# (Limitation of Liability)", "without prejudice to Section 9.2 ("Governing Law")"): that
# heading names the clause cited, not this one, so a fingerprint must not match it. A clause
# that names itself ("This Section 8 (Confidentiality) shall survive") keeps its heading.
_CITED_HEADING = compile_pattern(
    r"\b(?:subject to|without prejudice to|notwithstanding|(?:save|except) as (?:expressly )?"
    r"(?:provided|set out|stated) in|in accordance with|pursuant to|as (?:set out|provided|"
    r"described|defined|specified) in|referred to in|other than under|excluding)"
    r"(?: the (?:provisions|terms) of)? (?:the )?"
    r"(?:clauses?|sections?|articles?|paragraphs?|schedules?|annex(?:es)?|exhibits?|§)"
    r" ?[0-9][0-9a-z·()]{0,12} ?\(([\"“”'‘’]?[a-z][a-z ,'’&/-]{2,60}[\"“”'‘’]?)\)"
)
# Abbreviations that contracts put in the middle of sentences: company forms, references
# ("No.", "Sec.", "Art."), Latin ("e.g.", "i.e.", "etc.", "viz."), titles and units. A single
# letter followed by a period ("U.S.", "J. Smith", "(a.") is an initial or a dotted
# abbreviation, never a sentence of its own.
_ABBREVIATIONS = (
    "inc|corp|co|ltd|llc|llp|plc|pty|gmbh|ag|bv|nv|sa|srl|spa|lp|pc|cos|bros|assn|intl|dept"
    "|no|nos|sec|secs|art|arts|para|paras|cl|ch|sch|exh|ex|app|pt|pts|vol|p|pp|subsec"
    "|etc|viz|cf|vs|al|approx|incl|excl|min|max|est|avg"
    "|mr|mrs|ms|messrs|dr|prof|st|jr|sr|esq|hon|rev|gen|atty"
    "|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec|mon|tue|wed|thu|fri|sat|sun"
    "|ft|sq|oz|lb|lbs|kg|km|hr|hrs|mo|mos|yr|yrs|wk|wks|tel|fax|ext"
)
_INNER = compile_pattern(
    # A dotted number ("8.3", "1.2.3", "2.5"), or an abbreviation's period.
    rf"\d(?:\.\d+)+|(?:^|[^a-z0-9])(?:[a-z](?:\.[a-z])*|{_ABBREVIATIONS})\."
)

# A word a line break split at a hyphen, as extracted text keeps it ("as- sign", "ter- minate").
_BROKEN_WORD = compile_pattern(r"([a-z])-( +)([a-z]+)")


def clause_text(text: str) -> str:
    """``text`` normalised, with every period that ends no sentence masked, the heading of
    every clause it cites by number blanked and every word a line break split at a hyphen
    joined, its hyphen and spaces moved after it (cached; the length of the normalised text).

    Example:
        >>> clause_text("Per Section 8.3, Acme Inc. may not assign.")
        'per section 8·3, acme inc· may not assign.'
        >>> clause_text("Subject to Clause 13 (Limitation of Liability), it pays.")
        'subject to clause 13 (                       ), it pays.'
        >>> clause_text("It may not as- sign this.")
        'it may not assign   this.'
    """
    return _masked_cached(text) if len(text) <= CACHED_CHARS else _masked(text)


@lru_cache(maxsize=16384)
def _masked_cached(text: str) -> str:
    return _masked(text)


def _masked(text: str) -> str:
    normalized = normalize(text)
    if "- " in normalized:
        normalized = _BROKEN_WORD.sub(_joined, normalized)
    masked: str = _INNER.sub(_mask, normalized) if "." in normalized else normalized
    if "(" in masked:
        masked = _CITED_HEADING.sub(_blank_heading, masked)
    return masked


def _joined(match: Any) -> str:
    """The split word's letter before the hyphen and its rest, then the hyphen and spaces as
    spaces (the length kept)."""
    before: str = match.group(1)
    spaces: str = match.group(2)
    rest: str = match.group(3)
    return before + rest + " " * (len(spaces) + 1)


def _blank_heading(match: Any) -> str:
    """The cross-reference with its heading's letters as spaces (the length kept: passages
    are cut from the text by these offsets)."""
    found: str = match.group()
    low: int
    high: int
    low, high = (at - match.start() for at in match.span(1))
    return found[:low] + " " * (high - low) + found[high:]


def _mask(match: Any) -> str:
    # The character before an abbreviation is part of the match but not of the abbreviation.
    found: str = match.group()
    return found[0] + found[1:].replace(".", INNER_PERIOD)
