"""Tests for the Haystack adapter: in a real Pipeline over an InMemoryDocumentStore and its
retrievers (no pushdown, so there is something to withhold), the prompt a recording generator
receives holds only what the guard allowed, sync and async; no Document passing means the
refusal and no generator call; access comes per run or from guard_access; the component
serialises with its pipeline; each run is published once to the audit log. GuardedRetriever
runs its retriever inside itself, so even content tracing shows no withheld Document."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

import pytest
from haystack import Document, Pipeline
from haystack.components.builders import PromptBuilder
from haystack.components.retrievers.in_memory import (
    InMemoryBM25Retriever,
    InMemoryEmbeddingRetriever,
)
from haystack.document_stores.in_memory import InMemoryDocumentStore

from rag_guard_integrations import Guard, parse_policy
from rag_guard_integrations.core.errors import AdapterConfigError, ArgumentError, RetrievalError
from rag_guard_integrations.data import load_corpus
from rag_guard_integrations.haystack import (
    GuardedDocuments,
    GuardedRetriever,
    guard_access,
    guard_results,
)
from rag_guard_integrations.haystack.testing import RecordingGenerator, RecordingTracer

if TYPE_CHECKING:
    from rag_guard_integrations.embeddings import MiniLMEmbedder

QUESTION = "What is the termination notice period?"
TEMPLATE = "{% for d in documents %}{{ d.content }}\n{% endfor %}Question: {{ query }}"
REFUSAL = "No authorized matching clause found."
REDACT_POLICY = """
version: 1
name: pii
labels: {contact_details: {}}
classifiers: {builtin: {email: contact_details}}
rules:
  - {name: no_contacts, action: redact, trigger: {all_present: [contact_details]}}
"""
CHUNKS = load_corpus("contracts")
TEXT_OF = {c.id: c.text for c in CHUNKS}
TYPE_OF = {c.id: c.metadata["contract_type"] for c in CHUNKS}


def documents() -> list[Document]:
    return [Document(id=c.id, content=c.text, meta=dict(c.metadata)) for c in CHUNKS]


def store_of(docs: list[Document]) -> InMemoryDocumentStore:
    store = InMemoryDocumentStore()
    store.write_documents(docs)
    return store


def pipeline(retriever: Any, guard: GuardedDocuments) -> tuple[Pipeline, RecordingGenerator]:
    """retriever -> guard -> prompt builder (documents required) -> recording generator."""
    generator = RecordingGenerator()
    p = Pipeline()
    p.add_component("retriever", retriever)
    p.add_component("guard", guard)
    p.add_component("prompt", PromptBuilder(TEMPLATE, required_variables=["documents"]))
    p.add_component("llm", generator)
    p.connect("retriever.documents", "guard.documents")
    p.connect("guard.documents", "prompt.documents")
    p.connect("prompt.prompt", "llm.prompt")
    return p, generator


def bm25_pipeline(**guard_args: Any) -> tuple[Pipeline, RecordingGenerator]:
    retriever = InMemoryBM25Retriever(store_of(documents()), top_k=40)
    return pipeline(retriever, GuardedDocuments("contracts", **guard_args))


def inputs(access: object = None, *, with_access: bool = True) -> dict[str, Any]:
    guard: dict[str, Any] = {"query": QUESTION}
    if with_access:
        guard["access"] = access
    return {"retriever": {"query": QUESTION}, "guard": guard, "prompt": {"query": QUESTION}}


def types_in(prompt: str) -> set[str]:
    return {TYPE_OF[i] for i, text in TEXT_OF.items() if text in prompt}


def withheld_in(prompt: str, allowed: str) -> list[str]:
    return [i for i, text in TEXT_OF.items() if text in prompt and TYPE_OF[i] != allowed]


def test_the_prompt_holds_only_the_callers_documents() -> None:
    """Over a BM25 retriever that returns every contract type, the generator's prompt holds
    the caller's MSA clauses and no withheld text."""
    p, generator = bm25_pipeline()
    p.run(inputs({"principal": "alice", "contract_type": ["MSA"]}))
    (prompt,) = generator.prompts
    assert types_in(prompt) == {"MSA"}
    assert withheld_in(prompt, "MSA") == []


def test_run_async_sends_the_same_prompt() -> None:
    """``Pipeline.run_async`` goes through ``run_async`` and the same orchestration: the same
    prompt reaches the generator."""
    p, generator = bm25_pipeline()
    p.run(inputs({"contract_type": ["SOW"]}))
    asyncio.run(p.run_async(inputs({"contract_type": ["SOW"]})))
    first, second = generator.prompts
    assert first == second
    assert types_in(first) == {"SOW"}


def test_with_nothing_allowed_the_refusal_is_the_answer_and_no_prompt_is_built() -> None:
    """A caller with no access gets the policy's refusal as the guard's output; the prompt
    builder and the generator never run."""
    p, generator = bm25_pipeline()
    out = p.run(inputs({}))
    assert out == {"guard": {"refusal": REFUSAL}}
    assert generator.prompts == []


def test_an_off_topic_query_is_refused_by_the_domain_guard() -> None:
    """A query the domain guard rejects gets its refusal, whatever the caller may see."""
    p, generator = bm25_pipeline()
    off = "Which pizza place delivers after midnight?"
    out = p.run(
        {
            "retriever": {"query": off},
            "guard": {"query": off, "access": {"contract_type": ["MSA"]}},
            "prompt": {"query": off},
        }
    )
    assert set(out) == {"guard"}
    assert out["guard"]["refusal"] != ""
    assert generator.prompts == []


def test_access_comes_from_the_run_else_the_block_else_the_component() -> None:
    """The run's ``access`` input comes first, then a ``guard_access`` block, then the
    component's default."""
    p, generator = bm25_pipeline(access={"contract_type": ["NDA"]})
    p.run(inputs(with_access=False))
    with guard_access({"contract_type": ["DPA"]}):
        p.run(inputs(with_access=False))
        p.run(inputs({"contract_type": ["MSA"]}))
    assert [types_in(prompt) for prompt in generator.prompts] == [{"NDA"}, {"DPA"}, {"MSA"}]


def test_a_pinned_access_is_only_narrowed() -> None:
    """With ``pin_access=True`` a run's access keeps only what the pinned access allows."""
    p, generator = bm25_pipeline(access={"contract_type": ["MSA", "SOW"]}, pin_access=True)
    p.run(inputs({"contract_type": ["SOW", "NDA"]}))
    (prompt,) = generator.prompts
    assert types_in(prompt) == {"SOW"}


def test_pinning_without_an_access_is_refused() -> None:
    """``pin_access=True`` with no access to pin is a one-line error naming the fix."""
    with pytest.raises(AdapterConfigError, match="pin_access=True but no access to pin"):
        GuardedDocuments("contracts", pin_access=True)


def test_an_embedding_retriever_with_minilm_vectors(embedder: MiniLMEmbedder) -> None:
    """Over an InMemoryEmbeddingRetriever with real all-MiniLM-L6-v2 vectors, the prompt holds
    only the caller's contract type."""
    docs = documents()
    vectors = embedder.embed_documents([d.content or "" for d in docs])
    for doc, vector in zip(docs, vectors, strict=True):
        doc.embedding = vector
    retriever = InMemoryEmbeddingRetriever(store_of(docs), top_k=40)
    p, generator = pipeline(retriever, GuardedDocuments(Guard.from_policy("contracts")))
    p.run(
        {
            "retriever": {"query_embedding": embedder.embed_query(QUESTION)},
            "guard": {"query": QUESTION, "access": {"contract_type": ["CHANNEL"]}},
            "prompt": {"query": QUESTION},
        }
    )
    (prompt,) = generator.prompts
    assert types_in(prompt) == {"CHANNEL"}
    assert withheld_in(prompt, "CHANNEL") == []


def test_the_component_and_its_pipeline_round_trip_through_yaml() -> None:
    """``to_dict``/``from_dict`` keep the guard (as policy references) and the access; a
    pipeline loaded from its YAML guards the same way."""
    guard = GuardedDocuments("contracts", access={"contract_type": ["MSA"]}, pin_access=True)
    data = guard.to_dict()
    assert data["init_parameters"]["guard"]["policy"] == ["contracts"]
    again = GuardedDocuments.from_dict(data)
    assert (again.access, again.pin_access) == (guard.access, True)
    p, _ = bm25_pipeline(access={"contract_type": ["SOW"]})
    trusted = [f"rag_guard_integrations.haystack.{name}" for name in ("documents", "testing")]
    loaded = Pipeline.loads(p.dumps(), allowed_modules=trusted)
    generator = RecordingGenerator()
    loaded.remove_component("llm")
    loaded.add_component("llm", generator)
    loaded.connect("prompt.prompt", "llm.prompt")
    loaded.run(inputs(with_access=False))
    (prompt,) = generator.prompts
    assert types_in(prompt) == {"SOW"}


def test_each_run_is_published_once_and_heard_by_guard_results(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """One audit line per run, with a deny decision for every withheld Document; the full
    result reaches a ``guard_results`` block."""
    p, _ = bm25_pipeline()
    with caplog.at_level("INFO", logger="rag_guard_integrations.audit"), guard_results() as got:
        p.run(inputs({"contract_type": ["MSA"]}))
    (line,) = [r for r in caplog.records if r.name == "rag_guard_integrations.audit"]
    rows = line.audit["chunks"]  # type: ignore[attr-defined]
    (result,) = got
    assert len(rows) == len(result.decisions) > 0
    denied = {row["id"] for row in rows if row["decision"] == "deny"}
    assert denied == {d.chunk.id for d in result.denied}
    assert all(TYPE_OF[i] == "MSA" for i in {row["id"] for row in rows} - denied)


def test_a_masked_document_goes_on_as_a_copy() -> None:
    """Under a redact rule the prompt holds the masked text; the caller's Document and the
    store keep the original."""
    policy = parse_policy(REDACT_POLICY)
    original = Document(id="mail", content="Write to canary.leak@example.com today.")
    out = GuardedDocuments(Guard(policy)).run("Who do I write to?", [original])
    (copy,) = out["documents"]
    assert "canary.leak@example.com" not in (copy.content or "")
    assert copy.id == "mail"
    assert original.content == "Write to canary.leak@example.com today."


def test_a_callers_id_holding_the_masked_value_is_masked_in_the_copy() -> None:
    """An id of the caller's own that holds the masked address goes on masked."""
    policy = parse_policy(REDACT_POLICY)
    original = Document(
        id="mail-canary.leak@example.com", content="Write to canary.leak@example.com."
    )
    (copy,) = GuardedDocuments(Guard(policy)).run("Who do I write to?", [original])["documents"]
    assert copy.id == "mail-[CONTACT_DETAILS]"
    assert original.id == "mail-canary.leak@example.com"


def test_an_id_derived_from_the_content_is_derived_again_from_the_masked_copy(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Haystack's default id is a plain sha256 of the content: the masked copy gets one of its
    own, and the audit record names the Document by the guard's keyed hash, never that id."""
    policy = parse_policy(REDACT_POLICY)
    original = Document(content="Write to canary.leak@example.com today.")
    with caplog.at_level("INFO", logger="rag_guard_integrations.audit"):
        out = GuardedDocuments(Guard(policy)).run("Who do I write to?", [original])
    (copy,) = out["documents"]
    assert copy.id != original.id
    assert copy.id == Document(content=copy.content).id
    (line,) = [r for r in caplog.records if r.name == "rag_guard_integrations.audit"]
    assert original.id not in repr(line.audit)  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "access", ["MSA", ["MSA"], {"contract_type": {"MSA": True}}], ids=["str", "list", "nested"]
)
def test_a_failing_check_is_the_refusal_and_never_puts_inputs_in_a_snapshot(access: Any) -> None:
    """A malformed per-run access makes the check fail: the pipeline answers with the refusal
    instead of raising, so no error's pipeline snapshot carries the candidate Documents."""
    p, generator = bm25_pipeline()
    out = p.run(inputs(access))
    assert out["guard"] == {"refusal": REFUSAL}
    assert generator.prompts == []


def test_traces_carry_the_decision_without_text() -> None:
    """With tracing on (content tracing off, Haystack's default), the guard's span carries its
    decision (ids and stages) and no Document text reaches any span."""
    p, _ = bm25_pipeline()
    with RecordingTracer(content=False) as seen:
        p.run(inputs({"contract_type": ["MSA"]}))
    assert any(text.startswith("rag_guard.decision=") for text in seen.texts)
    assert [t for t in seen.texts for text in TEXT_OF.values() if text in t] == []


def retriever_pipeline(**guard_args: Any) -> tuple[Pipeline, RecordingGenerator]:
    """GuardedRetriever(BM25) -> prompt builder -> recording generator."""
    inner = InMemoryBM25Retriever(store_of(documents()))
    generator = RecordingGenerator()
    p = Pipeline()
    p.add_component("retriever", GuardedRetriever(inner, "contracts", top_k=3, **guard_args))
    p.add_component("prompt", PromptBuilder(TEMPLATE, required_variables=["documents"]))
    p.add_component("llm", generator)
    p.connect("retriever.documents", "prompt.documents")
    p.connect("prompt.prompt", "llm.prompt")
    return p, generator


def retriever_inputs(access: object) -> dict[str, Any]:
    return {"retriever": {"query": QUESTION, "access": access}, "prompt": {"query": QUESTION}}


def test_a_guarded_retriever_keeps_candidates_out_of_content_traces() -> None:
    """With content tracing on, no span shows a withheld Document: the inner retriever runs
    inside the component; the prompt holds at most ``top_k`` of the caller's clauses."""
    p, generator = retriever_pipeline()
    with RecordingTracer(content=True) as seen:
        p.run(retriever_inputs({"contract_type": ["MSA"]}))
        asyncio.run(p.run_async(retriever_inputs({"contract_type": ["MSA"]})))
    first, second = generator.prompts
    assert first == second
    assert types_in(first) == {"MSA"}
    assert 0 < sum(text in first for text in TEXT_OF.values()) <= 3
    shown = {i for t in seen.texts for i, text in TEXT_OF.items() if text in t}
    assert shown <= {i for i in TEXT_OF if TYPE_OF[i] == "MSA"}
    assert any("haystack.component.output" in t for t in seen.texts)


def test_with_guarded_documents_content_traces_show_the_retrievers_candidates() -> None:
    """The limit GuardedRetriever removes: after a plain retriever node, Haystack's content
    tracing records that node's unchecked output, withheld Documents included."""
    p, generator = bm25_pipeline()
    with RecordingTracer(content=True) as seen:
        p.run(inputs({"contract_type": ["MSA"]}))
    shown = {i for t in seen.texts for i, text in TEXT_OF.items() if text in t}
    assert {TYPE_OF[i] for i in shown} > {"MSA"}
    assert withheld_in(generator.prompts[0], "MSA") == []


def test_a_guarded_retriever_fetches_nothing_when_nothing_can_pass() -> None:
    """A caller with no access gets the refusal, and the inner retriever is never run."""
    calls: list[dict[str, Any]] = []
    inner = InMemoryBM25Retriever(store_of(documents()))
    original = inner.run

    def counted(**kwargs: Any) -> dict[str, Any]:
        calls.append(kwargs)
        return original(**kwargs)

    guarded = GuardedRetriever(inner, "contracts", top_k=2)
    inner.run = counted  # type: ignore[method-assign]
    assert guarded.run(QUESTION, access={}) == {"refusal": REFUSAL}
    assert calls == []
    guarded.run(QUESTION, access={"contract_type": ["SOW"]})
    assert calls == [{"query": QUESTION, "top_k": 8}]


def test_a_failing_inner_retriever_is_reported_without_its_message() -> None:
    """The inner retriever's error may quote a candidate: the component raises a
    RetrievalError naming only the exception's type."""
    inner = InMemoryBM25Retriever(store_of(documents()))

    def broken(**kwargs: Any) -> dict[str, Any]:
        raise ValueError("cannot parse record: Either party may terminate this Agreement")

    inner.run = broken  # type: ignore[method-assign]
    with pytest.raises(RetrievalError) as caught:
        GuardedRetriever(inner, "contracts").run(QUESTION, access={"contract_type": ["MSA"]})
    assert "ValueError" in str(caught.value)
    assert "terminate" not in str(caught.value)
    assert caught.value.__context__ is None


def test_a_guarded_retriever_round_trips_with_its_inner_retriever() -> None:
    """``to_dict``/``from_dict`` keep the inner retriever, the guard's references and the
    settings."""
    guarded = GuardedRetriever(
        InMemoryBM25Retriever(store_of(documents())), "contracts", top_k=2, fetch_k=10
    )
    again = GuardedRetriever.from_dict(guarded.to_dict())
    assert isinstance(again.retriever, InMemoryBM25Retriever)
    assert (again.top_k, again.fetch_k, again.guard.policy.refs) == (2, 10, ("contracts",))


def test_a_value_that_is_no_component_is_refused() -> None:
    """A document store where a retriever belongs is a one-line error naming the fix."""
    with pytest.raises(AdapterConfigError, match="needs a Haystack retriever component"):
        GuardedRetriever(InMemoryDocumentStore(), "contracts")


class _NoDrafts:
    """A check beside the policy: drafts never pass."""

    name = "no_drafts"

    def __call__(self, chunk: Any, request: Any) -> str | None:
        return "a draft" if chunk.metadata.get("status") == "draft" else None


def test_a_guard_its_references_cannot_rebuild_is_never_loaded_back_looser() -> None:
    """A component whose guard has extra checks or a policy tightened in code stores what its
    references lose, and loading it back is a one-line error, never the plain pack."""
    policy = Guard.from_policy("contracts").policy
    tightened = policy.model_copy(
        update={
            "access": policy.access.model_copy(update={"attributes": ["contract_type", "region"]})
        }
    )
    for guard, lost in (
        (Guard.from_policy("contracts", checks=[_NoDrafts()]), "extra checks"),
        (Guard(tightened), "in-code policy changes"),
    ):
        data = GuardedDocuments(guard, access={"contract_type": ["MSA"]}).to_dict()
        assert lost in data["init_parameters"]["guard"]["lost"]
        with pytest.raises(ArgumentError, match=lost):
            GuardedDocuments.from_dict(data)


def test_a_guard_whose_policy_files_no_longer_load_is_stored_as_lost(tmp_path: Any) -> None:
    """A policy parsed from text, or loaded from a file since removed, cannot be rebuilt
    from its references: storing the component still works and says so; loading it back is
    a one-line error."""
    path = tmp_path / "gone.yaml"
    path.write_text("version: 1\nname: gone\n", encoding="utf-8")
    guard = Guard.from_policy(path)
    path.unlink()
    for each in (guard, Guard(parse_policy("version: 1\nname: inline\n"))):
        data = GuardedDocuments(each).to_dict()
        assert data["init_parameters"]["guard"]["lost"] == ["policy"]
        with pytest.raises(ArgumentError, match="do not hold its policy"):
            GuardedDocuments.from_dict(data)
