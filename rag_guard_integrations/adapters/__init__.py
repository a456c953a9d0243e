"""The adapter kit: what every framework adapter shares, with no framework imported.

One access context (:mod:`.access`), one request plan per request (:mod:`.plan`), one guarded
request written once for sync and async (:mod:`.check`, run by :mod:`.drive`), fetching out of
sight (:mod:`.fetch`), one decision-record builder (:mod:`.records`), one refusal rule
(:mod:`.refusal`) and the listeners of full results (:mod:`.listen`). An adapter converts its
framework's objects to chunks and back, fetches with its framework's calls and reports with its
framework's events; everything else is here.
"""

from rag_guard_integrations.adapters.access import AccessScope, current_access, guard_access
from rag_guard_integrations.adapters.listen import guard_results

__all__ = ["AccessScope", "current_access", "guard_access", "guard_results"]
