"""Mistakes that would otherwise pass silently: an access-controlled policy checked without
access, an access attribute the policy does not declare, a rule label nothing can produce, and
audit hashes keyed with no configured key.

Each becomes a WARNING on the ``rag_guard_integrations`` logger and a line in
``GuardResult.notices``.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from rag_guard_integrations.core.arguments import did_you_mean
from rag_guard_integrations.core.keys import key_notice
from rag_guard_integrations.policy.producible import (
    classifier_rules,
    unproducible_label_problems,
)

if TYPE_CHECKING:
    from rag_guard_integrations.classify.base import Classifier
    from rag_guard_integrations.core.access import AccessContext
    from rag_guard_integrations.core.keys import AuditKey
    from rag_guard_integrations.policy.schema import Policy

logger = logging.getLogger("rag_guard_integrations")
_SAID: set[str] = set()  # notices logged once a process


def policy_notices(policy: Policy, classifier: Classifier | None, key: AuditKey) -> tuple[str, ...]:
    """Rule trigger labels that no label declaration, recogniser or classifier can produce
    (so the rule fires only on chunks tagged with the label in metadata), logged when the guard
    is built, and an audit key the process drew for want of a configured one, logged once a
    process."""
    recognizers = getattr(classifier, "recognizers", None)
    # A model classifier answers with any vocabulary label, declared or not.
    model = classifier is not None and recognizers is None
    if not model and (needing := classifier_rules(policy, recognizers or ())):
        # Expected of a pack used without a classifier: said once, not a warning.
        logger.info(
            "policy %r has no classifier attached, so %d of its rules fire only on labels in "
            "chunk metadata: %s",
            policy.name,
            len(needing),
            "; ".join(needing),
        )
    problems = [] if model else unproducible_label_problems(policy, recognizers or ())
    drawn = key_notice(key)
    if drawn is None:
        return _warn(problems)
    if drawn not in _SAID:  # the process draws one key: said once, kept in every result
        _SAID.add(drawn)
        logger.warning("%s", drawn)
    return (*_warn(problems), drawn)


def request_notices(policy: Policy, access: AccessContext | None) -> tuple[str, ...]:
    """An access-controlled policy given no allowlist at all, and access attributes the
    policy does not declare (with the near spelling); logged for every request."""
    declared = policy.access.attributes
    given = access.allowlists if access is not None else {}
    if not (declared or given):
        return ()
    notices = []
    if declared and not given:
        example = ", ".join(f"{name!r}: [...]" for name in declared)
        notices.append(
            f"policy {policy.name!r} controls access by {', '.join(declared)} but the request "
            f"brought no access, so every chunk is denied; pass access={{{example}}}"
        )
    for name in given:
        if name not in declared:
            known = ", ".join(declared) if declared else "none"
            notices.append(
                f"access names {name!r}, which policy {policy.name!r} does not declare (it "
                f"declares {known}), so that allowlist has no effect{did_you_mean(name, declared)}"
            )
    return _warn(notices)


def _warn(notices: list[str]) -> tuple[str, ...]:
    for notice in notices:
        logger.warning("%s", notice)
    return tuple(notices)
