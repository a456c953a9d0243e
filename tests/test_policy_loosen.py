"""A file that extends a pack: it refines what it inherits, relaxes a setting only by listing
it under ``loosen``, and changes an inherited rule by name under ``overrides``."""

from __future__ import annotations

from typing import Any

import pytest

from rag_guard_integrations import Guard, PolicyError, load_policy, parse_policy

pytestmark = pytest.mark.unit

CARD = {"text": "Card 4111 1111 1111 1111", "id": "card"}
NAMES = [
    {"text": "Ann Smith", "metadata": {"classification": "person_name"}, "id": f"name{i}"}
    for i in range(2)
]


def loaded(text: str) -> Any:
    return parse_policy(text, "trial.yaml")


def refusal(text: str) -> str:
    """The one-line PolicyError message of parsing ``text`` as trial.yaml."""
    with pytest.raises(PolicyError) as caught:
        loaded(text)
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith("trial.yaml: ")
    return message


# (pack, a looser setting, the key loosen must name)
LOOSER = [
    ("default", "mode: shadow", "mode"),
    ("default", "recognizers: with_classify", "recognizers"),
    ("default", "classify: never", "classify"),
    ("contracts", "on_no_intent: access_only", "on_no_intent"),
    ("default", "on_block: drop_chunks\non_unknown_label: report", None),
    (
        "contracts",
        "access: {attributes: [contract_type], match: {contract_type: any}}",
        "access.match.contract_type",
    ),
    ("bis", "domain: {min_similarity: -1}", "domain.min_similarity"),
    ("bis", "domain: {root_min_similarity: -1}", "domain.root_min_similarity"),
    ("bis", "domain: {root_window: 50}", "domain.root_window"),
    ("bis", "domain: {roots: [pizza]}", "domain.roots"),
    ("bis", "domain: {identifier_keys: [title]}", "domain.identifier_keys"),
    ("bis", "domain: {retriever_scores: cosine}", "domain.retriever_scores"),
    ("bis", "domain: null", "domain"),
    (
        "default",
        "classifiers: {builtin: {credit_card: public_info}}",
        "classifiers.builtin.credit_card",
    ),
    ("contracts", "clauses: {ESCROW: {intents: [escrow]}}", "clauses.ESCROW"),
]


@pytest.mark.parametrize(("pack", "text", "key"), LOOSER)
def test_a_looser_value_in_an_extending_file_names_the_key_to_loosen(
    pack: str, text: str, key: str | None
) -> None:
    """Without loosen, a relaxed setting is a PolicyError naming the key to add; with the key
    listed, the file's value applies."""
    source = f"extends: [{pack}]\n{text}\n"
    if key is None:  # the defaults are no looser than what the pack leaves at its defaults
        loaded(source)
        return
    message = refusal(source)
    assert f"list {key} under loosen" in message
    assert f" {pack}" in message
    policy = loaded(f"{source}loosen: [{key}]\n")
    assert key in policy.loosen


@pytest.mark.parametrize(
    ("pack", "text", "path", "expected"),
    [
        ("bis", "domain: {min_similarity: -1}", "min_similarity", -1),
        ("bis", "domain: {roots: [pizza]}", "roots", ["pizza"]),
        ("bis", "domain: {blocklist: [tarot]}", "blocklist", ["tarot"]),
    ],
)
def test_a_loosened_setting_takes_the_files_value(
    pack: str, text: str, path: str, expected: object
) -> None:
    """Listed under loosen, the file's value replaces the inherited one (a list included)."""
    policy = loaded(f"extends: [{pack}]\nloosen: [domain.{path}]\n{text}\n")
    assert policy.domain is not None
    assert getattr(policy.domain, path) == expected


@pytest.mark.parametrize(
    "text",
    [
        "on_block: raise",
        "classify: always",
        "on_unknown_label: block",
        "domain: {blocklist: [tarot], min_similarity: 0.9}",
        "access: {attributes: [tenant]}",
        "linking: {keys: [case_id]}",
        "no_context_refusal: Nothing you may see answers that.",
        "rules:\n  - {name: trial_rule, trigger: {all_present: [financial]}}",
    ],
)
def test_a_stricter_value_needs_no_loosen(text: str) -> None:
    """Tightening what a pack does, or adding to it, loads without loosen."""
    base = "bis" if text.startswith("domain") else "default"
    loaded(f"extends: [{base}]\n{text}\n")


def test_an_extending_file_adds_to_an_inherited_blocklist() -> None:
    """Without loosen, a list of restrictions grows: the pack's terms stay."""
    policy = loaded("extends: [bis]\ndomain: {blocklist: [tarot]}\n")
    assert policy.domain is not None
    assert {"tarot", "bitcoin"} <= set(policy.domain.blocklist)


def test_the_error_gives_the_line_of_the_looser_value() -> None:
    """The message names the file's line holding the value."""
    message = refusal("extends: [contracts]\nname: trial\non_no_intent: access_only\n")
    assert "(line 3)" in message


def test_an_override_that_weakens_a_rule_needs_loosen() -> None:
    """block -> redact under overrides without the rule in loosen is refused, naming the key."""
    message = refusal(
        "extends: [default]\noverrides: {rules: {default_cardholder: {action: redact}}}\n"
    )
    assert (
        "rules.default_cardholder.action 'redact' is looser than the inherited 'block'" in message
    )
    assert "list rules.default_cardholder.action under loosen" in message


def test_a_rule_overridden_to_redact_masks_instead_of_dropping() -> None:
    """With loosen, the pack's cardholder rule masks the card number instead of dropping it."""
    policy = loaded(
        "extends: [default]\nloosen: [rules.default_cardholder]\n"
        "overrides: {rules: {default_cardholder: {action: redact}}}\n"
    )
    chunks = [CARD, *NAMES]
    dropped = Guard.from_policy("default").check("q", chunks)
    assert [d.allowed for d in dropped.decisions] == [False, True, True]
    masked = Guard(policy).check("q", chunks)
    card = masked.decisions[0]
    assert card.allowed
    assert card.chunk.text == "Card [PAYMENT_CARD]"


def test_a_rule_overridden_to_shadow_records_without_enforcing() -> None:
    """mode: shadow on one inherited rule (loosened) records its verdict and withholds nothing."""
    policy = loaded(
        "extends: [default]\nloosen: [rules.default_cardholder.mode]\n"
        "overrides: {rules: {default_cardholder: {mode: shadow}}}\n"
    )
    result = Guard(policy).check("q", [CARD, *NAMES])
    assert len(result.allowed) == 3
    assert result.shadow is not None
    assert [v.rule for v in result.shadow.violations] == ["default_cardholder"]


def test_an_override_that_strengthens_a_rule_needs_no_loosen() -> None:
    """warn -> block is a tightening: it loads and the rule now withholds."""
    policy = loaded(
        "extends: [default]\noverrides: {rules: {default_contact_directory: {action: block}}}\n"
    )
    rule = next(r for r in policy.rules if r.name == "default_contact_directory")
    assert rule.action == "block"
    assert next(r for r in load_policy("default").rules if r.name == rule.name).action == "warn"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "extends: [default]\noverrides: {rules: {nope: {action: block}}}\n",
            "overrides.rules.nope names no rule of default",
        ),
        ("overrides: {rules: {nope: {action: block}}}\n", "this one extends nothing"),
        ("loosen: [mode]\nmode: shadow\n", "this one extends nothing"),
        (
            "extends: [default]\nloosen: [mode]\n",
            "loosen lists mode, but this file relaxes nothing",
        ),
        (
            "extends: [default]\nloosen: [mode]\nmode: enforce\n",
            "loosen lists mode, but this file relaxes nothing",
        ),
        (
            "extends: [default]\nloosen: [rules]\n"
            "overrides: {rules: {default_cardholder: {action: block}}}\n",
            "loosen lists rules, but this file relaxes nothing",
        ),
        (
            "extends: [default]\nloosen: [on_block]\non_block: raise\n",
            "loosen lists on_block, but this file relaxes nothing",
        ),
        ("extends: [default]\nloosen: [modez]\n", "loosen names 'modez', which is no setting"),
        (
            "extends: [default]\nloosen: [rules.default_cardholder.trigger.x]\n",
            "which is no setting",
        ),
        (
            "extends: [default]\nrules:\n"
            "  - {name: default_cardholder, trigger: {all_present: [a]}}\n",
            "rule 'default_cardholder' is already defined in default; rename it, or change it "
            "under overrides",
        ),
        (
            "extends: [default]\noverrides: {rules: {default_cardholder: {trigger: x}}}\n",
            "unknown key",
        ),
    ],
)
def test_misused_loosen_and_overrides_are_one_line_errors(text: str, expected: str) -> None:
    """An override of no inherited rule, loosen or overrides without extends, a loosen entry
    that relaxes nothing or names no setting, and redefining an inherited rule are errors."""
    assert expected in refusal(text)


def test_a_child_adding_checks_under_an_inherited_shadow_restates_it(tmp_path: Any) -> None:
    """A file that adds checks to a shadow parent without saying shadow itself is refused; said,
    it loads (the parent's checks and its own are recorded, not enforced)."""
    (tmp_path / "parent.yaml").write_text(
        "version: 1\nextends: [default]\nloosen: [mode]\nmode: shadow\n", encoding="utf-8"
    )
    child = tmp_path / "child.yaml"
    child.write_text("extends: [parent.yaml]\naccess: {attributes: [tenant]}\n", encoding="utf-8")
    with pytest.raises(
        PolicyError, match=r"adds checks to .*parent\.yaml, which sets mode: shadow"
    ):
        load_policy(child)
    child.write_text(
        "extends: [parent.yaml]\nmode: shadow\naccess: {attributes: [tenant]}\n", encoding="utf-8"
    )
    assert load_policy(child).mode == "shadow"


def test_extends_of_two_files_merges_them_beside_each_other(tmp_path: Any) -> None:
    """The files one extends list names are merged beside each other (the stricter wins), then
    the file refines the result; shadow over both is said once, with loosen."""
    (tmp_path / "tenant.yaml").write_text("access: {attributes: [tenant]}\n", encoding="utf-8")
    trial = tmp_path / "trial.yaml"
    trial.write_text(
        "extends: [default, tenant.yaml]\nloosen: [mode]\nmode: shadow\n", encoding="utf-8"
    )
    secret = {"text": "tenant b plans", "metadata": {"tenant": "b"}}
    result = Guard.from_policy(trial).check("q", [secret], access={"tenant": ["a"]})
    assert [c.text for c in result.allowed] == ["tenant b plans"]
    assert result.shadow is not None
    assert result.shadow.allowed == []
    enforcing = Guard.from_policy("default", tmp_path / "tenant.yaml")
    assert enforcing.check("q", [secret], access={"tenant": ["a"]}).allowed == []


def test_a_loosened_vocabulary_is_said_label_by_label(tmp_path: Any) -> None:
    """Extending a policy that blocks labels outside its vocabulary, new labels need loosen."""
    (tmp_path / "strict.yaml").write_text(
        "labels: {pay: {}}\non_unknown_label: block\n", encoding="utf-8"
    )
    child = tmp_path / "child.yaml"
    child.write_text("extends: [strict.yaml]\nlabels: {weather: {}}\n", encoding="utf-8")
    with pytest.raises(PolicyError, match=r"list labels\.weather under loosen"):
        load_policy(child)
    child.write_text(
        "extends: [strict.yaml]\nloosen: [labels.weather]\nlabels: {weather: {}}\n",
        encoding="utf-8",
    )
    assert "weather" in load_policy(child).vocabulary


def test_a_texts_change_needs_no_loosen() -> None:
    """Refusal texts and rule messages loosen nothing: an extending file replaces them."""
    policy = loaded(
        "extends: [bis]\nno_context_refusal: Nothing here answers that.\n"
        "domain: {refusal: 'Only standards, please.'}\n"
        "overrides: {rules: {unclassified_content: {message: Withheld.}}}\n"
    )
    assert policy.no_context_refusal == "Nothing here answers that."
    assert policy.domain is not None
    assert policy.domain.refusal == "Only standards, please."
    assert policy.rules[0].message == "Withheld."
