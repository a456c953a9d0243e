"""Email addresses: RFC 5322 dot-atom local part, a dotted domain with a TLD, or an address literal.

Quoted local parts (``"john doe"@example.org``) are left out: a pattern that stays open from a
quotation mark to the next one costs every text with quotes in it a share of the scan speed.
"""

from __future__ import annotations

from rag_guard_integrations.classify.recognizers.recognizer import Recognizer

_LOCAL = r"[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*"
# Labels may be internationalised (例え.jp; accented letters are already folded to ASCII).
# Beyond ASCII, the blocks that hold letters count (not Latin-1 symbols, general or CJK
# punctuation): Unicode letter classes would make the pattern a hundred times larger.
_BEYOND_ASCII = (
    r"\x{c0}-\x{1fff}\x{2c00}-\x{2dff}\x{3040}-\x{d7ff}\x{f900}-\x{fdff}\x{fe70}-\x{fefe}"
    r"\x{ff66}-\x{ffdc}\x{10000}-\x{10ffff}"
)
_LETTER = rf"[a-z0-9{_BEYOND_ASCII}]"
# Lengths are left unbounded ("*", not "{0,61}"): RE2 would copy the class once per repeat.
_LABEL = rf"{_LETTER}(?:[a-z0-9{_BEYOND_ASCII}-]*{_LETTER})?"
# The TLD: punycode, ASCII letters (the final \b keeps "a@b.com" out of "a@b.community"
# without a lookahead), or a run with a letter beyond ASCII (.рф), taken whole.
_TLD = (
    r"(?:xn--[a-z0-9-]*[a-z0-9]\b|[a-z]{2,}\b"
    rf"|[a-z]*[{_BEYOND_ASCII}][a-z{_BEYOND_ASCII}]*)"
)
_LITERAL = r"\[(?:\d{1,3}(?:\.\d{1,3}){3}|ipv6:[0-9a-f:.]+)\]"  # jo@[192.0.2.1]

# An address spelled out so that a scraper misses it and a reader does not: "jo [at] example
# [dot] com", "jo(at)example.com", "jo%40example.com", "jo at example dot com" (a plain "at"
# only with a spelled-out "dot": "sign up at example.com" is no address).
_BRACKETED_AT = r" ?[\[({<] ?at ?[\])}>] ?"
_SPELLED_DOT = r"(?: ?[\[({<] ?dot ?[\])}>] ?| dot )"
# A plain "at ... dot" ends in a common TLD: "aimed at red dot sights" is no address.
_COMMON_TLD = r"(?:com|org|net|edu|gov|io|co|uk|de|fr|es|it|nl|eu|info|biz|ca|au|in|jp)\b"
_SPELLED = (
    rf"|{_LOCAL}(?:{_BRACKETED_AT}|%40)(?:{_LABEL}(?:\.|{_SPELLED_DOT}))+{_TLD}"
    rf"|{_LOCAL} at (?:{_LABEL}{_SPELLED_DOT})+{_COMMON_TLD}"
)

EMAIL = Recognizer(
    name="email",
    label="pii",
    regex=rf"{_LOCAL}@(?:(?:{_LABEL}\.)+{_TLD}|{_LITERAL}){_SPELLED}",
)
"""``jane.doe+news@example.co.uk``, ``jo [at] example [dot] com``. No context needed: the
``@`` (or its spelling) and a TLD are specific enough."""
