"""``rag-guard eval domain``: the bis guard measured on its own queries and on CLINC150."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from rag_guard_integrations import load_policy
from rag_guard_integrations.cli import main
from rag_guard_integrations.data import DATA_DIR, load_corpus
from rag_guard_integrations.evaluation.datasets import read_clinc, read_labelled
from rag_guard_integrations.evaluation.domain import (
    TARGET_BLOCK_RATE,
    TARGET_PASS_RATE,
    evaluate,
)
from rag_guard_integrations.guards.domain import TIERS

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

CLINC = "clinc_oos.json"
PRODUCTS = DATA_DIR / "bis_products_queries.jsonl"


@pytest.fixture(scope="module")
def bundled() -> dict[str, object]:
    """The evaluation on the bundled labelled queries."""
    return evaluate("bis")


@pytest.fixture(scope="module")
def clinc(shared_data: Callable[[str], Path]) -> dict[str, object]:
    """The evaluation of the product questions, with CLINC150 as the out-of-domain set."""
    return evaluate("bis", queries_path=str(PRODUCTS), clinc_path=str(shared_data(CLINC)))


def test_bundled_queries_meet_the_targets(bundled: dict[str, object]) -> None:
    """In-domain queries pass at >= 0.97 and the bundled out-of-domain ones are blocked."""
    inside, outside = bundled["in_domain"], bundled["out_of_domain"]
    assert isinstance(inside, dict)
    assert isinstance(outside, dict)
    assert inside["queries"] >= 70
    assert outside["queries"] >= 30
    assert inside["pass_rate"] >= TARGET_PASS_RATE
    assert outside["block_rate"] >= 0.95
    assert len(inside["rejected"]) == inside["queries"] - inside["passed"]


def test_tier_counts_add_up_and_every_tier_is_used(bundled: dict[str, object]) -> None:
    """Per-tier counts sum to the queries; in-domain uses tiers 2-4, out-of-domain tier 1."""
    inside, outside = bundled["in_domain"], bundled["out_of_domain"]
    assert isinstance(inside, dict)
    assert isinstance(outside, dict)
    for part in (inside, outside):
        assert list(part["tiers"]) == list(TIERS)
        assert sum(part["tiers"].values()) == part["queries"]
    assert min(inside["tiers"][t] for t in ("identifier", "root", "dense")) > 0
    assert outside["tiers"]["blocklist"] > 0
    assert outside["tiers"]["identifier"] == 0


def test_clinc_block_rate_meets_the_target(clinc: dict[str, object]) -> None:
    """Every CLINC split is out of domain; at least 99.9 percent of them are refused."""
    outside = clinc["out_of_domain"]
    assert isinstance(outside, dict)
    assert outside["subsets"] == {"oos_test": 1000, "oos_val": 100, "in_scope_test_sample": 300}
    assert outside["queries"] == 1400
    assert outside["block_rate"] >= TARGET_BLOCK_RATE
    assert outside["tiers"]["identifier"] == 0
    assert all(leak["tier"] in {"root", "kind", "dense"} for leak in outside["leaked"])
    assert clinc["targets"] == {"pass_rate": 0.97, "block_rate": 0.999, "met": True}


def test_product_questions_cover_every_family_and_pass(clinc: dict[str, object]) -> None:
    """At least 200 product questions, naming every product family's products, pass >= 0.97."""
    queries = [q.query.casefold() for q in read_labelled(PRODUCTS)]
    assert len(queries) >= 200
    assert all(q.in_domain for q in read_labelled(PRODUCTS))
    families = {str(c.metadata["category"]) for c in load_corpus("bis")}
    assert len(families) >= 10
    inside = clinc["in_domain"]
    assert isinstance(inside, dict)
    assert inside["queries"] == len(queries)
    assert inside["pass_rate"] >= TARGET_PASS_RATE


def test_cli_json(capsys: pytest.CaptureFixture[str]) -> None:
    """``--json`` prints the same record ``evaluate`` returns."""
    assert main(["eval", "domain", "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["policy"] == "bis"
    assert printed["k"] == 5
    spec = load_policy("bis").domain
    assert spec is not None
    assert printed["thresholds"]["root_min_similarity"] == spec.root_min_similarity
    assert printed["thresholds"]["kind_min_margin"] == 0.10
    assert set(printed["in_domain"]) >= {"queries", "passed", "pass_rate", "tiers", "rejected"}
    assert set(printed["out_of_domain"]) >= {"queries", "blocked", "block_rate", "tiers", "leaked"}


def test_cli_table_and_custom_queries(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A labelled file replaces the bundled queries, and the table names both sets."""
    path = tmp_path / "q.jsonl"
    lines = [{"query": "ISI mark for helmets", "in_domain": True},
             {"query": "price of gold today", "in_domain": False}]  # fmt: skip
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    assert main(["eval", "domain", "--queries", str(path)]) == 0
    out = capsys.readouterr().out
    assert "in domain" in out
    assert "out of domain" in out
    assert "1.000" in out


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"query": "x"}\n', "'in_domain' must be true or false"),
        ('{"query": "", "in_domain": true}\n', "'query' must be a non-empty string"),
        ("not json\n", "not valid JSON"),
        ("\n", "no queries"),
    ],
)
def test_bad_query_files_name_the_line(tmp_path: Path, content: str, message: str) -> None:
    """A malformed labelled file is a ValueError naming the file, the line and the fix."""
    path = tmp_path / "bad.jsonl"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ValueError, match=message) as caught:
        read_labelled(path)
    assert str(path) in str(caught.value)


def test_bad_inputs_exit_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Not-CLINC JSON, a policy without a domain and a bad k are one stderr line and exit 2."""
    wrong = tmp_path / "wrong.json"
    wrong.write_text('{"oos_test": []}', encoding="utf-8")
    with pytest.raises(ValueError, match="not a CLINC file"):
        read_clinc(wrong)
    nested = tmp_path / "nested.json"
    nested.write_text('{"oos_test": [[1, 2]], "oos_val": [], "in_scope_test_sample": []}')
    with pytest.raises(ValueError, match=r"oos_test holds \[1, 2\]; each query must be a string"):
        read_clinc(nested)
    empty = tmp_path / "empty.yaml"
    empty.write_text("version: 1\nname: bis\n", encoding="utf-8")
    for args in (["--clinc", str(wrong)], ["--policy", str(empty)], ["--k", "0"]):
        assert main(["eval", "domain", *args]) == 2
        err = capsys.readouterr().err.strip()
        assert err.startswith("rag-guard eval:")
        assert "\n" not in err


EVERYDAY = DATA_DIR / "bis_everyday_queries.jsonl"


def test_families_are_reported_one_by_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Lines that name a family are counted family by family, and the table lists each one."""
    path = tmp_path / "families.jsonl"
    lines = [
        {"query": "ISI mark for helmets", "in_domain": True, "family": "toys"},
        {"query": "how do I train a puppy to sit", "in_domain": True, "family": "toys"},
        {"query": "LPG cylinder hydrostatic test", "in_domain": True, "family": "gas"},
        {"query": "price of gold today", "in_domain": False, "family": "everyday"},
    ]
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    result = evaluate("bis", queries_path=str(path))
    assert result["in_domain"]["families"] == {
        "toys": {"queries": 2, "pass_rate": 0.5},
        "gas": {"queries": 1, "pass_rate": 1.0},
    }
    assert result["out_of_domain"]["families"] == {"everyday": {"queries": 1, "block_rate": 1.0}}
    assert main(["eval", "domain", "--queries", str(path)]) == 0
    out = capsys.readouterr().out
    assert "family" in out
    assert "toys" in out


def test_a_family_that_is_not_a_string_names_the_line(tmp_path: Path) -> None:
    """A non-string family is a ValueError naming the file, the line and the key."""
    path = tmp_path / "bad.jsonl"
    path.write_text('{"query": "x", "in_domain": true, "family": 3}\n', encoding="utf-8")
    with pytest.raises(ValueError, match="'family' must be a string") as caught:
        read_labelled(path)
    assert f"{path}:1" in str(caught.value)


def test_everyday_questions_cover_every_family_and_hold() -> None:
    """The bundled questions as people type them name every product family at least five
    times, with everyday product questions beside them; the guard passes and refuses them."""
    labelled = read_labelled(EVERYDAY)
    families = {str(c.metadata["category"]) for c in load_corpus("bis")}
    counts = {f: sum(q.family == f and q.in_domain for q in labelled) for f in families}
    assert min(counts.values()) >= 5, counts
    assert sum(not q.in_domain for q in labelled) >= 40
    result = evaluate("bis", queries_path=str(EVERYDAY))
    assert result["in_domain"]["pass_rate"] >= 0.93
    assert result["out_of_domain"]["block_rate"] >= 0.98
    assert result["in_domain"]["tiers"]["kind"] > 0
    assert result["out_of_domain"]["tiers"]["everyday"] > 0


FAMILIES_CHECK = DATA_DIR / "bis_families_check_queries.jsonl"


def test_questions_written_after_tuning_pass_in_every_family() -> None:
    """Ten product questions a family, written after the policy was tuned by a writer who saw
    only the catalogue's list of products, pass >= 0.97 overall and >= 0.9 in each family;
    four everyday questions a family about the same products are refused."""
    labelled = read_labelled(FAMILIES_CHECK)
    families = {str(c.metadata["category"]) for c in load_corpus("bis")}
    assert {q.family for q in labelled} == families
    result = evaluate("bis", queries_path=str(FAMILIES_CHECK))
    assert result["in_domain"]["pass_rate"] >= TARGET_PASS_RATE
    by_family = result["in_domain"]["families"]
    assert min(f["pass_rate"] for f in by_family.values()) >= 0.9, by_family
    assert result["out_of_domain"]["block_rate"] >= 0.95
