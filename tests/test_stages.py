"""The engine's stage list: one ordered list, each stage declaring its section, its per-request
part, its per-chunk or query part and its pushdown contribution; the engine names none."""

from __future__ import annotations

import ast
import pickle
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from rag_guard_integrations import Guard, parse_policy
from rag_guard_integrations.core.constraints import Allowed
from rag_guard_integrations.core.decisions import QueryDecision
from rag_guard_integrations.engine import stages
from rag_guard_integrations.engine.stages import STAGES, build, set_stage
from rag_guard_integrations.guards.stage import (
    UNCONSTRAINED,
    Part,
    Pushdown,
    Quiet,
    StageSpec,
)
from rag_guard_integrations.policy.loader import load_policy
from rag_guard_integrations.policy.schema import Policy

if TYPE_CHECKING:
    from collections.abc import Sequence

    from rag_guard_integrations.core.chunk import Chunk
    from rag_guard_integrations.core.stage import Request

pytestmark = pytest.mark.unit

ENGINE = Path(stages.__file__).parent


class _Keyword(Quiet):
    """A query stage that rejects any query naming ``word``."""

    name = "keyword"
    refusal = "No."

    def __init__(self, word: str) -> None:
        self.word = word

    def decide(self, part: Part, request: Request, chunks: Sequence[Chunk]) -> QueryDecision:
        if self.word in request.query:
            return QueryDecision(False, "keyword", f"the query names {self.word!r}", refusal="No.")
        return QueryDecision(True, "keyword", "no forbidden word")


class _Region:
    """A chunk stage that reads the caller's region once per request and pushes it down."""

    name = "region"
    reports = None

    def prepare(self, request: Request) -> Part:
        region = request.access.principal if request.access is not None else None
        return Part(region)

    def pushdown(self, part: Part, request: Request) -> Pushdown:
        if part.state is None:
            return UNCONSTRAINED
        return Pushdown({"region": Allowed(frozenset({part.state}))})

    def check_many(self, chunks: Sequence[Chunk], state: Any) -> list[str | None]:
        return [None if c.metadata.get("region") == state else "other region" for c in chunks]


def _with(monkeypatch: pytest.MonkeyPatch, spec: StageSpec) -> None:
    monkeypatch.setattr(stages, "STAGES", (*STAGES, spec))


def test_the_stage_list_orders_every_stage_and_names_its_section() -> None:
    """One explicit list: each entry names its stage, kind and the policy section that
    configures it, the access source first and the set stage last."""
    assert [spec.name for spec in STAGES] == [
        "authz", "non_text", "access", "domain", "clause", "recency", "hint", "combination",
    ]  # fmt: skip
    assert [spec.kind for spec in STAGES].count("set") == 1
    assert STAGES[-1].kind == "set"
    sections = {spec.name: spec.section for spec in STAGES}
    for name in ("domain", "clauses", "recency", "rules", "access", "allow_non_text"):
        assert name in sections.values()
    for spec in STAGES:
        base = spec.section.split(" ")[0]
        assert base.startswith("(") or base in Policy.model_fields, spec


def test_the_engine_names_no_stage() -> None:
    """Outside its stage list, the engine imports no stage of the guards package: only the
    stage protocol and the set stage's result types."""
    stage_names = {spec.name for spec in STAGES}
    for path in ENGINE.glob("*.py"):
        if path.name == "stages.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
                "rag_guard_integrations.guards"
            ):
                for alias in node.names:
                    name = alias.name
                    assert not name.endswith(("Guard", "Stage", "Access")) or name in {
                        "ChunkStage", "QueryStage", "SetStage",
                    }, f"{path.name} imports {name}"  # fmt: skip
            if isinstance(node, ast.Attribute):
                assert node.attr not in stage_names - {"access"}, f"{path.name}: .{node.attr}"


@pytest.mark.parametrize(
    ("text", "names"),
    [
        (
            "version: 1\nname: rules\nrules: [{name: r, trigger: {all_present: [a, b]}}]\n",
            ["non_text", "hint", "combination"],
        ),
        ("version: 1\nname: gate\ndomain: {roots: [steel]}\n", ["non_text", "domain", "hint"]),
        (
            "version: 1\nname: neither\nrecency: {max_age_days: 9}\n",
            ["non_text", "recency", "hint"],
        ),
    ],
)
def test_a_policy_builds_only_the_stages_its_sections_configure(
    text: str, names: list[str]
) -> None:
    """A section the policy leaves out builds no stage: no domain, no query stage, no rules."""
    policy = parse_policy(text)
    assert [stage.name for _, stage in build(policy).ordered] == names
    assert (set_stage(policy) is not None) is ("combination" in names)


def test_a_new_query_stage_needs_no_engine_change(monkeypatch: pytest.MonkeyPatch) -> None:
    """A query stage added to the list rejects queries through the unchanged engine."""
    _with(monkeypatch, StageSpec("keyword", "(none)", "query", lambda p, i: _Keyword("forbidden")))
    guard = Guard(parse_policy("version: 1\nname: gate\nrules: []\n"))
    chunks = [{"text": "Any chunk at all."}]
    rejected = guard.check("a forbidden question", chunks)
    assert (rejected.query.allowed, rejected.query.tier, rejected.refusal) == (
        False,
        "keyword",
        "No.",
    )
    assert [(d.allowed, d.stage) for d in rejected.decisions] == [(False, "keyword")]
    passed = guard.check("an ordinary question", chunks)
    assert passed.query.allowed
    assert len(passed.allowed) == 1


def test_the_first_query_stage_to_reject_decides(monkeypatch: pytest.MonkeyPatch) -> None:
    """After a domain gate that accepts, a later stage can still reject the query."""
    _with(monkeypatch, StageSpec("keyword", "(none)", "query", lambda p, i: _Keyword("forbidden")))
    guard = Guard(load_policy("bis"), identifiers=["IS 2062"])
    assert guard.check("What does IS 2062 cover?", []).query.tier == "identifier"
    assert guard.check("forbidden: what does IS 2062 cover?", []).query.allowed is False


def test_a_new_chunk_stage_brings_its_part_and_its_pushdown(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A chunk stage added to the list reads the request once in the plan, judges chunks with
    that reading and joins the pushdown, with no engine change."""
    _with(monkeypatch, StageSpec("region", "(none)", "chunk", lambda p, i: _Region()))
    guard = Guard.from_policy("default")
    plan = guard.plan("q", {"principal": "EU"})
    assert plan.constraints is not None
    assert dict(plan.constraints) == {"region": Allowed(frozenset({"EU"}))}
    result = guard.check(plan, [{"text": "a", "meta": {"region": "EU"}}, {"text": "b"}])
    assert [(d.allowed, d.stage) for d in result.decisions] == [(True, "passed"), (False, "region")]


def test_a_pickled_guard_keeps_the_collection_identifiers() -> None:
    """Identifiers given to the guard survive pickling (Ray workers receive guards pickled)."""
    guard = Guard(load_policy("bis"), identifiers=["IS 2062"])
    copy = pickle.loads(pickle.dumps(guard))
    query = "What does IS 2062 cover?"
    assert guard.check(query, []).query.tier == copy.check(query, []).query.tier == "identifier"
