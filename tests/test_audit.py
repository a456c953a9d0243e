"""Tests for audit record v2: the schema, no text, identity, the audit logger and OTel spans."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import subprocess
import sys
from datetime import datetime
from typing import TYPE_CHECKING, Any

import jsonschema
import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.trace.sampling import Decision, Sampler, SamplingResult

from rag_guard_integrations import AccessContext, Chunk, Guard, GuardResult, QueryDecision
from rag_guard_integrations.classify.base import Classification
from rag_guard_integrations.core.audit import audit_schema, new_request_id
from rag_guard_integrations.core.decisions import ChunkDecision
from rag_guard_integrations.core.reasons import Reason

if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping, Sequence

    from rag_guard_integrations.classify.base import Classifier
    from rag_guard_integrations.policy.schema import LabelSpec

CANARY = "zebra-canary-4417"
QUERY = "What is the termination notice period?"
MSA = Chunk(
    f"Either party may terminate on thirty (30) days' written notice. {CANARY}",
    {"contract_type": "MSA", "clause_id": "TERMINATION_NOTICE"},
    id="msa-1",
)
SOW = Chunk(
    f"The client may terminate this SOW on 45 days' written notice. {CANARY}",
    {"contract_type": "SOW", "clause_id": "TERMINATION_NOTICE"},
)
PAY = Chunk(f"Salary for the role: $120,000 a year. {CANARY}", {"classification": "financial"})
WHO = Chunk(f"Client: Acme Holdings Ltd. {CANARY}", {"classification": "entity_identifier"})


class EchoingClassifier:
    """A classifier whose failures quote the text they were given, as a chatty LLM's do."""

    def classify(self, text: str) -> Classification:
        return Classification.failed(f"unparseable answer for {text!r}")

    def classify_many(self, texts: Sequence[str]) -> list[Classification]:
        return [self.classify(t) for t in texts]

    async def aclassify_many(self, texts: Sequence[str]) -> list[Classification]:
        return self.classify_many(texts)

    def bind(self, vocabulary: Mapping[str, LabelSpec]) -> Classifier:
        return self


class RaisingClassifier(EchoingClassifier):
    """A classifier that raises with the text in its message."""

    def classify_many(self, texts: Sequence[str]) -> list[Classification]:
        raise ValueError(f"cannot label {texts[0]!r}")


def validate(record: dict[str, object]) -> None:
    jsonschema.Draft202012Validator(audit_schema()).validate(record)


@pytest.fixture(scope="module")
def contracts() -> Guard:
    return Guard.from_policy("contracts")


@pytest.fixture(scope="module")
def default() -> Guard:
    return Guard.from_policy("default")


def test_records_validate_against_the_shipped_schema(contracts: Guard, default: Guard) -> None:
    """Allowed, access-denied, clause-denied and rule-blocked records all match schema v2."""
    access = AccessContext("alice", contract_type={"MSA"})
    records = [
        contracts.check(QUERY, [MSA, SOW], access=access).audit(),
        contracts.check("price of bitcoin?", [MSA], access=access).audit(include_query=True),
        default.check("who earns what?", [PAY, WHO]).audit(),
        GuardResult(QueryDecision(), ()).audit(),
    ]
    for record in records:
        validate(record)
    jsonschema.Draft202012Validator.check_schema(audit_schema())


def test_record_carries_request_identity(contracts: Guard) -> None:
    """Principal, access, keyed query hash and key id, policy names and hash, time and a fresh
    request id."""
    access = AccessContext("alice", contract_type={"MSA", "SOW"})
    first = contracts.check(QUERY, [MSA, SOW], access=access).audit()
    second = contracts.check(QUERY, [MSA, SOW], access=access).audit()
    assert first["principal"] == "alice"
    assert first["access"] == {"contract_type": ["MSA", "SOW"]}
    assert first["query"]["hmac"] == contracts.audit_key.digest(QUERY)
    assert first["query"]["hmac"] != hashlib.sha256(QUERY.encode()).hexdigest()
    assert first["key_id"] == contracts.audit_key.id == second["key_id"]
    assert first["policy"]["names"] == ["contracts"]
    assert first["policy"]["sha256"] == second["policy"]["sha256"]
    assert first["request_id"] != second["request_id"]
    assert datetime.fromisoformat(str(first["time"])).tzinfo is not None


def test_policy_hash_changes_with_the_policy() -> None:
    """Two different merged policies have different hashes; the same one loaded twice does not."""
    one = Guard.from_policy("default").check("q", []).audit()["policy"]
    again = Guard.from_policy("default").check("q", []).audit()["policy"]
    other = Guard.from_policy("default", "finance").check("q", []).audit()["policy"]
    assert one == again
    assert other["names"] == ["default", "finance"]
    assert other["sha256"] != one["sha256"]


def test_per_chunk_entries_give_id_hash_decision_stage_rule(
    contracts: Guard, default: Guard
) -> None:
    """Each chunk is named by id and keyed content hash with its decision, stage and rule."""
    record = contracts.check(QUERY, [MSA, SOW], access={"contract_type": ["MSA"]}).audit()
    msa, sow = record["chunks"]
    assert (msa["id"], msa["decision"], msa["stage"]) == ("msa-1", "allow", "passed")
    assert msa["content_hmac"] == contracts.audit_key.digest(MSA.text)
    assert (sow["id"], sow["decision"], sow["stage"]) == (None, "deny", "access")
    blocked = default.check("who earns what?", [PAY, WHO]).audit()
    assert [c["rule"] for c in blocked["chunks"]] == [None, "default_financials_client"]
    assert blocked["rules"][0] == {
        "rule": "default_financials_client",
        "action": "block",
        "enforced": True,
        "chunks": [0, 1],
    }


def test_record_holds_no_chunk_text_and_no_query_text(contracts: Guard, default: Guard) -> None:
    """Neither chunk text nor, unless asked, the query text appears in the record."""
    for result in (
        contracts.check(QUERY, [MSA, SOW], access={"contract_type": ["MSA"]}),
        default.check("who earns what?", [PAY, WHO]),
    ):
        dumped = json.dumps(result.audit())
        assert CANARY not in dumped
        assert "written notice" not in dumped
        assert "who earns" not in dumped
    asked = contracts.check(QUERY, [MSA], access={"contract_type": ["MSA"]}).audit(
        include_query=True
    )
    assert asked["query"]["text"] == QUERY


def test_domain_rejection_reason_keeps_query_words_out() -> None:
    """A blocklisted query's words stay out of a record that does not include the query."""
    guard = Guard.from_policy("bis")
    record = guard.check("price of bitcoin", [Chunk("IS 2062 steel", {"standard": "2062"})])
    dumped = json.dumps(record.audit())
    assert not record.query.allowed
    assert "bitcoin" not in dumped
    assert "bitcoin" in json.dumps(record.audit(include_query=True))


@pytest.mark.parametrize("classifier", [EchoingClassifier(), RaisingClassifier()])
def test_classifier_errors_quoting_chunks_stay_out(classifier: Classifier) -> None:
    """A classifier failure that quotes the chunk leaves no chunk text in the no-text records."""
    guard = Guard.from_policy("default", classifier=classifier)
    result = guard.check("q", [Chunk(f"untagged text {CANARY}")])
    assert not result.decisions[0].allowed
    assert CANARY in result.decisions[0].reason  # the in-process reason keeps the detail
    assert CANARY not in json.dumps(result.audit())
    assert CANARY not in json.dumps(result.to_dict(include_text=False))
    validate(result.audit())


@pytest.mark.parametrize(
    "value", [f"Project {CANARY} acquisition", [f"{CANARY} group", "hr"]], ids=["text", "list"]
)
def test_metadata_values_a_reason_names_stay_out(contracts: Guard, value: object) -> None:
    """A denied chunk's access value stays out of its reason and the no-text records: the
    reason is a template naming the attribute (the value is in the chunk's own metadata)."""
    chunk = Chunk("Either party may terminate on notice.", {"contract_type": value})
    result = contracts.check(QUERY, [MSA, chunk], access={"contract_type": ["MSA"]})
    for record in (result.audit(), result.to_dict(include_text=False)):
        assert CANARY not in json.dumps(record)
    reason = result.audit()["chunks"][1]["reason"]
    assert reason == result.decisions[1].reason
    assert reason == "contract_type value is not in the caller's allowlist"
    validate(result.audit())


def test_a_plain_text_reason_is_not_recorded_a_reason_object_is() -> None:
    """A check's plain-text reason may quote the chunk, so records name its stage only; a
    Reason's record form is recorded as written."""
    chunk = Chunk(f"an unusual sentence with the {CANARY} inside it")
    plain = ChunkDecision(0, chunk, False, "custom", f"saw {CANARY}")
    own = ChunkDecision(1, chunk, False, "custom", Reason(f"saw {CANARY}", "saw a code name"))
    result = GuardResult(QueryDecision(), (plain, own))
    for record in (result.audit(), result.to_dict(include_text=False)):
        assert CANARY not in json.dumps(record)
    first, second = result.audit()["chunks"]
    assert first["reason"].startswith("custom: reason not recorded")
    assert second["reason"] == "saw a code name"


def test_audit_logger_emits_one_json_record(
    contracts: Guard, caplog: pytest.LogCaptureFixture
) -> None:
    """The rag_guard_integrations.audit logger writes the record as one JSON line at INFO."""
    with caplog.at_level(logging.INFO, logger="rag_guard_integrations.audit"):
        result = contracts.check(QUERY, [MSA, SOW], access={"contract_type": ["MSA"]})
    lines = [r for r in caplog.records if r.name == "rag_guard_integrations.audit"]
    assert len(lines) == 1
    record = json.loads(lines[0].getMessage())
    assert record["request_id"] == result.audit()["request_id"]
    assert record == result.audit() | {"time": record["time"]}
    assert CANARY not in lines[0].getMessage()


class Switch(Sampler):
    """A sampler that records spans only while a test has it on, so the global provider this
    module installs costs other tests nothing."""

    on = False

    def should_sample(self, *args: Any, **kwargs: Any) -> SamplingResult:
        return SamplingResult(Decision.RECORD_AND_SAMPLE if self.on else Decision.DROP)

    def get_description(self) -> str:
        return "Switch"


SWITCH = Switch()
EXPORTER = InMemorySpanExporter()
INSTALLED: list[TracerProvider] = []


@pytest.fixture
def spans() -> Iterator[Any]:
    """An in-memory exporter receiving the spans of the test, through the global provider."""
    provider = trace.get_tracer_provider()
    if not isinstance(provider, TracerProvider):
        provider = TracerProvider(sampler=SWITCH)
        trace.set_tracer_provider(provider)
    if not INSTALLED:
        provider.add_span_processor(SimpleSpanProcessor(EXPORTER))
        INSTALLED.append(provider)
    EXPORTER.clear()
    SWITCH.on = True
    try:
        yield EXPORTER
    finally:
        SWITCH.on = False


def test_opentelemetry_span_carries_the_decisions(contracts: Guard, spans: Any) -> None:
    """With the OTel SDK tracing, each check records a rag_guard.check span without text."""
    result = contracts.check(QUERY, [MSA, SOW], access=AccessContext("bob", contract_type={"MSA"}))
    finished = [s for s in spans.get_finished_spans() if s.name == "rag_guard.check"]
    assert len(finished) == 1
    attributes = dict(finished[0].attributes or {})
    assert attributes["rag_guard.request_id"] == result.audit()["request_id"]
    assert attributes["rag_guard.principal"] == "bob"
    assert attributes["rag_guard.access.contract_type"] == ("MSA",)
    assert attributes["rag_guard.chunk.decisions"] == ("allow", "deny")
    assert attributes["rag_guard.chunk.stages"] == ("passed", "access")
    assert attributes["rag_guard.allowed"] == 1
    assert finished[0].start_time == result.request.started_ns  # type: ignore[union-attr]
    flat = {k: list(v) if isinstance(v, tuple) else v for k, v in attributes.items()}
    assert CANARY not in json.dumps(flat)


def test_request_ids_stay_unique_across_forked_workers() -> None:
    """A forked worker draws its own id prefix, so two processes never share a request id."""
    ours = {new_request_id() for _ in range(1000)}
    assert len(ours) == 1000
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child reports one id and exits at once
        os.write(write, new_request_id().encode())
        os._exit(0)
    os.waitpid(pid, 0)
    theirs = os.read(read, 64).decode()
    assert len(theirs) == 32
    assert theirs[:16] != next(iter(ours))[:16]


def test_a_tracer_provider_set_after_checks_gets_the_next_checks_span() -> None:
    """Without a tracer provider no span is made; one set later (in a fresh process, where none
    was set before) records the very next check."""
    script = """
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from rag_guard_integrations import Guard
guard = Guard.from_policy("default")
guard.check("q", [{"text": "a", "meta": {}}])
exporter = InMemorySpanExporter()
provider = TracerProvider()
provider.add_span_processor(SimpleSpanProcessor(exporter))
trace.set_tracer_provider(provider)
guard.check("q", [{"text": "b", "meta": {}}])
print([span.name for span in exporter.get_finished_spans()])
"""
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True
    )
    assert done.stdout.strip() == "['rag_guard.check']"
