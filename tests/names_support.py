"""What the names recognisers find in a text, as the text they cover (for the names tests)."""

from __future__ import annotations

from rag_guard_integrations.classify.recognizers.proper_names import find_names


def names(text: str) -> tuple[list[str], list[str]]:
    """The persons and organisations of ``text``, as the text they cover."""
    found = find_names(text)
    return (
        [text[s:e] for s, e in found.persons],
        [text[s:e] for s, e in found.organizations],
    )


def persons(text: str) -> list[str]:
    """The persons of ``text``, as the text they cover."""
    return names(text)[0]
