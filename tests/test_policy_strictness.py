"""Policies loaded beside each other: every setting keeps its stricter value, or the load fails
naming the setting and both policies as the user named them."""

from __future__ import annotations

import typing
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from rag_guard_integrations import Guard, PolicyError, load_policy, parse_policy
from rag_guard_integrations.core.errors import Unordered
from rag_guard_integrations.policy.orders import (
    Bound,
    Definition,
    Intersection,
    Keyed,
    Ranked,
    Same,
    Section,
    Text,
    Union,
    UnsetStrictest,
)
from rag_guard_integrations.policy.schema import (
    AccessSpec,
    AclFreshnessSpec,
    ClassifiersSpec,
    DomainSpec,
    KindSpec,
    LabelSpec,
    LinkingSpec,
    Policy,
    RecencySpec,
    RuleSpec,
)
from rag_guard_integrations.policy.strictness import STRICTNESS, STRUCTURAL

if TYPE_CHECKING:
    from pydantic import BaseModel

pytestmark = pytest.mark.unit

SECTIONS: dict[str, type[BaseModel]] = {
    "": Policy,
    "access": AccessSpec,
    "domain": DomainSpec,
    "domain.kinds": KindSpec,
    "recency": RecencySpec,
    "acl_freshness": AclFreshnessSpec,
    "linking": LinkingSpec,
    "classifiers": ClassifiersSpec,
    "labels.*": LabelSpec,
    "rules.*": RuleSpec,
}


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / f"{name}.yaml"
    path.write_text(f"version: 1\nname: {name}\n{text}", encoding="utf-8")
    return path


def refused(*refs: Any) -> str:
    """The one-line message of the PolicyError that loading ``refs`` raises."""
    with pytest.raises(PolicyError) as caught:
        load_policy(*refs)
    message = str(caught.value)
    assert "\n" not in message
    assert "base.yaml" not in message, "an error names a file the user never mentioned"
    return message


@pytest.mark.parametrize("section", SECTIONS)
def test_every_setting_has_an_order_of_strictness(section: str) -> None:
    """Each field of the policy and of its sections is in the strictness table or structural,
    so a new setting cannot merge by accident."""
    prefix = f"{section}." if section else ""
    for field in SECTIONS[section].model_fields:
        path = prefix + field
        assert path in STRICTNESS or (not section and field in STRUCTURAL), path
    for path, order in STRICTNESS.items():
        if isinstance(order, Section) and path:
            assert path in SECTIONS, path


@pytest.mark.parametrize(
    ("order", "a", "b", "strictest"),
    [
        (Ranked(("shadow", "enforce")), "shadow", "enforce", "enforce"),
        (Ranked((True, False)), False, True, False),
        (Bound("highest"), 0.45, -1.0, 0.45),
        (Bound("lowest"), 30.0, 90.0, 30.0),
        (Bound("lowest"), None, None, None),
        (Union(), ["a", "b"], ["c", "a"], ["a", "b", "c"]),
        (Intersection(), ["a", "b"], ["c", "a"], ["a"]),
        (UnsetStrictest(), r"\d+", None, None),
        (Same(), "updated_at", "updated_at", "updated_at"),
        (Definition(), "", "pay and bonuses", "pay and bonuses"),
        (Text(), None, "Ask about contracts.", "Ask about contracts."),
        (Text(), "First.", "Second.", "First."),
    ],
)
def test_each_order_merges_to_the_stricter_value(
    order: Any, a: object, b: object, strictest: object
) -> None:
    """Every kind of order gives the stricter of two values, whichever comes first (texts:
    the first that is set)."""
    assert order.merge(a, b) == strictest
    if not isinstance(order, Text):
        assert order.merge(b, a) == order.merge(a, b) or isinstance(order, Union | Intersection)


@pytest.mark.parametrize(
    ("order", "a", "b"),
    [
        (Same(), "updated_at", "published"),
        (Definition(), "pay", "prices"),
        (Bound("lowest"), None, 0.3),
        (UnsetStrictest(), r"is (\d+)", r"iso (\d+)"),
    ],
)
def test_values_without_an_order_do_not_merge(order: Any, a: object, b: object) -> None:
    """Two values neither of which is stricter raise Unordered (the load then fails)."""
    with pytest.raises(Unordered):
        order.merge(a, b)


# The pack's own value of the setting.
PACK = object()

# (pack, what a file loaded beside it sets, the setting, its value in the merged policy)
TIGHTER_WINS = [
    ("contracts", "on_no_intent: access_only", "on_no_intent", "refuse"),
    ("default", "classify: never", "classify", "fill_missing"),
    ("default", "classify: always", "classify", "always"),
    ("default", "allow_non_text: true", "allow_non_text", False),
    ("default", "on_unknown_label: block", "on_unknown_label", "block"),
    ("default", "on_block: raise", "on_block", "raise"),
    ("bis", "domain: {min_similarity: -1}", "domain.min_similarity", 0.58),
    ("bis", "domain: {root_min_similarity: -1}", "domain.root_min_similarity", PACK),
    ("bis", "domain: {root_window: 50}", "domain.root_window", 6),
    ("bis", "domain: {root_typos: false}", "domain.root_typos", False),
    ("bis", "domain: {roots: [steel, pizza]}", "domain.roots", ["steel"]),
    ("bis", "domain: {blocklist: [bitcoin, tarot]}", "domain.blocklist", "tarot"),
    ("bis", "domain: {signature_terms: []}", "domain.signature_terms", []),
    ("bis", "domain: {identifier_keys: [standard, title]}", "domain.identifier_keys", ["standard"]),
    ("bis", "domain: {roots: [steel]}", "domain.identifier_pattern", None),
    ("contracts", "access: {attributes: [tenant]}", "access.attributes", "tenant"),
    ("default", "linking: {keys: [case_id]}", "linking.keys", "case_id"),
]


def setting(policy: Policy, path: str) -> Any:
    value: Any = policy
    for part in path.split("."):
        value = value[part] if isinstance(value, dict) else getattr(value, part)
    return value


@pytest.mark.parametrize(("pack", "text", "path", "expected"), TIGHTER_WINS)
def test_a_policy_beside_a_pack_never_loosens_it(
    tmp_path: Path, pack: str, text: str, path: str, expected: object
) -> None:
    """Whatever order the two are named in, the merged policy holds the stricter value."""
    trial = write(tmp_path, "trial", text + "\n")
    if expected is PACK:
        expected = setting(load_policy(pack), path)
    for refs in ((pack, trial), (trial, pack)):
        value = setting(load_policy(*refs), path)
        if isinstance(expected, str) and isinstance(value, list):
            assert expected in value
            assert set(setting(load_policy(pack), path)) <= set(value)
        else:
            assert value == expected, refs


def test_match_any_beside_a_pack_keeps_all(tmp_path: Path) -> None:
    """access.match: any for an attribute the pack matches with all stays all."""
    trial = write(
        tmp_path, "trial", "access: {attributes: [contract_type], match: {contract_type: any}}\n"
    )
    for refs in (("contracts", trial), (trial, "contracts")):
        assert load_policy(*refs).access.match_of("contract_type") == "all"
    sharing = write(tmp_path, "sharing", "access: {attributes: [group], match: {group: any}}\n")
    assert load_policy("contracts", sharing).access.match_of("group") == "any"


def test_the_lower_label_threshold_wins_and_an_unset_one_does_not_merge(tmp_path: Path) -> None:
    """Two thresholds for one label keep the lower (more chunks get the label); one set beside
    one left to the classifier is an error naming both policies."""
    low = write(tmp_path, "low", "labels: {pay: {threshold: 0.3}}\n")
    high = write(tmp_path, "high", "labels: {pay: {threshold: 0.6}}\n")
    assert load_policy(high, low).labels["pay"].threshold == 0.3
    unset = write(tmp_path, "unset", "labels: {pay: {description: salaries}}\n")
    message = refused(unset, high)
    assert "labels.pay.threshold" in message
    assert "unset.yaml" in message
    assert "high.yaml" in message


def test_a_recency_window_keeps_the_shorter_age(tmp_path: Path) -> None:
    """Two recency sections keep the shorter maximum age; a policy without one keeps the other's."""
    month = write(tmp_path, "month", "recency: {max_age_days: 30}\n")
    year = write(tmp_path, "year", "recency: {max_age_days: 365}\n")
    merged = load_policy(year, month, "default")
    assert merged.recency is not None
    assert merged.recency.max_age_days == 30


@pytest.mark.parametrize(
    ("pack", "text", "path"),
    [
        ("default", "classifiers: {builtin: {credit_card: public_info}}", "credit_card"),
        ("bis", "domain: {retriever_scores: cosine}", "domain.retriever_scores"),
        ("bis", r"domain: {identifier_pattern: '\b(\d{4})\b'}", "domain.identifier_pattern"),
        ("default", "labels: {financial: {description: weather}}", "labels.financial.description"),
    ],
)
def test_values_without_an_order_fail_the_load_naming_both_policies(
    tmp_path: Path, pack: str, text: str, path: str
) -> None:
    """A recogniser relabelled beside the pack (which would switch its rules off), a different
    score source, identifier pattern or label description: a PolicyError naming the setting,
    the pack by name and the file by path, in either order."""
    trial = write(tmp_path, "trial", text + "\n")
    for refs in ((pack, trial), (trial, pack)):
        message = refused(*refs)
        assert path in message
        assert f" {pack}" in message
        assert str(trial) in message


def test_the_relabelled_card_recogniser_keeps_blocking() -> None:
    """The pack's card rule still fires: a relabelling trial cannot load beside it, and the pack
    blocks a card number together with a cardholder name."""
    card = {"text": "Card 4111 1111 1111 1111", "metadata": {"classification": "person_name"}}
    result = Guard.from_policy("default").check("q", [card])
    assert [v.rule for v in result.violations] == ["default_cardholder"]


@pytest.mark.parametrize("text", ["mode: shadow", "recognizers: with_classify"])
def test_a_switch_off_setting_beside_a_pack_is_refused(tmp_path: Path, text: str) -> None:
    """mode and recognizers never give way silently: a file that sets them beside a pack fails
    to load in either order, naming the setting and both."""
    trial = write(tmp_path, "trial", text + "\n")
    key = text.split(":", maxsplit=1)[0]
    for refs in (("default", trial), (trial, "default")):
        message = refused(*refs)
        assert message.startswith(f"{key} is")
        assert "default" in message
        assert str(trial) in message
        assert "loosen" in message


SHADOW_TRIAL = "extends: [default]\nloosen: [mode]\nmode: shadow\n"


def test_a_shadow_trial_loaded_with_its_pack_is_refused(tmp_path: Path) -> None:
    """A shadow trial that extends default, loaded together with default in either order, is a
    PolicyError (it would otherwise switch the pack's enforcement off, or silently enforce)."""
    trial = write(tmp_path, "trial", SHADOW_TRIAL)
    for refs in (("default", trial), (trial, "default")):
        message = refused(*refs)
        assert "loosens mode on purpose" in message
        assert f"load {trial} alone" in message


def test_a_shadow_trial_alone_records_and_withholds_nothing(tmp_path: Path) -> None:
    """Loaded alone, the trial evaluates the pack and enforces nothing."""
    trial = write(tmp_path, "trial", SHADOW_TRIAL)
    card = {"text": "Card 4111 1111 1111 1111", "metadata": {"classification": "person_name"}}
    result = Guard.from_policy(trial).check("q", [card])
    assert len(result.allowed) == 1
    assert result.shadow is not None
    assert result.shadow.allowed == []


def test_a_shadow_file_cannot_switch_off_another_files_access_check(tmp_path: Path) -> None:
    """An access policy merged with a shadow one is refused instead of enforcing nothing."""
    tenant = write(tmp_path, "tenant", "access: {attributes: [tenant]}\n")
    trial = write(tmp_path, "trial", "mode: shadow\naccess: {attributes: [region]}\n")
    message = refused(tenant, trial)
    assert "mode is 'shadow'" in message
    assert "tenant.yaml" in message


def test_a_value_loosened_on_purpose_cannot_load_beside_the_stricter_one(tmp_path: Path) -> None:
    """A file that extends contracts and loosens on_no_intent, loaded beside contracts, fails:
    the stricter value would silently undo the loosening."""
    trial = write(
        tmp_path,
        "trial",
        "extends: [contracts]\nloosen: [on_no_intent]\non_no_intent: access_only\n",
    )
    assert load_policy(trial).on_no_intent == "access_only"
    message = refused("contracts", trial)
    assert message.startswith("on_no_intent is 'access_only' in")
    assert "loosens on_no_intent on purpose" in message


def test_an_override_loosened_on_purpose_cannot_load_beside_a_pack_sharing_the_rule(
    tmp_path: Path,
) -> None:
    """A rule every pack shares (from the base they all extend) weakened in one file stays a
    PolicyError beside another pack that holds it unweakened."""
    trial = write(
        tmp_path,
        "trial",
        "extends: [default]\nloosen: [rules.unclassified_content]\n"
        "overrides: {rules: {unclassified_content: {action: warn}}}\n",
    )
    message = refused(trial, "finance")
    assert "rules.unclassified_content.action is 'warn'" in message
    assert "finance" in message


def test_one_rule_reached_through_two_packs_merges_as_one() -> None:
    """default and finance both extend base: its rule is merged once, with no error."""
    merged = load_policy("default", "finance")
    assert [r.name for r in merged.rules].count("unclassified_content") == 1


def test_clauses_beside_a_clause_pack_are_refused(tmp_path: Path) -> None:
    """Two policies with different clauses beside each other would let a query ask for either's
    clauses: a PolicyError; contracts beside a pack without clauses loads."""
    extra = write(tmp_path, "extra", "clauses:\n  ESCROW:\n    intents: ['\\bescrow']\n")
    message = refused("contracts", extra)
    assert message.startswith("clauses: contracts and")
    assert "ESCROW" in message
    assert set(load_policy("contracts", "default").clauses) == set(load_policy("contracts").clauses)


VOCABULARY = "labels: {pay: {}, person: {}}\non_unknown_label: block\n"


def test_labels_beside_a_blocking_vocabulary_are_refused(tmp_path: Path) -> None:
    """A policy that blocks labels outside its vocabulary cannot load beside one that declares
    more labels: chunks claiming them would pass."""
    strict = write(tmp_path, "strict", VOCABULARY)
    wider = write(tmp_path, "wider", "labels: {pay: {}, weather: {}}\n")
    message = refused(strict, wider)
    assert "weather" in message
    assert "strict.yaml" in message
    assert "wider.yaml" in message
    same = write(tmp_path, "same", "labels: {pay: {}}\n")
    assert load_policy(strict, same).on_unknown_label == "block"


def test_the_first_policy_named_that_sets_a_text_speaks(tmp_path: Path) -> None:
    """Refusal texts have no order: the first policy named that sets one gives it."""
    tenant = write(tmp_path, "tenant", "access: {attributes: [tenant]}\n")
    assert (
        load_policy(tenant, "hipaa").no_context_refusal == load_policy("hipaa").no_context_refusal
    )
    assert (
        load_policy("contracts", "default").no_context_refusal
        == "No authorized matching clause found."
    )
    assert (
        load_policy("default", "contracts").no_context_refusal
        == load_policy("default").no_context_refusal
    )


def test_a_blank_refusal_is_a_policy_error(tmp_path: Path) -> None:
    """An empty refusal would read as no refusal at all: the load fails naming the key."""
    blank = write(tmp_path, "blank", "no_context_refusal: ''\n")
    with pytest.raises(PolicyError, match="no_context_refusal is empty"):
        load_policy(blank)


def test_every_pack_words_its_own_no_context_refusal() -> None:
    """Each built-in pack has its own refusal; contracts keeps the documented one."""
    packs = ("default", "finance", "hipaa", "gdpr", "bis", "contracts")
    texts = {pack: load_policy(pack).no_context_refusal for pack in packs}
    assert len(set(texts.values())) == len(packs)
    assert texts["contracts"] == "No authorized matching clause found."
    assert all("no_context_refusal" in load_policy(pack).model_fields_set for pack in packs)


def test_the_table_describes_its_orders_with_the_schema_literals() -> None:
    """Each ranked setting lists exactly the values the schema allows."""
    for path, order in STRICTNESS.items():
        if not isinstance(order, Ranked) or "." in path.replace("rules.*.", ""):
            continue
        model: type[BaseModel] = RuleSpec if path.startswith("rules.*.") else Policy
        hint = typing.get_type_hints(model)[path.rsplit(".", 1)[-1]]
        allowed = set(typing.get_args(hint)) or {True, False}
        assert set(order.values) == allowed, path


def test_collections_keyed_by_a_field_name_it() -> None:
    """Rules and patterns merge by name."""
    keyed = {p: o.key for p, o in STRICTNESS.items() if isinstance(o, Keyed) and o.key}
    assert keyed == {"classifiers.patterns": "name", "rules": "name"}


def test_a_parsed_policy_merges_beside_a_pack_like_a_file() -> None:
    """parse_policy output loads beside a pack under the same rules."""
    trial = parse_policy("on_no_intent: access_only\n", "trial.yaml")
    assert load_policy("contracts", trial).on_no_intent == "refuse"
    with pytest.raises(PolicyError, match="mode is 'shadow'"):
        load_policy(parse_policy("mode: shadow\n", "trial.yaml"), "default")


def test_the_docs_merging_table_names_every_setting() -> None:
    """Each setting of the strictness table has its row in the policy page's merging table."""
    page = Path(__file__).resolve().parents[1] / "docs" / "policy.md"
    section = page.read_text(encoding="utf-8").split("## Merging policies", 1)[1]
    section = section.split("\n## ", 1)[0]
    rows = "\n".join(line for line in section.splitlines() if line.startswith("| `"))
    for path, order in STRICTNESS.items():
        if path in {"", "rules.*.name"} or (isinstance(order, Section) and not order.optional):
            continue
        assert f"`{path.replace('*', 'NAME')}`" in rows, path


def test_a_label_spelled_differently_merges_with_the_packs(tmp_path: Path) -> None:
    """Labels are compared as the guard reads them: ``Payment Card`` beside the pack's
    ``payment_card`` is the same label, so its description cannot replace the pack's."""
    trial = write(tmp_path, "trial", "labels: {'Payment Card': {description: nothing at all}}\n")
    message = refused("default", trial)
    assert message.startswith("labels.payment_card.description is")
    merged = load_policy("default", write(tmp_path, "same", "labels: {' Payment  Card': {}}\n"))
    assert merged.labels["payment_card"] == load_policy("default").labels["payment_card"]


SIDE_REDACT = """
rules:
  - name: mask_people
    action: redact
    trigger: {all_present: [person_name]}
"""


@pytest.mark.parametrize("side_first", [True, False])
def test_a_redact_rule_beside_a_pack_never_turns_its_block_into_a_mask(
    tmp_path: Path, side_first: bool
) -> None:
    """A side file's redact rule on a label a pack's block rule also needs does not claim the
    carriers first: in either order the block rule drops the chunks, nothing reaches the model
    masked."""
    side = write(tmp_path, "side", SIDE_REDACT)
    refs = (side, "default") if side_first else ("default", side)
    chunks = [
        {"text": "Customer Nadia Ferreira paid with card 4111 1111 1111 1111 today."},
        {"text": "Nadia Ferreira, SSN 078-05-1120, called about her account."},
    ]
    result = Guard.from_policy(*refs).check("card on file?", chunks)
    assert result.allowed == []
    assert {d.rule for d in result.denied} >= {"default_cardholder"}
    assert result.redacted == {}


KINDS = """
  kinds:
    in_domain: ["what does the standard for this product require"]
    everyday: ["what is the best product to buy"]
    min_margin: -1
    min_similarity: -1
"""
GATE = """
domain:
  roots: [cement, steel]
  root_context: [standard, specification]
  min_similarity: 0.6
"""


def test_a_question_kind_section_beside_a_domain_without_one_is_dropped(tmp_path: Path) -> None:
    """The question-kind tier admits queries: beside a domain without it, in either order,
    the merged domain has none, and a query only the tier would admit is refused."""
    gate = write(tmp_path, "gate", GATE)
    side = write(tmp_path, "side", GATE + KINDS)
    query = "cement: how do I win at poker tonight"
    assert Guard.from_policy(side).check(query, [{"text": "x"}]).query.allowed
    for refs in ((gate, side), (side, gate)):
        assert load_policy(*refs).domain.kinds is None
        assert not Guard.from_policy(*refs).check(query, [{"text": "x"}]).query.allowed


def test_an_extending_file_adds_a_question_kind_section_only_under_loosen(tmp_path: Path) -> None:
    """Adding ``domain.kinds`` to an inherited domain needs ``loosen: [domain.kinds]``."""
    write(tmp_path, "gate", GATE)
    child = "extends: [gate.yaml]\ndomain:" + KINDS
    with pytest.raises(PolicyError, match=r"domain\.kinds.*loosen"):
        load_policy(write(tmp_path, "child", child))
    loosened = child.replace("domain:", "loosen: [domain.kinds]\ndomain:", 1)
    assert load_policy(write(tmp_path, "open", loosened)).domain.kinds is not None


def test_a_loaded_policy_is_named_by_its_file_in_a_merge_error(tmp_path: Path) -> None:
    """A Policy object loaded from a file whose ``name:`` is a pack's is named by its file,
    not by the pack it calls itself."""
    path = tmp_path / "team.yaml"
    path.write_text(
        "version: 1\nname: hipaa\nclassifiers: {builtin: {credit_card: card_number}}\n",
        encoding="utf-8",
    )
    message = refused(load_policy(path), "default")
    assert str(path) in message
    assert "hipaa" not in message
