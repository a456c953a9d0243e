"""Policy lint: load errors plus consistency problems that are legal YAML but likely mistakes."""

from __future__ import annotations

from pathlib import Path

from rag_guard_integrations.core.errors import PolicyError
from rag_guard_integrations.policy.loader import load_policy
from rag_guard_integrations.policy.schema import Policy


def lint(ref: str | Path) -> tuple[Policy | None, list[str]]:
    """Load ``ref`` and return ``(policy, problems)``; the policy is None when it cannot load."""
    try:
        policy = load_policy(ref)
    except PolicyError as error:
        return None, list(error.problems)
    return policy, consistency_problems(policy, str(ref))


def consistency_problems(policy: Policy, source: str) -> list[str]:
    """Labels used but not declared, recognisers that do not exist, empty packs."""
    from rag_guard_integrations.classify.recognizers import BUILTIN_RECOGNIZERS  # noqa: PLC0415

    problems: list[str] = []
    declared = set(policy.vocabulary) if policy.declares_vocabulary else None
    for index, rule in enumerate(policy.rules):
        for label in rule.trigger.all_present:
            if declared is not None and label not in {*policy.labels, "unclassified"}:
                problems.append(
                    f"{source}: rules[{index}] ({rule.name}) uses label {label!r} that labels: "
                    "does not declare; declare it or fix the spelling"
                )
    for name, label in policy.classifiers.builtin.items():
        if name not in BUILTIN_RECOGNIZERS:
            known = ", ".join(sorted(BUILTIN_RECOGNIZERS))
            problems.append(
                f"{source}: classifiers.builtin names unknown recogniser {name!r}; use one of {known}"
            )
        if declared is not None and label not in policy.labels:
            problems.append(
                f"{source}: classifiers.builtin.{name} gives label {label!r} that labels: does not "
                "declare; declare it"
            )
    if not (policy.rules or policy.clauses or policy.domain or policy.access.attributes):
        problems.append(
            f"{source}: the policy checks nothing; add rules, clauses, domain or access"
        )
    return problems
