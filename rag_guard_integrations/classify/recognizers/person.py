"""Personal names: a given and a family name, or a name word beside an honorific or a context
phrase (``Mr. Leiva``, ``customer Jane Roe``, ``Janka M. Szász``); no model needed."""

from __future__ import annotations

from rag_guard_integrations.classify.recognizers.recognizer import NameRecognizer

PERSON = NameRecognizer(name="person", label="pii", kind="persons")
"""``Card on file for customer Jane Roe``: ``Jane Roe``. See
:mod:`~rag_guard_integrations.classify.recognizers.proper_names` for the rules."""
