"""IP addresses: dotted IPv4 with octets up to 255, and IPv6 in full or ``::``-compressed form."""

from __future__ import annotations

from rag_guard_integrations.classify.recognizers.recognizer import Recognizer
from rag_guard_integrations.classify.recognizers.validators import ip_address

_H = r"[0-9a-f]{1,4}"
# Full, and compressed with the "::" at each possible position; every form starts with a group.
_IPV6 = "|".join(
    (
        rf"(?:{_H}:){{7}}{_H}",
        rf"(?:{_H}:){{1,7}}:(?:{_H}(?::{_H}){{0,5}})?",
    )
)
# A dotted run longer than four numbers (a version string, a dotted phone number) is taken
# whole and rejected by the validator rather than split into an address-shaped piece.
_IPV4 = r"\d{1,3}(?:\.\d{1,3}){3}(?:\.\d+)*"

IP_ADDRESS = Recognizer(
    name="ip_address",
    label="pii",
    regex=rf"\b(?:{_IPV4}|{_IPV6})\b",
    validator=ip_address,
)
"""``192.168.0.12``, ``2001:db8::8a2e:370:7334``; ``256.1.1.1`` and ``1.2.3.4.5`` do not count."""
