"""Why a chunk was decided as it was, in two forms: the full sentence for the caller, and the
record's, written only from names the policy or the caller defined.

Every record (the audit record, the no-text record, the logged and traced forms of both) takes a
reason's :attr:`Reason.record`: a template the check's author wrote, filled with stage,
attribute, rule and label names and counts, never with a value the chunk holds. A reason that is
plain text (a custom check's) is recorded as a fixed sentence naming its stage, since nothing
says which of its words came from the chunk.
"""

from __future__ import annotations

NOT_RECORDED = "reason not recorded"


class Reason(str):
    """A reason: as a string, the full sentence (it may name the chunk's own values, for the
    caller in this process); :attr:`record`, the same reason as records carry it, with only
    values the policy or the caller defined.

    A custom check returns one to have its reason recorded:

    Example:
        >>> reason = Reason("tenant='acme' is not allowed", "tenant value is not allowed")
        >>> reason == "tenant='acme' is not allowed", reason.record
        (True, 'tenant value is not allowed')
        >>> Reason.fixed("passed access").record
        'passed access'
    """

    record: str

    def __new__(cls, text: str, record: str) -> Reason:
        reason = super().__new__(cls, text)
        reason.record = record
        return reason

    @classmethod
    def fixed(cls, text: str) -> Reason:
        """A reason that names no chunk value: the record's form is the text itself."""
        return cls(text, text)

    def __reduce__(self) -> tuple[type[Reason], tuple[str, str]]:
        return (Reason, (str(self), self.record))


def recorded(stage: str, reason: str) -> str:
    """The record's form of ``reason``: its :attr:`Reason.record`, or, for plain text, a fixed
    sentence naming ``stage``.

    Example:
        >>> recorded("custom", "saw 'Project Falcon' in the text")
        'custom: reason not recorded (return a Reason to record one)'
    """
    if isinstance(reason, Reason):
        return reason.record
    return f"{stage}: {NOT_RECORDED} (return a Reason to record one)"


def compose(template: str, *parts: str) -> Reason:
    """``template`` (``str.format`` fields ``{}``) filled with ``parts``: the text with their
    text, the record with their record forms (a plain-text part as ``<reason not recorded>``).

    Example:
        >>> note = Reason("metadata 'classification' is a dict", "metadata label unreadable")
        >>> compose("{}; labels unknown", note).record
        'metadata label unreadable; labels unknown'
    """
    records = (p.record if isinstance(p, Reason) else f"<{NOT_RECORDED}>" for p in parts)
    return Reason(template.format(*parts), template.format(*records))
