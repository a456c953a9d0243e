"""Access from the authorization systems users already run: the :class:`AccessSource`
protocol the guard asks (a scope for pushdown, a live bulk check of the retrieved chunks) and
one module per engine, each an optional extra: ``cedar``, ``casbin``, ``spicedb``, ``openfga``."""

from __future__ import annotations

import importlib
from typing import Any

from rag_guard_integrations.authz.source import AccessSource, Answers, Scope, principal_problem
from rag_guard_integrations.core.access_record import AccessRecord, AclAges

__all__ = [
    "AccessRecord",
    "AccessSource",
    "AclAges",
    "Answers",
    "CasbinAccess",
    "CedarAccess",
    "OpenFGAAccess",
    "Scope",
    "SpiceDBAccess",
    "principal_problem",
]

# Each engine's module imports its library: loaded on first use, so that the package imports
# with none of them installed.
_ENGINES = {
    "CedarAccess": "cedar",
    "CasbinAccess": "casbin",
    "SpiceDBAccess": "spicedb",
    "OpenFGAAccess": "openfga",
}


def __getattr__(name: str) -> Any:
    module = _ENGINES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
