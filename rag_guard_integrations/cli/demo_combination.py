"""The combination part of ``rag-guard demo``: a block, a linked two-hop block and a warning."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rag_guard_integrations.console import heading, snippet, table

if TYPE_CHECKING:
    from rag_guard_integrations.core.decisions import GuardResult

SCENARIOS: tuple[tuple[str, str, list[dict[str, Any]]], ...] = (
    (
        "Revenue in one chunk, the client's identity in another",
        "How did our biggest account do last quarter?",
        [
            {
                "text": "Q3 revenue from the account rose 18% to $4.2M, with margin at 31%.",
                "meta": {"classification": "financial"},
            },
            {
                "text": "Northwind Traders Ltd (company no. 08123456) is our largest client.",
                "meta": {"classification": "entity_identifier"},
            },
            {"text": "Quarterly reviews are held in the first week after the quarter closes."},
        ],
    ),
    (
        "A review note linked to its employee through two shared keys",
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
        "Names next to contact details: recorded as a warning, nothing removed",
        "Who should I contact about the onboarding?",
        [
            {
                "text": "Priya Raman coordinates onboarding.",
                "meta": {"classification": "person_name"},
            },
            {
                "text": "Onboarding questions go to onboarding@example.com.",
                "meta": {"classification": "contact_details"},
            },
        ],
    ),
)


def combination_section() -> None:
    """Run each scenario through the built-in ``default`` pack and print what it decided."""
    from rag_guard_integrations import Guard  # noqa: PLC0415

    guard = Guard.from_policy("default")
    heading("Combination rules (built-in 'default' pack): harmless alone, revealing together")
    for title, query, chunks in SCENARIOS:
        result = guard.check(query, chunks)
        print(f"\n-- {title}")
        print(verdict_table(result))
        print(rules_text(result))


def verdict_table(result: GuardResult) -> str:
    """One row per chunk: labels, verdict and, for a removed chunk, the rule that removed it."""
    rows = [
        [
            d.index,
            ", ".join(sorted(d.labels)) or "-",
            "PASS" if d.allowed else "drop",
            d.rule or "",
            snippet(d.chunk.text, 62),
        ]
        for d in result.decisions
    ]
    return table(["#", "labels", "guard", "rule", "text"], rows)


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
