"""Tests that the guarded LlamaIndex components behave like any other component: to_dict and
from_dict round trips, pickling and copying (Guard and AccessContext too), JSON schemas, and
unknown constructor arguments refused."""

from __future__ import annotations

import copy
import pickle
from typing import TYPE_CHECKING, Any

import pytest
from llama_index.core.workflow import (
    Context,
    JsonPickleSerializer,
    StartEvent,
    StopEvent,
    Workflow,
    step,
)
from llama_index_support import contracts_index
from pydantic import ValidationError

from rag_guard_integrations import AccessContext, Guard
from rag_guard_integrations.adapters.stored import coerce_guard
from rag_guard_integrations.classify import PatternClassifier
from rag_guard_integrations.core.errors import AdapterConfigError, ArgumentError
from rag_guard_integrations.llama_index import GuardPostprocessor, GuardTagger, guarded_query_engine

if TYPE_CHECKING:
    from rag_guard_integrations.embeddings import MiniLMEmbedder

CLAUSE = "Either party may terminate this Agreement on thirty (30) days' written notice."
META = {"contract_type": "MSA", "clause_id": "TERMINATION_NOTICE"}
QUERY = "What is the termination notice period?"

COPIES = {
    "pickle": lambda value: pickle.loads(pickle.dumps(value)),
    "deepcopy": copy.deepcopy,
    "copy": copy.copy,
}


@pytest.mark.parametrize("how", list(COPIES))
def test_a_guard_copies_and_decides_the_same(how: str) -> None:
    """A pickled or copied guard (RE2 state rebuilt) gives the same decisions."""
    guard = Guard.from_policy("contracts", "default")
    twin = COPIES[how](guard)
    chunks = [
        {"text": CLAUSE, "meta": META},
        {"text": f"{CLAUSE} password=Hunter2Hunter2", "meta": META},
    ]
    access = {"contract_type": ["MSA"]}
    assert twin is not guard
    assert twin.policy == guard.policy
    assert twin.check(QUERY, chunks, access).allowed_indices == (0,)
    assert guard.check(QUERY, chunks, access).allowed_indices == (0,)


@pytest.mark.parametrize("how", list(COPIES))
def test_an_access_context_copies_equal(how: str) -> None:
    """Pickling or copying an AccessContext gives an equal, still immutable context."""
    access = AccessContext(principal="alice", contract_type={"MSA", "SOW"}, region="EU")
    twin = COPIES[how](access)
    assert twin == access
    assert hash(twin) == hash(access)
    with pytest.raises(AttributeError):
        twin.principal = "mallory"  # type: ignore[misc]


class _Keeper(Workflow):
    @step
    async def keep(self, ctx: Context, ev: StartEvent) -> StopEvent:
        await ctx.store.set("access", AccessContext(principal="alice", contract_type={"MSA"}))
        await ctx.store.set("guard", Guard.from_policy("contracts"))
        return StopEvent(result="kept")


async def test_a_workflow_context_holding_guard_and_access_round_trips() -> None:
    """A Workflow ``Context.to_dict()`` holding a Guard and an AccessContext restores both."""
    workflow = _Keeper()
    handler = workflow.run()
    await handler
    serializer = JsonPickleSerializer()
    data = handler.ctx.to_dict(serializer=serializer)  # type: ignore[union-attr]
    restored = Context.from_dict(workflow, data, serializer=serializer)
    assert await restored.store.get("access") == AccessContext(
        principal="alice", contract_type={"MSA"}
    )
    assert (await restored.store.get("guard")).policy.name == "contracts"


def test_postprocessor_pickles_and_deep_copies() -> None:
    """A GuardPostprocessor survives pickle and deepcopy with its guard and access."""
    pp = GuardPostprocessor(guard=Guard.from_policy("contracts"), access={"contract_type": ["MSA"]})
    for twin in (pickle.loads(pickle.dumps(pp)), copy.deepcopy(pp)):
        assert twin.access == pp.access
        assert twin.guard.policy == pp.guard.policy


def test_from_dict_accepts_a_guard_override() -> None:
    """from_dict(data, guard=...) restores a guard with its own classifier or embedder."""
    pp = GuardPostprocessor(guard="contracts")
    custom = Guard.from_policy("contracts", "default")
    assert GuardPostprocessor.from_dict(pp.to_dict(), guard=custom).guard is custom


def test_a_merged_policy_is_rebuilt_from_its_references() -> None:
    """Two merged built-ins round-trip to the same policy and name."""
    guard = Guard.from_policy("contracts", "default")
    pp = GuardPostprocessor(guard=guard)
    rebuilt = GuardPostprocessor.from_json(pp.to_json()).guard
    assert rebuilt.policy == guard.policy
    assert rebuilt.policy.name == "contracts+default"


@pytest.mark.parametrize("component", [GuardPostprocessor, GuardTagger])
def test_model_json_schema_works(component: Any) -> None:
    """model_json_schema() describes the component without failing on Guard or access."""
    schema = component.model_json_schema()
    assert schema["type"] == "object"
    assert schema["additionalProperties"] is False


def test_postprocessor_schema_describes_guard_and_access() -> None:
    """The guard field is an object of policy references; access is an optional mapping."""
    properties = GuardPostprocessor.model_json_schema()["properties"]
    assert properties["guard"]["properties"]["policy"]["type"] == "array"
    assert "object" in properties["access"]["type"]


def test_tagger_round_trips() -> None:
    """GuardTagger's to_dict names its policy; from_dict builds an equal tagger."""
    tagger = GuardTagger(policy="default", batch_size=8)
    data = tagger.to_dict()
    assert data == {"policy": "default", "batch_size": 8, "class_name": "GuardTagger"}
    assert GuardTagger.from_dict(data).to_dict() == data


@pytest.mark.parametrize(
    ("build", "name"),
    [
        (lambda: GuardPostprocessor(guard="contracts", acess={"contract_type": ["MSA"]}), "acess"),
        (lambda: GuardTagger(polcy="default"), "polcy"),
    ],
)
def test_unknown_constructor_arguments_are_refused(build: Any, name: str) -> None:
    """A misspelt argument is an error naming it, never silently ignored."""
    with pytest.raises((ValidationError, AdapterConfigError), match=name):
        build()


@pytest.mark.parametrize("bad", [42, [], [1], {"policy": 3}])
def test_a_guard_given_as_something_else_is_refused(bad: object) -> None:
    """Anything but a Guard or policy references is a one-line error naming the fix."""
    with pytest.raises(ValueError, match=r"Guard\.from_policy"):
        coerce_guard(bad)


def test_guarded_query_engine_refuses_a_misspelt_argument(embedder: MiniLMEmbedder) -> None:
    """``fetchk=`` (for ``fetch_k``) or ``similarity_topk=`` is an error, not silently dropped."""
    index = contracts_index(embedder)
    for wrong, right in (("fetchk", "fetch_k"), ("similarity_topk", "similarity_top_k")):
        with pytest.raises(AdapterConfigError, match=f"'{wrong}'.*'{right}'"):
            guarded_query_engine(index, Guard.from_policy("contracts"), **{wrong: 3})


def test_a_guard_with_its_own_classifier_is_stored_as_lost_and_restored_by_override() -> None:
    """A guard's classifier is not in its policy references: the stored postprocessor says
    so and refuses to load without the guard, then loads with it."""
    guard = Guard.from_policy("default", classifier=PatternClassifier())
    data = GuardPostprocessor(guard=guard).to_dict()
    assert data["guard"]["lost"] == ["classifier"]
    with pytest.raises(ArgumentError, match="classifier"):
        GuardPostprocessor.from_dict(data)
    assert GuardPostprocessor.from_dict(data, guard=guard).guard is guard
