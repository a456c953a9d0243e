"""Tests for the built-in policy packs: each rule fires on its fixture and stays quiet on near
misses, the packs merge, and unlabelled content is blocked by every built-in.

Fixtures live in ``tests/fixtures/packs/<pack>.yaml``, one entry per rule the pack file defines::

    rule_name:
      fires:                      # a chunk set that triggers the rule
        chunks: [{text: ..., labels: [...], meta: {...}}]   # labels -> classifications
        carriers: [0, 1]          # the chunks the violation or warning lists
        links: [[0, 1, key, value]]   # linked rules: the chain that joined the carriers
        also: [other_rule]        # every other rule expected to fire on the same set
      quiet:                      # near misses: the rule must not fire
        - {why: ..., chunks: [...], also: [...]}
"""

from __future__ import annotations

import functools
import itertools
import socket
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
import yaml

from rag_guard_integrations import Guard, load_policy
from rag_guard_integrations.core.labels import UNCLASSIFIED
from rag_guard_integrations.guards.combination import CombinationGuard, Labelled
from rag_guard_integrations.policy.lint import consistency_problems
from rag_guard_integrations.policy.loader import builtin_dir, builtin_names

if TYPE_CHECKING:
    from rag_guard_integrations import GuardResult, Violation
    from rag_guard_integrations.policy.schema import RuleSpec

COMBINATION_PACKS = ("default", "finance", "hipaa", "gdpr")
PACKS = ("base", *COMBINATION_PACKS)
FIXTURES = Path(__file__).parent / "fixtures" / "packs"
MIN_RULES = {"default": 7, "finance": 6, "hipaa": 6, "gdpr": 6}
CHUNK_KEYS = {"text", "labels", "meta"}


@functools.cache
def fixtures(pack: str) -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((FIXTURES / f"{pack}.yaml").read_text("utf-8"))
    return data


@functools.cache
def guard(pack: str) -> Guard:
    return Guard.from_policy(pack)


def own_rules(pack: str) -> dict[str, RuleSpec]:
    """The rules the pack's own file defines (not those it extends)."""
    raw = yaml.safe_load((builtin_dir() / f"{pack}.yaml").read_text("utf-8"))
    names = {rule["name"] for rule in raw.get("rules", [])}
    return {rule.name: rule for rule in load_policy(pack).rules if rule.name in names}


def as_chunks(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    chunks = []
    for item in items:
        meta = dict(item.get("meta", {}))
        if item.get("labels"):
            meta["classifications"] = list(item["labels"])
        chunks.append({"text": item["text"], "meta": meta})
    return chunks


def fired(result: GuardResult) -> dict[str, Violation]:
    return {v.rule: v for v in (*result.violations, *result.warnings)}


def run(pack: str, items: list[dict[str, Any]]) -> GuardResult:
    result = guard(pack).check("q", as_chunks(items))
    assert not result.unknown_labels, "fixture labels must belong to the pack's vocabulary"
    return result


RULES = [pytest.param(pack, rule, id=rule) for pack in PACKS for rule in fixtures(pack)]
NEAR_MISSES = [
    pytest.param(pack, rule, index, id=f"{rule}-{index}")
    for pack in PACKS
    for rule, spec in fixtures(pack).items()
    for index in range(len(spec["quiet"]))
]
MISSING_LABEL = [
    pytest.param(pack, name, label, id=f"{name}-without-{label}")
    for pack in PACKS
    for name, rule in own_rules(pack).items()
    for label in rule.trigger.all_present
]


@pytest.mark.parametrize("pack", PACKS)
def test_every_rule_of_the_pack_has_fixtures(pack: str) -> None:
    """The fixture file covers exactly the rules the pack defines, each with a near miss, and
    a linked rule's near misses include its labels all present but in unlinked groups."""
    rules = own_rules(pack)
    assert set(fixtures(pack)) == set(rules)
    for name, spec in fixtures(pack).items():
        assert spec["quiet"], f"{name} has no near-miss set"
        for chunk_set in (spec["fires"], *spec["quiet"]):
            for item in chunk_set["chunks"]:
                assert set(item) <= CHUNK_KEYS, f"{name}: unexpected chunk keys {sorted(item)}"
        if rules[name].trigger.scope == "linked":
            wanted = set(rules[name].trigger.all_present)
            assert any(
                wanted <= {label for item in q["chunks"] for label in item.get("labels", [])}
                for q in spec["quiet"]
            ), f"{name} needs a near miss with every label present but unlinked"


@pytest.mark.parametrize(("pack", "name"), RULES)
def test_rule_fires_on_its_fixture(pack: str, name: str) -> None:
    """The rule fires with the expected action, carriers and link chain, and exactly the
    listed other rules fire beside it; a warn-only set stays safe and loses no chunk."""
    spec = fixtures(pack)[name]["fires"]
    rule = own_rules(pack)[name]
    result = run(pack, spec["chunks"])
    found = fired(result)
    assert set(found) == {name, *spec.get("also", [])}
    violation = found[name]
    assert violation.action == rule.action
    assert violation.message == rule.message
    assert list(violation.chunk_indices) == spec["carriers"]
    links = [[lk.a, lk.b, lk.key, lk.value] for lk in violation.links]
    assert links == spec.get("links", [])
    assert bool(links) == (rule.trigger.scope == "linked")
    if rule.action == "block":
        assert not result.is_safe
        assert violation in result.violations
        assert not guard(pack).check("q", result.allowed).violations
    if all(v.action == "warn" for v in found.values()):
        assert result.is_safe
        assert len(result.allowed) == len(spec["chunks"])


@pytest.mark.parametrize(("pack", "name", "index"), NEAR_MISSES)
def test_rule_stays_quiet_on_a_near_miss(pack: str, name: str, index: int) -> None:
    """On a near-miss set the rule does not fire, and only the listed other rules do."""
    spec = fixtures(pack)[name]["quiet"][index]
    found = fired(run(pack, spec["chunks"]))
    assert name not in found, spec["why"]
    assert set(found) == set(spec.get("also", []))


@pytest.mark.parametrize(("pack", "name", "label"), MISSING_LABEL)
def test_rule_stays_quiet_without_one_trigger_label(pack: str, name: str, label: str) -> None:
    """Taking any one trigger label off the firing set silences the rule."""
    items = []
    for item in fixtures(pack)[name]["fires"]["chunks"]:
        labels = [other for other in item.get("labels", []) if other != label]
        if item.get("labels") and not labels:
            continue  # the chunk carried only that label: it leaves the set
        items.append({**item, "labels": labels})
    assert name not in fired(run(pack, items))


@pytest.mark.parametrize("pack", COMBINATION_PACKS)
def test_pack_is_well_formed(pack: str) -> None:
    """Each pack extends base, is lint-clean, names its rules after itself, has enough rules,
    a warn rule and a linked rule with linking keys, and describes every label it uses."""
    policy = load_policy(pack)
    rules = own_rules(pack)
    assert [Path(s).stem for s in policy.sources] == ["base", pack]
    assert consistency_problems(policy, pack) == []
    assert len(rules) >= MIN_RULES[pack]
    assert all(name.startswith(f"{pack}_") and rule.message for name, rule in rules.items())
    assert any(rule.action == "warn" for rule in rules.values())
    assert any(rule.trigger.scope == "linked" for rule in rules.values())
    assert policy.linking.keys
    used = {label for rule in rules.values() for label in rule.trigger.all_present}
    used |= set(policy.classifiers.builtin.values())
    assert all(policy.labels[label].description for label in used)


@pytest.mark.parametrize(("first", "second"), list(itertools.combinations(COMBINATION_PACKS, 2)))
def test_shared_labels_mean_the_same_in_every_pack(first: str, second: str) -> None:
    """A label two packs both declare has one description, and a recogniser both map gives the
    same label, so merging packs never changes what a label means."""
    a, b = load_policy(first), load_policy(second)
    for label in set(a.labels) & set(b.labels):
        assert a.labels[label] == b.labels[label], label
    for name in set(a.classifiers.builtin) & set(b.classifiers.builtin):
        assert a.classifiers.builtin[name] == b.classifiers.builtin[name], name


@pytest.mark.parametrize(("first", "second"), list(itertools.combinations(builtin_names(), 2)))
def test_builtins_merge_pairwise(first: str, second: str) -> None:
    """Any two built-ins merge into a working guard holding both packs' rules, base once."""
    merged = load_policy(first, second)
    Guard(merged)
    names = [rule.name for rule in merged.rules]
    expected = [rule.name for ref in (first, second) for rule in load_policy(ref).rules]
    assert sorted(names) == sorted(set(expected))
    assert [Path(s).stem for s in merged.sources].count("base") == min(
        1, names.count("unclassified_content")
    )


def test_all_combination_packs_merge_at_once() -> None:
    """default, finance, hipaa and gdpr load together: rule names are unique across packs."""
    merged = load_policy(*COMBINATION_PACKS)
    assert len(merged.rules) == 1 + sum(len(own_rules(pack)) for pack in COMBINATION_PACKS)


@pytest.mark.parametrize("name", builtin_names())
def test_every_builtin_blocks_unclassified_content(name: str) -> None:
    """Every built-in policy has a block rule that fires on a chunk labelled unclassified."""
    combination = CombinationGuard.from_policy(load_policy(name))
    assert combination is not None, f"{name} has no combination rules; extend base"
    outcome = combination([Labelled(0, frozenset({UNCLASSIFIED}))])
    assert [v.rule for v in outcome.violations] == ["unclassified_content"]
    assert dict(outcome.removed) == {0: "unclassified_content"}


@pytest.fixture(scope="module")
def unreachable_llm() -> Any:
    """A real ChatOllama pointed at a local port nothing listens on."""
    from langchain_ollama import ChatOllama

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return ChatOllama(model="llama3.2", base_url=f"http://127.0.0.1:{port}")


@pytest.mark.parametrize("pack", COMBINATION_PACKS)
def test_chunk_a_classifier_failed_on_is_blocked(pack: str, unreachable_llm: Any) -> None:
    """When the LLM classifier cannot be reached the untagged chunk is unclassified and
    withheld, while a chunk tagged in metadata is judged on its own labels."""
    from rag_guard_integrations.classify import LLMClassifier

    classifier = LLMClassifier(unreachable_llm, timeout=5, retries=0)
    checked = Guard.from_policy(pack, classifier=classifier)
    chunks = [
        {"text": "Notes from the quarterly planning meeting."},
        {"text": "Opening hours", "meta": {"classifications": ["public"]}},
    ]
    result = checked.check("q", chunks)
    failed, tagged = result.decisions
    assert not failed.allowed
    assert failed.rule == "unclassified_content"
    assert "could not be classified" in failed.reason
    assert "classifier" in failed.reason
    assert tagged.allowed


@pytest.mark.parametrize("pack", PACKS)
def test_malformed_label_metadata_is_blocked(pack: str) -> None:
    """Label metadata that cannot be read makes the chunk unclassified, and the pack blocks it."""
    result = guard(pack).check("q", [{"text": "Opening hours", "meta": {"classifications": [7]}}])
    assert [v.rule for v in result.violations] == ["unclassified_content"]
    assert result.allowed == []


UNTAGGED = [
    pytest.param(
        "default",
        "Refund to IBAN GB82 WEST 1234 5698 7654 32, receipt to jane.doe@example.com.",
        {"bank_account", "contact_details"},
        {"default_account_holder_contact", "default_contact_directory"},
        id="default-iban-email",
    ),
    pytest.param(
        "finance",
        "Wire from account 004417723; holder SSN 078-05-1120.",
        {"bank_account", "national_id"},
        {"finance_account_with_national_id"},
        id="finance-account-ssn",
    ),
    pytest.param(
        "hipaa",
        "MRN: 00482913. Diagnosis: E11.9 type 2 diabetes.",
        {"medical_record_number", "health_condition"},
        {"hipaa_health_mrn", "hipaa_mrn_name", "hipaa_health_name"},
        id="hipaa-mrn-icd10",
    ),
    pytest.param(
        "gdpr",
        "SSN 078-05-1120, contact jane.doe@example.com.",
        {"national_id", "contact_details"},
        {"gdpr_national_id_contact"},
        id="gdpr-ssn-email",
    ),
]


@pytest.mark.parametrize(("pack", "text", "labels", "rules"), UNTAGGED)
def test_untagged_text_is_labelled_through_the_pack_mapping(
    pack: str, text: str, labels: set[str], rules: set[str]
) -> None:
    """The built-in recognisers label untagged text with the pack's own labels, and those
    labels fire the pack's rules (with a name tagged in metadata next to it)."""
    named = {"text": "Customer: Jane Doe.", "meta": {"classifications": ["person_name"]}}
    result = guard(pack).check("q", [{"text": text}, named])
    assert result.decisions[0].labels == labels
    assert set(fired(result)) == rules


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("db: postgres://app:Sup3rS3cret@db.internal/orders", True),
        ("aws_access_key_id = AKIAIOSFODNN7EXAMPLE", True),
        ("-----BEGIN RSA PRIVATE KEY-----\nMIIEow...", True),
        ("token ghp_" + "a1B2" * 9, True),
        ('client_secret: "9f8e7d6c5b4a"', True),
        ("Rotate database passwords every quarter.", False),
        ("Password: see the vault.", False),
        ("Docs live at https://docs.example.com/setup", False),
    ],
)
def test_default_pack_finds_secrets_in_untagged_text(text: str, secret: bool) -> None:
    """The default pack's secret patterns label untagged credentials, and only those."""
    result = guard("default").check("q", [{"text": text}])
    assert ("credentials" in result.decisions[0].labels) is secret
    assert ("default_credentials" in fired(result)) is secret
