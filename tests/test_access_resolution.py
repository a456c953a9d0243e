"""Per-call access only narrows a pinned one, and an explicit None is no access."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rag_guard_integrations.core.access import (
    NO_ACCESS,
    NOT_GIVEN,
    AccessContext,
    resolve_access,
)
from rag_guard_integrations.core.errors import AccessError

VALUES = st.sampled_from(["MSA", "SOW", "NDA", "DPA"])
ATTRIBUTES = st.sampled_from(["contract_type", "region", "groups"])
CONTEXTS = st.builds(
    lambda principal, lists: AccessContext(principal, **lists),
    st.none() | st.just("alice"),
    st.dictionaries(ATTRIBUTES, st.frozensets(VALUES)),
)


def _granted(context: AccessContext | None) -> set[tuple[str, str]]:
    if context is None:
        return set()
    return {(name, value) for name, values in context.allowlists.items() for value in values}


@given(pinned=CONTEXTS, asked=CONTEXTS)
def test_a_pinned_access_is_never_widened_by_the_call(
    pinned: AccessContext, asked: AccessContext
) -> None:
    """Whatever the call brings, a pinned access grants no value the pin does not grant."""
    resolved = resolve_access(asked, default=pinned, pinned=True)
    assert _granted(resolved) <= _granted(pinned) & _granted(asked)


@given(default=CONTEXTS, asked=CONTEXTS)
def test_an_unpinned_default_is_replaced_by_the_call(
    default: AccessContext, asked: AccessContext
) -> None:
    """Without a pin, the call's access is the request's access, narrower or wider."""
    assert resolve_access(asked, default=default) == asked


def test_an_explicit_none_is_no_access_whatever_the_default() -> None:
    """None from the caller means "this caller has no access", never "use the default"."""
    default = {"contract_type": ["MSA"]}
    assert resolve_access(None, default=default) == NO_ACCESS
    assert resolve_access(None, default=default, pinned=True) == NO_ACCESS


def test_no_access_given_falls_back_to_the_default() -> None:
    """A call that brings no access at all runs with the component's default."""
    default = AccessContext("alice", contract_type={"MSA"})
    assert resolve_access(NOT_GIVEN, default=default) == default
    assert resolve_access(NOT_GIVEN, default=None) is None


def test_a_pin_without_a_default_grants_nothing() -> None:
    """A pinned component with no access of its own lets nothing access-controlled through."""
    assert resolve_access({"contract_type": ["MSA"]}, default=None, pinned=True) == NO_ACCESS
    assert resolve_access(NOT_GIVEN, default=None, pinned=True) == NO_ACCESS


def test_a_call_cannot_swap_the_pinned_principal() -> None:
    """A per-call principal other than the pinned one is an error naming both."""
    pinned = AccessContext("alice", contract_type={"MSA"})
    with pytest.raises(AccessError, match=r"'bob'.*'alice'"):
        resolve_access({"principal": "bob"}, default=pinned, pinned=True)
    kept = resolve_access({"contract_type": ["MSA"]}, default=pinned, pinned=True)
    assert kept is not None
    assert kept.principal == "alice"
