"""IP addresses: dotted IPv4 with octets up to 255, and IPv6 in full or ``::``-compressed form."""

from __future__ import annotations

from rag_guard_integrations.classify.recognizers.recognizer import Recognizer
from rag_guard_integrations.classify.recognizers.validators import ip_address

_H = r"[0-9a-f]{1,4}"
_GROUPS = rf"{_H}(?::{_H}){{0,7}}"
_DOTTED = r"\d{1,3}(?:\.\d{1,3}){3}"
# After the "::", groups, possibly ending in an embedded IPv4 address (::ffff:192.0.2.1).
_TAIL = rf"(?:(?:{_H}:){{0,5}}{_DOTTED}|{_GROUPS})"
# Full, or compressed with the "::" anywhere: "\B" keeps an opening "::" off the end of a
# word ("std::") and a closing one off the start of one.
_IPV6 = (
    rf"\b(?:{_H}:){{7}}{_H}\b|\b(?:{_H}:){{6}}{_DOTTED}\b"
    rf"|(?:\b{_GROUPS}|\B)::(?:{_TAIL}\b|\B)"
)
# A link-local address may name its interface: fe80::1%eth0.
_ZONE = r"(?:%[0-9a-z_]+\b)?"
# A dotted run longer than four numbers (a version string, a dotted phone number) is taken
# whole and rejected by the validator rather than split into an address-shaped piece.
_IPV4 = r"\d{1,3}(?:\.\d{1,3}){3}(?:\.\d+)*"
# What makes a dotted quad a section or table number in a document: a document-structure
# word naming it before ("clause 3.2.1.4", "§ 4.1.1.2", "sections 2.1 and 2.3.1.1", "table 3:
# 1.2.3.4"), a lettered level glued to it ("a.1.2.3.4"), or a cross-reference after it
# ("1.2.3.4 hereof", "of this Agreement"). They are part of the match, so that the validator
# sees and rejects them. Words that also label hosts in tickets ("step 3: 10.0.0.12", "ref",
# "build", "vs") are left out: a version written as a valid dotted quad stays ambiguous.
_REFERENCE_WORD = (
    r"(?:sub-?)?(?:section|sec|clause|cl|article|art|paragraph|para|schedule|sch|exhibit"
    r"|annex|annexure|appendix|appendices|attachment|table|figure|fig|chapter)(?:e?s)?\.?"
)
_LABEL = r"(?:\d+[a-z]?|[a-z]|[ivx]+)(?:\.\d+)*(?:\([a-z0-9]{1,4}\))*"
_LIST = rf"(?:{_LABEL}(?: ?[,;:&-] ?| (?:and|or|to|through) ))*"
_NUMBERED = rf"\b(?:{_REFERENCE_WORD}) ?(?:(?:no|nos|nr)\.? ?)?(?:§+ ?)?{_LIST}"
_CROSS_REFERENCE = (
    r" (?:hereof|herein|hereunder|hereto|et seq)\b"
    r"| of (?:this|the) (?:agreement|contract|schedule|annex|appendix|exhibit|policy|standard)"
)
_SECTION_NUMBER = rf"(?:{_NUMBERED}|§+ ?{_LIST}|\b[a-z]\.){_IPV4}|\b{_IPV4}(?:{_CROSS_REFERENCE})"

IP_ADDRESS = Recognizer(
    name="ip_address",
    label="pii",
    regex=rf"{_SECTION_NUMBER}|\b{_IPV4}\b|(?:{_IPV6}){_ZONE}",
    validator=ip_address,
)
"""``192.168.0.12``, ``2001:db8::8a2e:370:7334``, ``::1``; ``256.1.1.1``, ``1.2.3.4.5`` and
``clause 1.2.3.4`` do not count."""
