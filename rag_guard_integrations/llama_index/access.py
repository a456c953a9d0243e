"""Per-request access for the LlamaIndex adapters: the kit's one access context (see
:mod:`rag_guard_integrations.adapters.access`), read the way a component with a default reads it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rag_guard_integrations.adapters.access import (
    AccessScope,
    current_access,
    guard_access,
    request_access,
)

if TYPE_CHECKING:
    from rag_guard_integrations.core.access import AccessContext

__all__ = ["AccessScope", "access_for", "current_access", "guard_access"]


def access_for(default: AccessContext | None, *, pinned: bool = False) -> AccessContext | None:
    """The access a component with ``default`` (pinned or not) checks this request with: the
    innermost ``guard_access`` block's, else ``default``."""
    return request_access(default=default, pinned=pinned)
