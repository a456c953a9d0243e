"""Tests for the notebook display of a GuardResult."""

from __future__ import annotations

from rag_guard_integrations import AccessContext, Guard, parse_policy
from rag_guard_integrations.notebook import result_html

POLICY = """
access: {attributes: [tenant]}
rules:
  - name: ab
    trigger: {all_present: [a, b]}
"""


def test_html_has_one_row_per_chunk_with_verdict_and_escaped_text() -> None:
    """Each decision is a row naming stage and rule; chunk text is escaped, never raw HTML."""
    chunks = [
        {"text": "<script>x</script>", "meta": {"tenant": "t1", "classification": "a"}},
        {"text": "second", "meta": {"tenant": "t1", "classification": "b"}},
        {"text": "other tenant", "meta": {"tenant": "t2"}},
    ]
    result = Guard(parse_policy(POLICY)).check("q", chunks, access=AccessContext(tenant={"t1"}))
    html = result._repr_html_()
    assert html == result_html(result)
    assert html.count("<tr") == 4
    assert "<script>" not in html
    assert "&lt;script&gt;" in html
    assert "combination: ab" in html
    assert "1 of 3 chunks allowed; denied: combination 1, access 1" in html
    assert "no domain guard" in html
    assert "<b>block</b> ab" in html
