"""Which labels something can put on a chunk under a policy, the rule labels nothing can, and
the rules that only a classifier (or labels in metadata) can fire: one sentence each, for
lint's problems and notes and the guard's notices alike."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rag_guard_integrations.core.arguments import did_you_mean
from rag_guard_integrations.core.labels import UNCLASSIFIED, clean_label

if TYPE_CHECKING:
    from collections.abc import Iterable

    from rag_guard_integrations.policy.schema import Policy


def producible_labels(policy: Policy, recognizers: Iterable[object] = ()) -> set[str]:
    """Every label something can put on a chunk: the declared labels (a model classifier may
    answer them), the labels ``classifiers.ner`` maps entity types to, the policy's
    recognisers, ``recognizers`` given besides, and ``unclassified``."""
    producible = {clean_label(name) for name in policy.labels} | {UNCLASSIFIED}
    producible.update(clean_label(label) for label in policy.classifiers.ner.values())
    producible.update(clean_label(spec.label) for spec in policy.classifiers.patterns)
    producible.update(clean_label(label) for label in policy.classifiers.builtin.values())
    producible.update(clean_label(getattr(r, "label", "")) for r in recognizers)
    return producible


def unproducible_label_problems(policy: Policy, recognizers: Iterable[object] = ()) -> list[str]:
    """One line for each rule trigger label outside :func:`producible_labels`: such a rule fires
    only on what chunk metadata claims about itself, which is usually a misspelt label.

    Example:
        >>> from rag_guard_integrations import parse_policy
        >>> policy = parse_policy(
        ...     "version: 1\\nlabels: {financial: {}}\\n"
        ...     "rules: [{name: money, trigger: {all_present: [finanical]}}]\\n")
        >>> (problem,) = unproducible_label_problems(policy)
        >>> problem.startswith("rule 'money' triggers on label 'finanical'")
        True
        >>> problem.endswith("; did you mean 'financial'?")
        True
    """
    producible = producible_labels(policy, recognizers)
    return [
        f"rule {rule.name!r} triggers on label {label!r}, which no label declaration, recogniser "
        f"or classifier produces, so it fires only on chunks tagged {label!r} in metadata"
        f"{did_you_mean(label, producible) or '; declare the label or add a recogniser'}"
        for rule in policy.rules
        for label in rule.trigger.all_present
        if label not in producible
    ]


def recognised_labels(policy: Policy, recognizers: Iterable[object] = ()) -> set[str]:
    """The labels a chunk's text alone can get: the policy's recognisers (``patterns`` and the
    built-ins ``builtin`` maps), ``recognizers`` given besides, and ``unclassified``."""
    recognised = {clean_label(spec.label) for spec in policy.classifiers.patterns}
    recognised.update(clean_label(label) for label in policy.classifiers.builtin.values())
    recognised.update(clean_label(getattr(r, "label", "")) for r in recognizers)
    return recognised | {UNCLASSIFIED}


def classifier_rules(policy: Policy, recognizers: Iterable[object] = ()) -> list[str]:
    """One line for each rule that fires only with a classifier or metadata labels: a label
    of its trigger is declared (a classifier may answer it) but no recogniser gives it. (A
    label nothing produces at all is :func:`unproducible_label_problems`' business.)

    Example:
        >>> from rag_guard_integrations import load_policy
        >>> lines = classifier_rules(load_policy("default"))
        >>> any(line.startswith("rule 'default_compensation_employee' needs") for line in lines)
        True
        >>> any("'default_cardholder'" in line for line in lines)
        False
    """
    recognizers = list(recognizers)
    recognised = recognised_labels(policy, recognizers)
    producible = producible_labels(policy, recognizers)
    lines = []
    for rule in policy.rules:
        missing = [
            label
            for label in rule.trigger.all_present
            if label not in recognised and label in producible
        ]
        if missing:
            names = ", ".join(repr(label) for label in missing)
            lines.append(
                f"rule {rule.name!r} needs a classifier (or labels in chunk metadata): no "
                f"recogniser gives {names}"
            )
    return lines
