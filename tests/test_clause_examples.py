"""The example clauses the semantic fingerprint is trained on, and the check set beside them:
written for the package, readable, and not taken from the evaluation data."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from rag_guard_integrations import PolicyError, load_policy
from rag_guard_integrations.core.normalize import normalize
from rag_guard_integrations.data.clause_examples import EXAMPLES_DIR, load_examples

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

EXAMPLES = load_examples("contracts")
CHECKS = [json.loads(line) for line in (EXAMPLES_DIR / "checks.jsonl").open(encoding="utf-8")]
POLICY = load_policy("contracts")
CLAUSE_IDS = [c for c, spec in POLICY.clauses.items() if not spec.whole_contract]
# Legal boilerplate recurs word for word across contracts ("shall be governed by and construed
# in accordance with the laws of" is 64 characters), so a copy is a longer run than that.
COPIED = 100  # characters in a row: a sentence taken from the evaluation data
CLOSE = 80  # characters in a row: a check sentence written from an example
STEP = 10


def _runs(text: str, size: int, step: int = 1) -> set[str]:
    """Every ``size``-character run of the normalised text, starting every ``step``."""
    folded = " ".join(normalize(text).split())
    return {folded[i : i + size] for i in range(0, max(1, len(folded) - size + 1), step)}


def _sharing(ours: list[str], theirs: list[str], run: int) -> list[str]:
    """The texts of ``ours`` that share a run of at least ``run`` characters with ``theirs``
    (their runs are sampled every STEP characters, so a window STEP shorter finds it)."""
    sampled = set().union(*(_runs(t, run - STEP, STEP) for t in theirs))
    return [text[:60] for text in ours if _runs(text, run - STEP) & sampled]


@pytest.mark.parametrize("clause_id", CLAUSE_IDS)
def test_every_clause_of_the_pack_has_many_examples(clause_id: str) -> None:
    """Each clause the pack can verify has at least ten example sentences of its own."""
    own = [
        t for t, labels in zip(EXAMPLES.texts, EXAMPLES.labels, strict=True) if clause_id in labels
    ]
    assert len(own) >= 10


def test_other_clause_types_are_there_to_be_told_apart() -> None:
    """Clause types no clause id covers (licence grants, indemnities...) are labelled too."""
    contrast = {label for label in EXAMPLES.label_names if label.islower()}
    assert {"license_grant", "ip_ownership", "liquidated_damages", "notices"} <= contrast
    assert len(contrast) >= 15


def test_shared_sentences_count_for_each_of_their_clauses() -> None:
    """A sentence that is two clauses at once carries both labels."""
    shared = [labels for labels in EXAMPLES.labels if len(labels) > 1]
    assert frozenset({"TERMINATION_NOTICE", "RENEWAL"}) in shared


def test_the_check_set_is_written_apart_from_the_examples() -> None:
    """No check sentence shares 80 characters in a row with an example sentence."""
    assert _sharing([c["text"] for c in CHECKS], list(EXAMPLES.texts), CLOSE) == []


def test_the_check_set_covers_every_clause_and_other_clause_types() -> None:
    """Every clause id has check sentences (by its id or a CUAD category), and so do others."""
    from rag_guard_integrations.evaluation.clauses import is_own

    for clause_id in CLAUSE_IDS:
        assert sum(is_own(clause_id, c["category"]) for c in CHECKS) >= 6
    others = [c for c in CHECKS if not any(is_own(cid, c["category"]) for cid in CLAUSE_IDS)]
    assert len(others) >= 30


def test_nothing_is_taken_from_the_evaluation_data(shared_data: Callable[[str], Path]) -> None:
    """No example or check sentence shares 100 characters in a row with a CUAD excerpt."""
    lines = shared_data("cuad_clauses.jsonl").read_text(encoding="utf-8").splitlines()
    cuad = [json.loads(line)["text"] for line in lines]
    ours = [*EXAMPLES.texts, *(c["text"] for c in CHECKS)]
    assert _sharing(ours, cuad, COPIED) == []


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("- a list\n", "needs a mapping 'examples"),
        ("examples: {A: [x], B: [y]}\nother: 1\n", r"unknown keys \['other'\]"),
        ("examples: {A: [], B: [y]}\n", "examples.A must be a non-empty list"),
        ("examples: {A: [3], B: [y]}\n", r"examples.A\[0\] is not a sentence"),
        ("examples: {A: [x, z]}\n", "at least two labels"),
        ("examples: {A: [x], B: [y]}\nshared: [{labels: [A], texts: [z]}]\n", "two or more"),
        ("examples: {A: [x]\n", "not valid YAML"),
    ],
)
def test_a_malformed_example_file_is_a_policy_error(
    tmp_path: Path, content: str, message: str
) -> None:
    """A broken example file fails loading with its path and what to fix."""
    path = tmp_path / "examples.yaml"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(PolicyError, match=message) as caught:
        load_examples(str(path))
    assert "examples" in str(caught.value)


def test_an_example_set_is_a_bundled_name_or_a_yaml_path(tmp_path: Path) -> None:
    """Another name, or a missing file, is refused with the fix."""
    with pytest.raises(PolicyError, match=r"neither the bundled set 'contracts' nor a \.yaml"):
        load_examples("legal")
    with pytest.raises(PolicyError, match="cannot read"):
        load_examples(str(tmp_path / "missing.yaml"))
