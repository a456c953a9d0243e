"""ReDoS and size: patterns catastrophic for backtracking engines run on RE2 or are refused at load.

Timing is not asserted here (see ``benchmarks/bench_redos.py``): on a backtracking engine the
checks below would not finish at these input sizes, so finishing, with the right verdict, is
the test.
"""

from __future__ import annotations

import pytest

from rag_guard_integrations import AccessContext, Chunk, Guard, PolicyError, parse_policy
from rag_guard_integrations.classify.pattern import PatternClassifier
from rag_guard_integrations.core.patterns import compile_pattern, compile_untrusted, matches

SIZE = 200_000
# Each pattern with an input that makes a backtracking engine try exponentially many ways,
# and whether the pattern really occurs in that input.
CATASTROPHIC = [
    ("(a+)+$", "a" * SIZE + "!", False),
    ("(a|aa)*c", "a" * SIZE, False),
    ("(x+x+)+y", "x" * SIZE, False),
    ("(.*a){20}", "a" * 19 + "b" * SIZE, False),
    ("(a+)+$", "a" * SIZE, True),
]
PATTERNS = list(dict.fromkeys(p for p, _, _ in CATASTROPHIC))
CASES = [f"{p}-{'match' if found else 'miss'}" for p, _, found in CATASTROPHIC]


def policy_with(pattern: str) -> str:
    """A policy that puts ``pattern`` everywhere a policy can hold a regex."""
    quoted = pattern.replace("'", "''")
    return f"""
version: 1
access: {{attributes: [tenant]}}
clauses:
  TRAP:
    intents: ['\\btrap\\b', '{quoted}']
    fingerprint: '{quoted}'
domain:
  blocklist: [bitcoin]
  identifier_pattern: '({quoted})'
  min_similarity: 0.1
classifiers:
  patterns:
    - {{name: trap, label: trapped, regex: '{quoted}'}}
rules:
  - name: trapped_twice
    trigger: {{all_present: [trapped, other]}}
"""


@pytest.mark.parametrize("pattern", PATTERNS)
def test_catastrophic_pattern_loads_and_compiles_with_re2(pattern: str) -> None:
    """Each catastrophic pattern is accepted in every regex field and compiled by RE2."""
    policy = parse_policy(policy_with(pattern))
    assert policy.clauses["TRAP"].fingerprint == pattern
    assert type(compile_pattern(pattern)).__module__ == "re2"
    assert type(compile_untrusted(pattern)).__module__ == "re2"


@pytest.mark.parametrize(("pattern", "text", "found"), CATASTROPHIC, ids=CASES)
def test_catastrophic_pattern_on_adversarial_text_finishes(
    pattern: str, text: str, found: bool
) -> None:
    """Matching a catastrophic pattern against its worst input finishes with the right answer."""
    assert matches(pattern, text) is found
    assert matches(pattern, text, untrusted=True) is found


@pytest.mark.parametrize(("pattern", "text", "found"), CATASTROPHIC, ids=CASES)
def test_guard_check_with_catastrophic_policy_finishes(
    pattern: str, text: str, found: bool
) -> None:
    """A 200 KB adversarial chunk and query through every stage of such a policy: the query
    stage, access, the fingerprint, the classifier and the rules; the same chunk carrying the
    pattern as an index hint is over the hint work budget at this length, so it is denied
    without the hint running."""
    guard = Guard(parse_policy(policy_with(pattern)))
    meta = {"tenant": "t", "clause_id": "TRAP"}
    chunks = [
        Chunk(text, meta, score=0.9),
        Chunk(text, {**meta, "tenant": "other"}, score=0.9),
        Chunk(text, {**meta, "trap_regex_hint": pattern}, score=0.9),
    ]
    result = guard.check(f"trap {text}", chunks, access=AccessContext(tenant={"t"}))
    assert result.query.allowed
    assert result.query.intents == ("TRAP",)
    first, second, hinted = result.decisions
    # The fingerprint (the same pattern) runs before the hint, so a miss stops at the clause.
    assert (first.allowed, first.stage) == ((True, "passed") if found else (False, "clause"))
    assert second.stage == "access"
    assert (hinted.allowed, hinted.stage) == (False, "hint" if found else "clause")
    if found:
        assert first.labels == {"trapped"}
        assert "budget" in hinted.reason


@pytest.mark.parametrize(("pattern", "text", "found"), CATASTROPHIC, ids=CASES)
def test_pattern_classifier_on_adversarial_text_finishes(
    pattern: str, text: str, found: bool
) -> None:
    """The classifier built from such a policy labels a 200 KB adversarial text correctly."""
    classifier = PatternClassifier.from_policy(parse_policy(policy_with(pattern)), cache_size=0)
    result = classifier.classify(text)
    assert result.error is None
    assert result.labels == ({"trapped"} if found else set())


def test_non_ascii_adversarial_text_is_normalised_then_matched() -> None:
    """Cyrillic look-alikes and zero-width characters (the slow normalisation path) fold into
    the adversarial run, which RE2 then matches in one pass."""
    text = "\u0430\u200b" * (SIZE // 2) + "!"
    assert not matches("(a+)+$", text)
    assert matches("(a+)+!$", text)


@pytest.mark.parametrize(
    ("pattern", "problem"),
    [
        ("(a)\\1", "invalid escape sequence"),
        ("(?=a)b", "invalid perl operator"),
        ("(?<=a)b", "invalid perl operator"),
        ("(?>a+)b", "invalid perl operator"),
        ("a++b", "bad repetition operator"),
        ("(.*a){2000}", "invalid repetition size"),
        ("((a{100}){100}){100}", "invalid repetition size"),
    ],
)
@pytest.mark.parametrize("field", ["intent", "fingerprint", "identifier", "classifier"])
def test_pattern_re2_cannot_run_is_refused_at_load(pattern: str, problem: str, field: str) -> None:
    """Backreferences, lookaround, atomic and possessive groups and huge repetitions are a
    PolicyError naming the key path and the RE2 problem, in every regex field."""
    text = {
        "intent": f"clauses:\n  X:\n    intents: ['{pattern}']\n",
        "fingerprint": f"clauses:\n  X:\n    intents: [x]\n    fingerprint: '{pattern}'\n",
        "identifier": f"domain:\n  identifier_pattern: '{pattern}'\n",
        "classifier": f"classifiers:\n  patterns:\n    - {{name: n, label: l, regex: '{pattern}'}}",
    }[field]
    with pytest.raises(PolicyError) as caught:
        parse_policy(text)
    message = str(caught.value)
    assert "is not a pattern RE2 can run" in message
    assert problem in message
    assert "\n" not in message


@pytest.mark.parametrize(
    "hint",
    [r"\pL{1000}", r"(?:\pL|\pN){1000}", "(a)\\1", "x" * 200_000],
    ids=["letters_x1000", "alternation_x1000", "backreference", "long_literal"],
)
def test_expensive_or_invalid_hint_is_denied_not_compiled_at_any_cost(hint: str) -> None:
    """An index hint too large for the untrusted budget (a second and megabytes to compile
    otherwise) or not RE2 denies its chunk and says so; the other chunk is unaffected."""
    guard = Guard(parse_policy("version: 1\n"))
    chunks = [Chunk("some text", {"x_regex_hint": hint}), Chunk("some text")]
    result = guard.check("q", chunks)
    assert [d.allowed for d in result.decisions] == [False, True]
    reason = result.decisions[0].reason
    assert reason.startswith("untrusted x_regex_hint ")
    assert reason.endswith("(denied)")


def test_hint_within_the_budget_still_restricts() -> None:
    """Ordinary hints fit the untrusted budget: a matching one passes, a failing one denies."""
    guard = Guard(parse_policy("version: 1\n"))
    text = "payable within thirty (30) days of invoice"
    ok = Chunk(text, {"x_regex_hint": r"within [^.;]{0,80}\(\d+\) days"})
    off = Chunk(text, {"x_regex_hint": r"within [^.;]{0,80}\(\d+\) weeks"})
    assert guard.check("q", [ok, off]).allowed == [ok]


def alternation(words: int) -> str:
    """A hint of ``words`` distinct six-letter alternatives, as a poisoned index might bring."""
    return "(?:" + "|".join(f"w{n:05d}" for n in range(words)) + r")\d"


@pytest.mark.parametrize(
    ("hints", "why"),
    [
        ({"x_regex_hint": alternation(3000)}, "characters"),
        ({"x_regex_hint": r"\pL{20}\d"}, "RE2 instructions"),
        ({"x_regex_hint": "[a-z]{0,150}z"}, "RE2 instructions"),
        ({f"h{n}_regex_hint": "[a-z]{0,80}z" for n in range(4)}, "together"),
        ({f"h{n}_regex_hint": "t" for n in range(9)}, "more than 8"),
    ],
    ids=["long_alternation", "short_but_large_program", "counted_repeat", "sum", "count"],
)
def test_hints_over_the_work_bound_deny_their_chunk(hints: dict[str, str], why: str) -> None:
    """A hint too long or too large to run, or too many hints together, deny the chunk alone
    before any of them runs over the text."""
    guard = Guard(parse_policy("version: 1\n"))
    text = "w00001 " * 3000
    result = guard.check("q", [Chunk(text, hints), Chunk(text)])
    assert [d.allowed for d in result.decisions] == [False, True]
    assert why in result.decisions[0].reason
    assert result.decisions[0].stage == "hint"


def test_hints_within_the_bound_all_restrict() -> None:
    """Several small hints pass when the text matches all of them, and one miss denies."""
    guard = Guard(parse_policy("version: 1\n"))
    text = "w00001 paid 30 days"
    ok = {"a_regex_hint": alternation(40), "b_regex_hint": r"\bdays\b"}
    assert guard.check("q", [Chunk(text.replace(" paid", "1 paid"), ok)]).allowed != []
    assert guard.check("q", [Chunk(text, {**ok, "c_regex_hint": "weeks"})]).allowed == []


def test_untrusted_bounds_are_what_compile_untrusted_enforces() -> None:
    """The bounds live in one place: compile_untrusted refuses what HintGuard denies."""
    from rag_guard_integrations.core.patterns import (
        MAX_UNTRUSTED_CHARS,
        MAX_UNTRUSTED_PROGRAM,
        PatternTooLargeError,
    )

    assert compile_untrusted(alternation(40)).programsize <= MAX_UNTRUSTED_PROGRAM
    with pytest.raises(PatternTooLargeError, match="characters"):
        compile_untrusted("x" * (MAX_UNTRUSTED_CHARS + 1))
    with pytest.raises(PatternTooLargeError, match="instructions"):
        compile_untrusted(r"\pL{20}")


@pytest.mark.parametrize("size", [100, 20_000], ids=["cached", "long"])
def test_hints_judge_long_and_short_texts_alike(size: int) -> None:
    """A text past the cache limit is normalised once for all its hints, with the same verdict."""
    guard = Guard(parse_policy("version: 1\n"))
    text = "ｗ00001 paid " + "x" * size + " within 30 days"
    ok = {"a_regex_hint": r"w00001 paid", "b_regex_hint": r"\bdays$"}
    assert guard.check("q", [Chunk(text, ok)]).allowed != []
    assert guard.check("q", [Chunk(text, {**ok, "c_regex_hint": "weeks"})]).allowed == []
