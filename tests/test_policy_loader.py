"""Tests for policy loading: schema errors name file, key path, line and fix; extends merge."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from rag_guard_integrations import PolicyError, PolicyNotFoundError, load_policy, parse_policy
from rag_guard_integrations.policy import schema
from rag_guard_integrations.policy.loader import MAX_YAML_NODES, builtin_names

if TYPE_CHECKING:
    from pathlib import Path


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


RULE = """
rules:
  - name: r1
    trigger: {all_present: [a, b]}
"""


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("version: 1\nrulez: []\n", "rulez is an unknown key (line 2); remove it"),
        (
            "rules:\n  - name: r\n    trigger:\n      all_present: []\n",
            "rules[0].trigger.all_present is empty (line 4); list at least one label",
        ),
        ("rules:\n  - trigger: {all_present: [a]}\n", "rules[0].name is missing (line 2)"),
        (
            "rules:\n  - name: r\n    action: blok\n    trigger: {all_present: [a]}\n",
            "rules[0].action is 'blok' (line 3); use one of 'block', 'warn' or 'redact'",
        ),
        (
            "domain:\n  min_similarity: 1.5\n",
            "domain.min_similarity must be between -1 and 1, got 1.5 (line 2)",
        ),
        (
            "clauses:\n  X:\n    intents: ['(a)\\1']\n",
            "clauses.X.intents[0] is not a pattern RE2 can run",
        ),
        (
            "clauses:\n  X:\n    intents: ['ok']\n    fingerprint: '(?<=a)b'\n",
            "clauses.X.fingerprint is not a pattern RE2 can run",
        ),
        ("version: 2\n", "version is 2 (line 1); use one of 1"),
        ("rules: {a: 1}\n", "rules is a dict"),
        (RULE + "  - name: r1\n    trigger: {all_present: [c]}\n", "'r1' is defined twice"),
        ("a: [1, 2\n", "not valid YAML"),
        ("", "the policy is empty"),
        ("- just\n- a list\n", "the policy must be a mapping"),
        ("rules: []\nrules: []\n", "key 'rules' appears twice in one mapping (line 2)"),
    ],
)
def test_policy_error_names_file_path_and_fix(tmp_path: Path, text: str, expected: str) -> None:
    """Every kind of policy error is one line naming the file, the key path and the fix."""
    path = write(tmp_path, "bad.yaml", text)
    with pytest.raises(PolicyError) as caught:
        load_policy(path)
    message = str(caught.value)
    assert message.startswith(str(path)), message
    assert expected in message
    assert "\n" not in message


def test_yaml_alias_bomb_is_refused_quickly(tmp_path: Path) -> None:
    """Nested aliases that expand past the node limit are refused before validation."""
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 9)]
    path = write(tmp_path, "bomb.yaml", "\n".join(lines) + "\n")
    with pytest.raises(PolicyError, match=f"more than {MAX_YAML_NODES} nodes"):
        load_policy(path)


def test_missing_file_is_a_file_not_found_error(tmp_path: Path) -> None:
    """A missing policy path raises PolicyNotFoundError, which is also a FileNotFoundError."""
    with pytest.raises(FileNotFoundError, match="no such policy file"):
        load_policy(tmp_path / "nope.yaml")


def test_unknown_builtin_lists_the_choices() -> None:
    """An unknown bare name names the built-ins to choose from."""
    with pytest.raises(PolicyNotFoundError, match="not a built-in policy; use one of"):
        load_policy("no_such_pack")


def test_extends_merges_sections_in_order(tmp_path: Path) -> None:
    """A file's extends load first; lists and rules add up, scalars come from the later file."""
    write(tmp_path, "base.yaml", "access: {attributes: [tenant]}\non_block: empty\n" + RULE)
    sub = tmp_path / "sub"
    sub.mkdir()
    child = write(
        sub,
        "child.yaml",
        "extends: [../base.yaml]\naccess: {attributes: [region]}\non_block: raise\n"
        "rules:\n  - name: r2\n    action: warn\n    trigger: {all_present: [c]}\n",
    )
    policy = load_policy(child)
    assert policy.access.attributes == ["tenant", "region"]
    assert [r.name for r in policy.rules] == ["r1", "r2"]
    assert policy.on_block == "raise"
    assert len(policy.sources) == 2


def test_diamond_extends_loads_shared_file_once(tmp_path: Path) -> None:
    """Two policies extending the same base merge without a duplicate-rule error."""
    write(tmp_path, "base.yaml", RULE)
    a = write(tmp_path, "a.yaml", "extends: [base.yaml]\n")
    b = write(tmp_path, "b.yaml", "extends: [base.yaml]\n")
    assert [r.name for r in load_policy(a, b).rules] == ["r1"]


def test_extends_cycle_is_an_error_that_says_cycle(tmp_path: Path) -> None:
    """A policy that extends itself through another file is refused with the chain."""
    write(tmp_path, "a.yaml", "extends: [b.yaml]\n")
    write(tmp_path, "b.yaml", "extends: [a.yaml]\n")
    with pytest.raises(PolicyError, match=r"extends cycle a\.yaml -> b\.yaml -> a\.yaml"):
        load_policy(tmp_path / "a.yaml")


def test_same_rule_in_two_sources_is_an_error(tmp_path: Path) -> None:
    """The same rule name defined in two merged files names both files."""
    a = write(tmp_path, "a.yaml", RULE)
    b = write(tmp_path, "b.yaml", RULE)
    with pytest.raises(PolicyError, match="rule 'r1' is already defined in"):
        load_policy(a, b)


def test_parse_policy_reads_inline_yaml() -> None:
    """A policy given as text validates like a file."""
    policy = parse_policy("version: 1\n" + RULE)
    assert policy.rules[0].trigger.all_present == ["a", "b"]
    assert "unclassified" in policy.vocabulary


def test_trigger_labels_are_cleaned() -> None:
    """Trigger labels are case-folded and squeezed like metadata labels."""
    policy = parse_policy("rules:\n  - name: r\n    trigger: {all_present: [' Financial Data ']}\n")
    assert policy.rules[0].trigger.all_present == ["financial_data"]


def test_every_builtin_loads_by_name() -> None:
    """Each built-in policy shipped with the package loads by its bare name."""
    names = builtin_names()
    assert {"default", "finance", "hipaa", "gdpr", "contracts", "bis"} <= set(names)
    for name in names:
        assert load_policy(name).sources


def test_every_setting_is_described_in_the_json_schema() -> None:
    """Policy.model_json_schema() describes each field of the policy and its sections, loosen
    and overrides included (editors show the descriptions)."""
    models = ("Policy", "AccessSpec", "DomainSpec", "RecencySpec", "LinkingSpec")
    models += ("ClassifiersSpec", "PatternSpec", "LabelSpec", "TriggerSpec", "RuleSpec")
    models += ("RuleOverride", "OverridesSpec")
    definitions = schema.Policy.model_json_schema()["$defs"]
    for name in models:
        properties = (schema.Policy.model_json_schema() if name == "Policy" else definitions[name])[
            "properties"
        ]
        undescribed = [field for field, spec in properties.items() if not spec.get("description")]
        assert undescribed == [], name
    assert "loosen" in schema.Policy.model_json_schema()["properties"]
