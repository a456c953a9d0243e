"""Properties of the guard over hostile chunk shapes, metadata values, label values and query
strings: the output is a subset of the input, failures fail closed, nothing crashes, index
metadata only adds restrictions, and the work grows linearly with the input (300 examples each,
the ``hardening`` profile of conftest.py)."""

from __future__ import annotations

from itertools import count
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from work_counter import lines_run

from rag_guard_integrations import Chunk, Guard, RagGuardError, parse_policy
from rag_guard_integrations.classify.base import Classification
from rag_guard_integrations.core.errors import ChunkError
from rag_guard_integrations.core.labels import metadata_labels
from rag_guard_integrations.guards.domain import REJECTING, TIERS, DomainGuard

if TYPE_CHECKING:
    from collections.abc import Sequence

    from rag_guard_integrations import GuardResult

HARDENING = settings(parent=settings.get_profile("hardening"))
SECRETS = [
    "Card on file 4111 1111 1111 1111, CVV on the back.",
    "SSN 078-05-1120 for the applicant.",
    "password: hunter2hunter2 for the admin account",
    "-----BEGIN RSA PRIVATE KEY-----\nMIIEow",
    "Contact jane@example.com, salary $120,000 a year.",
]
# Secrets the default pack withholds on their own, with no other chunk.
BLOCKED = [
    "password: hunter2hunter2 for the admin account",
    "-----BEGIN RSA PRIVATE KEY-----\nMIIEow",
    "api_key = sk_live_51HxZq2eZvKYlo2C for billing",
]
PLAIN = ["The trail climbs to a lake.", "Quarterly newsletter.", "", " ", "\u200b"]
TRICKS = [
    lambda t: t,
    lambda t: t.replace(" ", "\t"),
    lambda t: t.replace(" ", "  "),
    lambda t: t.translate(str.maketrans("0123456789", "٠١٢٣٤٥٦٧٨٩")),
    lambda t: t.translate(str.maketrans("0123456789", "０１２３４５６７８９")),
    lambda t: t.replace("-", "\u2013"),
    lambda t: "Café. " + t,
    lambda t: t.replace("o", "\u0585"),
]
BLANKS = [" ", "", "\u200b", "-", "_", "\u00ad", "\u2800", "  -  "]
LABELS = ["public", "Public", "financial", "credentials", "unclassified", "PII", *BLANKS]
KEYS = [
    "classification",
    "classifications",
    "entity",
    "account_id",
    "x_regex_hint",
    "tenant",
    "source",
]

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**6), 10**6),
    st.floats(allow_nan=True),
    st.sampled_from(LABELS),
    st.text(max_size=30),
)
json_values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=12,
)


def nested(value: Any, depth: int) -> Any:
    """``value`` wrapped in ``depth`` lists."""
    for _ in range(depth):
        value = [value]
    return value


metadata_values = st.one_of(
    json_values,
    st.builds(nested, scalars, st.integers(50, 3000)),
    st.lists(st.sampled_from(LABELS), max_size=5),
    st.sampled_from([r"\pL{40}", "(a)\\1", "x" * 2000, "(?:a|b)*c", "hunter", "[", "\\d"]),
)
metadata = st.dictionaries(st.sampled_from(KEYS), metadata_values, max_size=5)
texts = st.one_of(
    st.sampled_from(SECRETS + BLOCKED + PLAIN),
    st.builds(lambda t, s: t(s), st.sampled_from(TRICKS), st.sampled_from(SECRETS + BLOCKED)),
    st.text(max_size=200),
)
TEXT_KEYS = ["text", "page_content"]
META_KEYS = ["meta", "metadata"]


@st.composite
def chunk_shapes(draw: st.DrawFn) -> Any:
    """A chunk as a caller might hand it over: dicts of any key mix, Chunks, or junk."""
    kind = draw(st.sampled_from(["dict", "dict", "dict", "chunk", "junk"]))
    if kind == "chunk":
        return Chunk(draw(texts), draw(metadata), draw(st.none() | st.floats(-2, 2)))
    if kind == "junk":
        return draw(st.one_of(st.none(), st.integers(), st.text(max_size=5), st.lists(scalars)))
    item: dict[str, Any] = {}
    for key in draw(st.lists(st.sampled_from(TEXT_KEYS), max_size=2, unique=True)):
        item[key] = draw(st.one_of(texts, texts, scalars))
    for key in draw(st.lists(st.sampled_from(META_KEYS), max_size=2, unique=True)):
        item[key] = draw(st.one_of(metadata, metadata, json_values))
    if draw(st.booleans()):
        item["score"] = draw(st.one_of(st.floats(allow_nan=True), scalars))
    if draw(st.booleans()):
        item["extra"] = draw(texts)
    return item


def ambiguous(item: Any) -> bool:
    """True for a dict with two texts or two metadata mappings."""
    return isinstance(item, dict) and (
        all(k in item for k in TEXT_KEYS) or all(k in item for k in META_KEYS)
    )


@pytest.fixture(scope="module")
def default() -> Guard:
    return Guard.from_policy("default")


def assert_subset(result: GuardResult, items: Sequence[Chunk]) -> None:
    """The allowed chunks are input chunks, in input order, texts unchanged."""
    assert len(result.decisions) == len(items)
    positions = result.allowed_indices
    assert list(positions) == sorted(set(positions))
    for position, chunk in zip(positions, result.allowed, strict=True):
        assert chunk.text == items[position].text


@HARDENING
@given(items=st.lists(chunk_shapes(), max_size=6), query=st.text(max_size=50))
def test_any_chunk_shape_is_judged_or_refused_in_one_line(
    default: Guard, items: list[Any], query: str
) -> None:
    """Any mix of shapes gives a result whose output is a subset of the input, or a one-line
    RagGuardError; a dict with two texts or two metadata is always refused."""
    outcome: GuardResult | RagGuardError
    try:
        outcome = default.check(query, items)
    except RagGuardError as error:
        outcome = error
    if isinstance(outcome, RagGuardError):
        assert "\n" not in str(outcome)
        return
    assert not any(ambiguous(item) for item in items)
    assert_subset(outcome, [Chunk.from_any(item) for item in items])
    with pytest.raises(ChunkError):
        default.check(query, [*items, {"text": "a", "page_content": "b"}])


@HARDENING
@given(text=texts, meta=metadata)
def test_metadata_only_adds_restrictions(default: Guard, text: str, meta: dict[str, Any]) -> None:
    """Whatever metadata a chunk brings (labels, hints, linking values, deep nesting), a chunk
    denied for its text alone stays denied, and the result never crashes."""
    bare = default.check("q", [Chunk(text)])
    claimed = default.check("q", [Chunk(text, meta)])
    assert_subset(claimed, [Chunk(text, meta)])
    if not bare.decisions[0].allowed:
        assert not claimed.decisions[0].allowed
    claimed.to_dict(include_text=False)


@HARDENING
@given(secret=st.sampled_from(BLOCKED), trick=st.sampled_from(TRICKS), meta=metadata)
def test_secrets_are_withheld_whatever_the_metadata_or_spelling(
    default: Guard, secret: str, trick: Any, meta: dict[str, Any]
) -> None:
    """A secret the default pack blocks on its own is withheld in any spelling trick, under any
    claimed labels and metadata (fail closed)."""
    assert default.check("q", [Chunk(secret)]).allowed == []
    result = default.check("q", [Chunk(trick(secret), meta)])
    assert result.allowed == []


class Recording:
    """A model classifier that labels every text ``credentials`` and records what it saw."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    def classify_many(self, texts: Sequence[str]) -> list[Classification]:
        self.seen.extend(texts)
        return [Classification(frozenset({"credentials"})) for _ in texts]

    async def aclassify_many(self, texts: Sequence[str]) -> list[Classification]:
        return self.classify_many(texts)

    def bind(self, vocabulary: Any) -> Recording:
        return self


LABEL_POLICY = parse_policy(
    """
version: 1
labels: {credentials: {description: secrets}, public: {description: open}}
rules:
  - {name: no_credentials, trigger: {all_present: [credentials]}}
  - {name: no_unclassified, trigger: {all_present: [unclassified]}}
on_unknown_label: block
"""
)
label_values = st.one_of(
    st.sampled_from(LABELS), st.text(max_size=20), st.lists(st.sampled_from(LABELS), max_size=4)
)


@HARDENING
@given(key=st.sampled_from(["classification", "classifications"]), value=label_values)
def test_a_blank_or_missing_label_is_filled_by_the_classifier(key: str, value: Any) -> None:
    """Blank label values count as missing: the model classifier labels that chunk; a chunk with
    a real label keeps it (``fill_missing``); either way nothing slips through unlabelled."""
    model = Recording()
    guard = Guard(LABEL_POLICY, classifier=model)
    chunk = Chunk("token abc", {key: value})
    result = guard.check("q", [chunk])
    own, _ = metadata_labels(chunk.metadata)
    assert (model.seen == [chunk.text]) is (not own)
    decision = result.decisions[0]
    assert decision.labels
    assert decision.allowed is (decision.labels == {"public"})


BIS = Guard.from_policy("bis").policy.domain
assert BIS is not None
DOMAIN = DomainGuard(BIS.model_copy(update={"retriever_scores": "cosine"}))
queries = st.one_of(
    st.text(max_size=300),
    st.builds(lambda t, q: t(q), st.sampled_from(TRICKS), st.sampled_from(
        ["What is 269 plus 1?", "IS 2062 steel", "price of bitcoin", "water bottle isi mark"]
    )),
    st.builds(lambda w, n: " ".join([w] * n), st.sampled_from(["water", "is 269", "standard"]),
              st.integers(1, 2000)),
)  # fmt: skip


@HARDENING
@given(query=queries, score=st.floats(-1, 1))
def test_any_query_string_gets_a_tier_without_crashing(query: str, score: float) -> None:
    """Any query string, however long or spelt, is decided at one of the documented tiers."""
    chunks = [Chunk("catalogue entry", {"standard": s}, score=score) for s in ("IS 269", "IS 2062")]
    decision = DOMAIN.decide(query, chunks)
    assert decision.tier in TIERS
    assert decision.allowed is (decision.tier not in REJECTING)


SALT = count()


@HARDENING
@given(unit=st.tuples(texts, metadata), size=st.integers(3, 6))
def test_work_grows_linearly_with_the_number_of_chunks(
    default: Guard, unit: tuple[str, dict[str, Any]], size: int
) -> None:
    """Doubling the retrieved set (distinct texts, same shape) at most doubles the guard's work,
    counted in Python lines run, plus a small constant."""
    text, meta = unit

    def work(n: int) -> int:
        salt = next(SALT)
        chunks = [Chunk(f"{text} #{salt}.{i}", meta) for i in range(n)]
        return lines_run(lambda: default.check("q", chunks))

    small, large = work(size), work(2 * size)
    assert large <= 2.3 * small + 2000


@HARDENING
@given(text=texts, repeats=st.integers(5, 15))
def test_work_grows_linearly_with_the_text(default: Guard, text: str, repeats: int) -> None:
    """Doubling one chunk's text at most doubles the work, counted in Python lines run."""

    def work(n: int) -> int:
        salt = next(SALT)
        chunk = Chunk(f"{salt} " + (text + " ") * n, {"x_regex_hint": "\\w"})
        return lines_run(lambda: default.check("q", [chunk]))

    small, large = work(repeats), work(2 * repeats)
    assert large <= 2.3 * small + 2000
