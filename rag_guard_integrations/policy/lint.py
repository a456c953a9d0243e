"""Policy lint: load errors plus consistency problems that are legal YAML but likely mistakes."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rag_guard_integrations.core.errors import PolicyError, PolicyNotFoundError
from rag_guard_integrations.core.labels import UNCLASSIFIED, clean_label
from rag_guard_integrations.policy.loader import load_policy, parse_policy, resolve
from rag_guard_integrations.policy.producible import (
    classifier_rules,
    producible_labels,
    unproducible_label_problems,
)
from rag_guard_integrations.policy.schema import BUILTIN_RECOGNIZER_NAMES, CHECKING_SECTIONS

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from rag_guard_integrations.policy.schema import Policy


def lint(ref: str | Path) -> tuple[Policy | None, list[str]]:
    """Load ``ref`` and return ``(policy, problems)``; the policy is None when it cannot load.

    A policy that ``extends`` one that does not exist has that as its problem.

    Raises:
        PolicyNotFoundError: ``ref`` names no file and no built-in policy: there is nothing
            to lint.
    """
    resolve(ref)  # nothing to lint: raised; a missing pack it extends is its problem
    return _lint(lambda: load_policy(ref), str(ref))


def lint_text(text: str, source: str = "<string>") -> tuple[Policy | None, list[str]]:
    """Like :func:`lint`, for a policy given as YAML text (a notebook cell, a config value)."""
    return _lint(lambda: parse_policy(text, source), source)


def _lint(load: Callable[[], Policy], source: str) -> tuple[Policy | None, list[str]]:
    try:
        policy = load()
    except PolicyNotFoundError as error:  # a pack it extends: the policy's own problem
        return None, [str(error)]
    except PolicyError as error:
        return None, list(error.problems)
    return policy, consistency_problems(policy, source)


def consistency_problems(policy: Policy, source: str) -> list[str]:
    """Labels used but not declared, recognisers that do not exist, policies that check nothing."""
    problems: list[str] = []
    declared = {clean_label(name) for name in policy.labels} | {UNCLASSIFIED}
    if policy.declares_vocabulary:
        # A label nothing produces gets the fuller line below (with the near spelling), once.
        producible = producible_labels(policy)
        problems.extend(
            f"{source}: rules[{index}] ({rule.name}) uses label {label!r} that labels: does not "
            "declare; declare it or fix the spelling"
            for index, rule in enumerate(policy.rules)
            for label in rule.trigger.all_present
            if label not in declared and label in producible
        )
    problems.extend(f"{source}: {problem}" for problem in unproducible_label_problems(policy))
    known = ", ".join(sorted(BUILTIN_RECOGNIZER_NAMES))
    for name, label in policy.classifiers.builtin.items():
        if name not in BUILTIN_RECOGNIZER_NAMES:
            problems.append(
                f"{source}: classifiers.builtin names unknown recogniser {name!r}; use one of "
                f"{known}"
            )
        if policy.declares_vocabulary and clean_label(label) not in declared:
            problems.append(
                f"{source}: classifiers.builtin.{name} gives label {label!r} that labels: does "
                "not declare; declare it"
            )
    if policy.declares_vocabulary:
        problems.extend(
            f"{source}: classifiers.ner.{kind} gives label {label!r} that labels: does not "
            "declare; declare it"
            for kind, label in policy.classifiers.ner.items()
            if clean_label(label) not in declared
        )
    recognised = {clean_label(p.label) for p in policy.classifiers.patterns}
    recognised |= {clean_label(label) for label in policy.classifiers.builtin.values()}
    problems.extend(
        f"{source}: rules[{index}] ({rule.name}) redacts label {label!r} that no recogniser "
        "gives, so its chunks are dropped, not masked; map a recogniser to it or use block"
        for index, rule in enumerate(policy.rules)
        if rule.action == "redact"
        for label in rule.trigger.all_present
        if label not in recognised
    )
    if not any(_configured(policy, name) for name in CHECKING_SECTIONS):
        problems.append(
            f"{source}: the policy checks nothing; add one of {', '.join(CHECKING_SECTIONS)}"
        )
    return problems


def notes(policy: Policy) -> list[str]:
    """What is worth knowing but no mistake: the rules that fire only with a classifier (or
    labels in chunk metadata), because no recogniser gives one of their labels."""
    return classifier_rules(policy)


def _configured(policy: Policy, section: str) -> bool:
    default = type(policy).model_fields[section].get_default(call_default_factory=True)
    return bool(getattr(policy, section) != default)
