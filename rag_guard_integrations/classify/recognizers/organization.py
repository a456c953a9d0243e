"""Organisation names: a legal form or an organisation noun after a proper word, a context
phrase (``work for X``), or the line after a person's in a letter head; no model needed."""

from __future__ import annotations

from rag_guard_integrations.classify.recognizers.recognizer import NameRecognizer

ORGANIZATION = NameRecognizer(name="organization", label="organization", kind="organizations")
"""``Acme Corporation``, ``Healthpocket Inc``, ``Streetcred Software``, ``I work for Wolters
Kluwer``. See :mod:`~rag_guard_integrations.classify.recognizers.proper_names`."""
