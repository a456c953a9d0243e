"""Index metadata only adds restrictions: claimed labels never switch recognisers off, blank
labels count as missing, classifier labels are cleaned, and rule labels are checked."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import pytest

from rag_guard_integrations import Chunk, Guard, PolicyError, parse_policy
from rag_guard_integrations.classify.base import Classification
from rag_guard_integrations.policy.lint import lint_text

if TYPE_CHECKING:
    from collections.abc import Sequence

CARD = "Card on file: 4111 1111 1111 1111, expires 09/29."
RECORD = (
    "Patient record: SSN 078-05-1120, card 4111 1111 1111 1111, IBAN GB82 WEST 1234 5698 7654 "
    "32, mail jane@example.com, password: hunter2hunter2, date of birth 1980-01-01, diagnosis "
    "E11.9, MRN: 12345678, balance $12,500."
)
CLEAN = "The quarterly newsletter is out."
BLANKS = [" ", "\u200b", "-", "_", "\u2800", [""], [" ", "\u00ad"], ["-", "  "]]
# Placeholders that exports write for "no label": missing too.
BLANKS += ["none", "None", "NULL", "N/A", "nan", "unknown", "TBD", "0", ["n/a", " "]]
POLICY = """
version: 1
labels:
  payment_card: {description: card numbers}
  public: {description: anything anyone may read}
  credentials: {description: secrets}
classifiers:
  builtin: {credit_card: payment_card}
rules:
  - name: no_cards
    trigger: {all_present: [payment_card]}
  - name: no_credentials
    trigger: {all_present: [credentials]}
"""


class Fixed:
    """A stand-in model classifier answering the same labels for every text."""

    def __init__(self, labels: Sequence[Any]) -> None:
        self.labels = frozenset(labels)
        self.seen: list[str] = []

    def classify(self, text: str) -> Classification:
        return self.classify_many([text])[0]

    def classify_many(self, texts: Sequence[str]) -> list[Classification]:
        self.seen.extend(texts)
        return [Classification(self.labels) for _ in texts]

    async def aclassify_many(self, texts: Sequence[str]) -> list[Classification]:
        return self.classify_many(texts)

    def bind(self, vocabulary: Any) -> Fixed:
        return self


@pytest.mark.parametrize("pack", ["default", "finance", "hipaa", "gdpr"])
@pytest.mark.parametrize(
    "claim",
    [{"classification": "public"}, {"classifications": ["public", "newsletter"]}],
    ids=["public", "list"],
)
@pytest.mark.parametrize("mode", ["sync", "async"])
async def test_a_claimed_label_never_switches_a_packs_recognisers_off(
    pack: str, claim: dict[str, Any], mode: str
) -> None:
    """A record the pack blocks untagged is still blocked when it calls itself public."""
    guard = Guard.from_policy(pack)
    assert guard.check("q", [Chunk(RECORD)]).allowed == []
    chunks = [Chunk(RECORD, claim)]
    result = guard.check("q", chunks) if mode == "sync" else await guard.acheck("q", chunks)
    assert result.allowed == []
    assert {"public", "national_id", "payment_card"} <= result.decisions[0].labels


def test_recognizer_labels_are_unioned_with_metadata_labels() -> None:
    """The chunk keeps its own labels and gains the recognisers' ones."""
    result = Guard(parse_policy(POLICY)).check("q", [Chunk(CARD, {"classification": "public"})])
    assert result.decisions[0].labels == {"public", "payment_card"}


def test_with_classify_restores_trusting_metadata_labels() -> None:
    """``recognizers: with_classify`` makes the recognisers follow ``classify`` again."""
    policy = parse_policy(POLICY + "recognizers: with_classify\n")
    guard = Guard(policy)
    assert guard.classifier is not None
    assert guard.check("q", [Chunk(CARD, {"classification": "public"})]).allowed != []
    assert guard.check("q", [Chunk(CARD)]).allowed == []


def test_model_classifier_keeps_fill_missing_while_recognizers_scan_all() -> None:
    """A model classifier labels only unlabelled chunks; the recognisers still scan every one."""
    model = Fixed(["public"])
    guard = Guard(parse_policy(POLICY), classifier=model)
    result = guard.check("q", [Chunk(CARD, {"classification": "public"}), Chunk(CLEAN)])
    assert model.seen == [CLEAN]
    assert [d.allowed for d in result.decisions] == [False, True]


def test_classify_never_still_runs_the_recognizers() -> None:
    """``classify: never`` turns the attached classifier off, not the recognisers."""
    guard = Guard(parse_policy(POLICY + "classify: never\n"), classifier=Fixed(["public"]))
    assert guard.classifier is None
    assert guard.check("q", [Chunk(CARD, {"classification": "public"})]).allowed == []


@pytest.mark.parametrize("blank", BLANKS)
@pytest.mark.parametrize("key", ["classification", "classifications"])
def test_blank_label_metadata_counts_as_missing(blank: Any, key: str) -> None:
    """A blank label leaves the chunk unlabelled, so the model classifier labels it."""
    model = Fixed(["credentials"])
    guard = Guard(parse_policy(POLICY + "on_unknown_label: block\n"), classifier=model)
    result = guard.check("q", [Chunk("token: abc", {key: blank})])
    assert model.seen == ["token: abc"]
    assert result.allowed == []
    assert result.decisions[0].labels == {"credentials"}


@pytest.mark.parametrize(
    ("answer", "labels"),
    [
        (["Credentials"], {"credentials"}),
        (["  CREDENTIALS "], {"credentials"}),
        (["cred\u200bentials"], {"credentials"}),
        (["ｃｒｅｄｅｎｔｉａｌｓ"], {"credentials"}),
        ([" ", "-"], set()),
        ([7], {"unclassified"}),
    ],
    ids=["capital", "spaces", "zero_width", "full_width", "blank", "not_a_string"],
)
def test_classifier_labels_are_cleaned_like_metadata_labels(
    answer: list[Any], labels: set[str]
) -> None:
    """``Credentials`` from a classifier is the blocked ``credentials`` label."""
    guard = Guard(parse_policy(POLICY), classifier=Fixed(answer))
    result = guard.check("q", [Chunk(CLEAN)])
    assert result.decisions[0].labels == labels
    assert result.decisions[0].allowed is not (labels & {"credentials", "unclassified"})


@pytest.mark.parametrize("blank", ["  ", "\u200b", "-", "_"])
def test_a_blank_trigger_label_is_a_policy_error(blank: str) -> None:
    """``all_present: ['  ']`` does not load, and lint reports it."""
    text = f'version: 1\nrules:\n  - name: r\n    trigger: {{all_present: ["{blank}"]}}\n'
    with pytest.raises(PolicyError, match="blank label"):
        parse_policy(text)
    policy, problems = lint_text(text)
    assert policy is None
    assert any("blank label" in problem for problem in problems)


UNPRODUCIBLE = """
version: 1
classifiers:
  builtin: {email: contact}
rules:
  - name: contact_and_salary
    trigger: {all_present: [contact, salery]}
"""


def test_a_rule_label_nothing_produces_warns_in_lint_and_at_build(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A trigger label no recogniser or declared label gives is a lint problem and a warning."""
    _, problems = lint_text(UNPRODUCIBLE, "p.yaml")
    assert any("'salery'" in p and "contact_and_salary" in p for p in problems)
    assert not any("'contact'" in p for p in problems)
    with caplog.at_level(logging.WARNING):
        Guard(parse_policy(UNPRODUCIBLE))
    assert any("salery" in record.getMessage() for record in caplog.records)


def test_builtin_packs_have_no_unproducible_rule_labels(caplog: pytest.LogCaptureFixture) -> None:
    """Every built-in pack builds without that warning."""
    with caplog.at_level(logging.WARNING):
        for pack in ("default", "finance", "hipaa", "gdpr", "contracts", "bis"):
            Guard.from_policy(pack)
    assert caplog.records == []


JOINED = ["credentials,public", "credentials; public", "public|credentials"]


@pytest.mark.parametrize("joined", JOINED)
def test_labels_joined_in_one_string_are_read_one_by_one(joined: str) -> None:
    """A store that cannot hold lists may join labels with , ; or |: each one counts."""
    guard = Guard(parse_policy(POLICY))
    result = guard.check("q", [Chunk(CLEAN, {"classification": joined})])
    assert result.decisions[0].labels >= {"credentials", "public"}
    assert result.allowed == []
