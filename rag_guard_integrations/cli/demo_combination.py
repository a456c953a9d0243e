"""The combination part of ``rag-guard demo``: blocks found from chunk text alone, a linked
two-hop block from metadata labels, and a warning; every label says where it came from."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rag_guard_integrations.cli.console import heading, snippet, table
from rag_guard_integrations.core.labels import metadata_labels

if TYPE_CHECKING:
    from rag_guard_integrations import Guard
    from rag_guard_integrations.core.decisions import GuardResult

SOURCES = (
    "Labels come from chunk metadata ('classification'), from the pack's recognisers reading "
    "the text, or from a classifier you attach (none here); each label below says which."
)
SCENARIOS: tuple[tuple[str, str, list[dict[str, Any]]], ...] = (
    (
        "From text alone: a card number and its holder's name, no labels in metadata",
        "Which card does this customer use?",
        [
            {"text": "Card on file 4111 1111 1111 1111 for customer Jane Roe."},
            {"text": "Cards are re-verified once a year."},
        ],
    ),
    (
        "From text alone: revenue in one chunk, the client's identity in another",
        "How did our biggest account do last quarter?",
        [
            {"text": "Q3 revenue from the account rose 18% to $4.2M, with margin at 31%."},
            {"text": "Northwind Traders Ltd (company no. 08123456) is our largest client."},
            {"text": "Quarterly reviews are held in the first week after the quarter closes."},
        ],
    ),
    (
        "From metadata: a review note linked to its employee through two shared keys (no "
        "recogniser reads a performance review; a classifier or the index's labels must)",
        "Summarise the latest performance notes.",
        [
            {
                "text": "Rated 'needs improvement'; a written warning was issued in March.",
                "meta": {"classification": "performance_review", "employee_id": "E-77"},
            },
            {
                "text": "Badge E-77 was issued with laptop account ACC-9.",
                "meta": {"employee_id": "E-77", "account_id": "ACC-9"},
            },
            {
                "text": "Account ACC-9 belongs to Dana Whitfield, senior analyst.",
                "meta": {"classification": "employee_identity", "account_id": "ACC-9"},
            },
            {"text": "The review cycle closes on 30 April.", "meta": {}},
        ],
    ),
    (
        "From text alone: names next to contact details, recorded as a warning, nothing removed",
        "Who should I contact about the onboarding?",
        [
            {"text": "Priya Raman coordinates onboarding."},
            {"text": "Onboarding questions go to onboarding@example.com."},
        ],
    ),
)


def combination_section() -> None:
    """Run each scenario through the built-in ``default`` pack and print what it decided."""
    from rag_guard_integrations import Guard  # noqa: PLC0415

    guard = Guard.from_policy("default")
    heading("Combination rules (built-in 'default' pack): harmless alone, revealing together")
    print(SOURCES)
    for title, query, chunks in SCENARIOS:
        result = guard.check(query, chunks)
        print(f"\n-- {title}")
        print(verdict_table(result, guard))
        print(rules_text(result))


def label_sources(guard: Guard, text: str, metadata: Any) -> dict[str, str]:
    """Where each label of a chunk comes from: ``metadata``, ``text`` (a recogniser, named) or
    both. The demo attaches no classifier, so no label comes from one."""
    found: dict[str, dict[str, None]] = {}
    if guard.recognizers is not None:
        for finding in guard.recognizers.classify(text).findings:
            found.setdefault(finding.label, {})[finding.recognizer] = None
    sources = dict.fromkeys(metadata_labels(metadata)[0], "metadata")
    for label, names in found.items():
        read = "text: " + ", ".join(names)
        sources[label] = f"{sources[label]}, {read}" if label in sources else read
    return sources


def verdict_table(result: GuardResult, guard: Guard) -> str:
    """One row per chunk: labels and their sources, verdict and, for a removed chunk, the rule
    that removed it."""
    rows = []
    for d in result.decisions:
        sources = label_sources(guard, d.chunk.text, d.chunk.metadata)
        labels = ", ".join(
            f"{label} ({sources.get(label, 'classifier')})" for label in sorted(d.labels)
        )
        allowed = "PASS" if d.allowed else "drop"
        rows.append([d.index, labels or "-", allowed, d.rule or "", snippet(d.chunk.text, 52)])
    return table(["#", "labels (from)", "guard", "rule", "text"], rows)


def rules_text(result: GuardResult) -> str:
    """The violations and warnings, with the chain of links for linked rules."""
    lines = []
    for violation in (*result.violations, *result.warnings):
        chain = " -> ".join(map(str, violation.links))
        lines.append(
            f"   {violation.action.upper()} {violation.rule}: {violation.message}"
            + (f"\n      linked by {chain}" if chain else "")
        )
    lines.append(
        f"   is_safe={result.is_safe}; chunks reaching the LLM: {list(result.allowed_indices)}"
    )
    return "\n".join(lines)
