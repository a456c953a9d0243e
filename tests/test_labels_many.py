"""Labels read for a whole retrieved set at once are the labels each chunk's metadata gives
read alone, whatever the metadata holds."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rag_guard_integrations.core.labels import labels_many, metadata_labels

pytestmark = pytest.mark.unit

LABEL = st.sampled_from(["financial", "PII", " Client Data ", "none", "", "a,b", "x|y", "pii"])
VALUE = st.one_of(
    st.none(),
    LABEL,
    st.integers(),
    st.lists(st.one_of(LABEL, st.integers(), st.lists(LABEL, max_size=2)), max_size=3),
    st.tuples(LABEL),
    st.dictionaries(st.text(max_size=3), LABEL, max_size=2),
)
METADATA = st.dictionaries(
    st.sampled_from(["classification", "classifications", "other"]), VALUE, max_size=3
)


@settings(max_examples=300, deadline=None)
@given(st.lists(METADATA, max_size=12))
def test_the_batch_reads_what_each_mapping_reads_alone(metadata: list[dict[str, Any]]) -> None:
    """Same labels in order, and a problem at exactly the positions whose labels are
    unreadable, for strings, lists, placeholders, numbers and unhashable values mixed."""
    labels, problems = labels_many(metadata)
    alone = [metadata_labels(meta) for meta in metadata]
    assert labels == [found for found, _ in alone]
    assert problems == {i: problem for i, (_, problem) in enumerate(alone) if problem is not None}


def test_a_label_first_seen_in_the_batch_is_read_like_any_other() -> None:
    """A string never cached before, beside cached ones, is cleaned and split as usual."""
    labels, problems = labels_many(
        [{"classification": "financial"}, {"classification": "Fresh Label; Other-One"}]
    )
    assert labels == [frozenset({"financial"}), frozenset({"fresh_label", "other_one"})]
    assert problems == {}
