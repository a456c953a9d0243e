"""Haystack adapters that let only what the Guard allows reach the prompt: the
:class:`GuardedDocuments` and :class:`GuardedRetriever` components and per-request access; the
only place in the package that imports ``haystack``."""

from rag_guard_integrations.core.extras import needs_extra

with needs_extra(
    "haystack", "rag_guard_integrations.haystack"
):  # a missing framework names its extra
    import haystack  # noqa: F401

from rag_guard_integrations.adapters.access import AccessScope, guard_access
from rag_guard_integrations.adapters.listen import guard_results
from rag_guard_integrations.core.access import NO_ACCESS
from rag_guard_integrations.haystack.documents import GuardedDocuments
from rag_guard_integrations.haystack.retriever import GuardedRetriever

__all__ = [
    "NO_ACCESS",
    "AccessScope",
    "GuardedDocuments",
    "GuardedRetriever",
    "guard_access",
    "guard_results",
]
